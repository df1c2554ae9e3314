import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SessionBusyError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import type { Capability } from '../../src/spine/capability.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { ReplayError } from '../../src/spine/spine-errors.js';
import { defineTool } from '../../src/spine/tool.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => (path === 'missing.ts' ? Promise.reject(new Error(`ENOENT: ${path}`)) : `contents of ${path}`),
});

async function events(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

function setup(replies: ScriptedReply[] | ((call: { index: number }) => ScriptedReply), options: Partial<HarnessOptions> = {}) {
  const store = new MemoryLogStore();
  const model = new ScriptedModel({ replies });
  const harness = createHarness({ store, model, tools: [readFile], systemPrompt: 'Be brief.', ...options });
  const resolveRenderer = () => model;
  return { store, model, harness, resolveRenderer };
}

const types = (list: LogEvent[]) => list.map((event) => event.type);

describe('the spine', () => {
  it('runs a turn with no capability mounted: request recorded before the call, answer, turn end', async () => {
    const { store, harness } = setup([{ text: 'Hello.' }]);
    const session = await harness.createSession('s1');
    const result = await session.send('Hi');
    expect(result).toEqual({ turn: 1, reason: 'completed', steps: 1, text: 'Hello.' });
    const log = await events(store, 's1');
    expect(types(log)).toEqual([
      'session/start',
      'system/message',
      'turn/start',
      'user/message',
      'model/request',
      'assistant/message',
      'turn/end',
    ]);
    expect(log[4]?.data).toMatchObject({ turn: 1, step: 1, provider: 'scripted', model: 'scripted', surfaceSeqs: [1, 3] });
    expect(log[6]?.data).toEqual({ turn: 1, reason: 'completed' });
    expect((await verifyLog(store.read('s1'))).ok).toBe(true);
  });

  it('runs tool calls, appends their results, and calls the model again until it stops', async () => {
    const { store, harness, resolveRenderer } = setup([
      {
        text: 'Reading.',
        toolCalls: [
          { name: 'read_file', arguments: { path: 'a.ts' } },
          { name: 'read_file', arguments: { path: 'b.ts' } },
        ],
      },
      { text: 'Both read.' },
    ]);
    const session = await harness.createSession('s1');
    const result = await session.send('Read a and b');
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'Both read.' });
    const log = await events(store, 's1');
    const results = log.filter((event) => event.type === 'tool/result').map((event) => event.data);
    expect(results).toEqual([
      { callId: 'call-1-1', content: [{ type: 'text', text: 'contents of a.ts' }] },
      { callId: 'call-1-2', content: [{ type: 'text', text: 'contents of b.ts' }] },
    ]);
    for (const step of [1, 2]) {
      const replayed = await replay(store, 's1', { turn: 1, step }, { resolveRenderer });
      expect(replayed.verified).toBe(true);
    }
  });

  it('turns a throwing tool, bad arguments and an unknown tool into tool/result errors the model can read', async () => {
    const { store, harness } = setup([
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: 'missing.ts' } },
          { name: 'read_file', arguments: '{"path": "a.ts"' },
          { name: 'read_file', arguments: { file: 'a.ts' } },
          { name: 'delete_everything', arguments: {} },
        ],
      },
      { text: 'I see the errors.' },
    ]);
    const session = await harness.createSession('s1');
    expect((await session.send('Go')).reason).toBe('completed');
    const errors = (await events(store, 's1'))
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data.error as { message: string }).message);
    expect(errors[0]).toBe('read_file failed: ENOENT: missing.ts');
    expect(errors[1]).toMatch(/^the arguments are not valid JSON/);
    expect(errors[2]).toMatch(/^invalid arguments for read_file: path: /);
    expect(errors[3]).toBe('there is no tool named "delete_everything"; the tools are: read_file');
  });

  it('stops at the step limit with reason max-steps', async () => {
    const { store, harness } = setup(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'loop.ts' } }] }), { maxSteps: 3 });
    const session = await harness.createSession('s1');
    expect(await session.send('Loop')).toMatchObject({ reason: 'max-steps', steps: 3 });
    const log = await events(store, 's1');
    expect(log.filter((event) => event.type === 'model/request')).toHaveLength(3);
    expect(log.at(-1)?.data).toEqual({ turn: 1, reason: 'max-steps' });
  });

  it('ends an aborted turn with reason aborted, giving every pending call a result', async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: 'slow',
      description: 'Aborts the turn while it runs',
      input: z.object({}),
      execute: () => {
        controller.abort();
        return 'done';
      },
    });
    const { store, harness } = setup(
      [
        {
          toolCalls: [
            { name: 'slow', arguments: {} },
            { name: 'slow', arguments: {} },
          ],
        },
      ],
      { tools: [slow] },
    );
    const session = await harness.createSession('s1');
    expect((await session.send('Go', { signal: controller.signal })).reason).toBe('aborted');
    const log = await events(store, 's1');
    expect(log.filter((event) => event.type === 'tool/result').map((event) => event.data.error)).toEqual([
      undefined,
      { message: 'the turn was aborted before this tool ran' },
    ]);
    expect(log.at(-1)?.data).toEqual({ turn: 1, reason: 'aborted' });
    expect((await verifyLog(store.read('s1'))).ok).toBe(true);
  });

  it('logs a provider error as model/error and ends the turn with reason error; the log stays valid', async () => {
    // Retries at the transport are tested in retries.test.ts; here the first error ends the turn.
    const { store, harness } = setup(() => ({ error: new ProviderError('rate-limit', 'scripted', 'slow down') }), {
      retries: { maxRetries: 0 },
    });
    const session = await harness.createSession('s1');
    const result = await session.send('Hi');
    expect(result.reason).toBe('error');
    expect(result.error).toBeInstanceOf(ProviderError);
    const log = await events(store, 's1');
    expect(types(log).slice(-3)).toEqual(['model/request', 'model/error', 'turn/end']);
    expect(log.at(-2)?.data).toEqual({
      turn: 1,
      step: 1,
      code: 'PROVIDER_RATE_LIMIT',
      message: 'slow down',
      retryable: true,
      contextOverflow: false,
      attempt: 1,
    });
    expect((await verifyLog(store.read('s1'))).ok).toBe(true);
    expect((await session.send('Again?')).reason).toBe('error');
  });

  it('calls capabilities before each step in order, asks them about request errors, and runs them between turns', async () => {
    const calls: string[] = [];
    const capability = (name: string, retry: boolean): Capability => ({
      name,
      beforeStep: async ({ turn, step }) => {
        calls.push(`${name} before ${turn}.${step}`);
      },
      onRequestError: async ({ error, retries }) => {
        calls.push(`${name} error ${error.kind} after ${retries} retries`);
        return retry;
      },
      betweenTurns: async () => {
        calls.push(`${name} between`);
      },
    });
    const { store, harness, resolveRenderer } = setup(
      [{ error: new ProviderError('context-overflow', 'scripted', 'too long') }, { text: 'Fine now.' }],
      { capabilities: [capability('first', false), capability('second', true)] },
    );
    const session = await harness.createSession('s1');
    expect(await session.send('Hi')).toMatchObject({ reason: 'completed', steps: 2 });
    expect(calls).toEqual([
      'first before 1.1',
      'second before 1.1',
      'first error context-overflow after 0 retries',
      'second error context-overflow after 0 retries',
      'first between',
      'second between',
    ]);
    const requests = (await events(store, 's1')).filter((event) => event.type === 'model/request').map((event) => event.data.step);
    expect(requests).toEqual([1, 2]);
    expect((await replay(store, 's1', { turn: 1, step: 2 }, { resolveRenderer })).verified).toBe(true);
  });

  it('retries a failed call as often as a capability asks, each retry a step, bounded by maxSteps', async () => {
    const asked: number[] = [];
    const twice: Capability = {
      name: 'twice',
      onRequestError: async (context) => {
        asked.push(context.retries);
        return context.retries < 2;
      },
    };
    const noRetries = { retries: { maxRetries: 0 } };
    const { harness } = setup(() => ({ error: new ProviderError('server', 'scripted', 'down') }), { capabilities: [twice], ...noRetries });
    expect(await (await harness.createSession('s1')).send('Hi')).toMatchObject({ reason: 'error', steps: 3 });
    expect(asked).toEqual([0, 1, 2]);

    const always: Capability = { name: 'always', onRequestError: async () => true };
    const bounded = setup(() => ({ error: new ProviderError('server', 'scripted', 'down') }), {
      capabilities: [always],
      maxSteps: 5,
      ...noRetries,
    });
    expect(await (await bounded.harness.createSession('s2')).send('Hi')).toMatchObject({ reason: 'max-steps', steps: 5 });
  });

  it('closes the turn and rethrows when something other than the provider fails', async () => {
    const { store, harness } = setup([]);
    const session = await harness.createSession('s1');
    await expect(session.send('Hi')).rejects.toMatchObject({ code: 'SCRIPT_EXHAUSTED' });
    expect((await events(store, 's1')).at(-1)?.data).toEqual({ turn: 1, reason: 'error' });
  });
});

describe('lifecycles', () => {
  it('reopening appends session/end-seed, keeps counting turns, and needs ownership', async () => {
    const { store, harness } = setup([{ text: 'One.' }, { text: 'Two.' }]);
    const first = await harness.createSession('s1');
    await first.send('Turn one');
    await expect(harness.openSession('s1')).rejects.toBeInstanceOf(SessionBusyError);
    await first.close();
    const second = await harness.openSession('s1', 'test reopen');
    expect(await second.send('Turn two')).toMatchObject({ turn: 2, text: 'Two.' });
    const log = await events(store, 's1');
    expect(log.find((event) => event.type === 'session/end-seed')?.data).toEqual({ reason: 'test reopen' });
    expect(log.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)).toEqual([1, 2]);
  });

  it('closes a turn the last lifecycle left open, with a result for each call that never returned', async () => {
    const store = new MemoryLogStore();
    const crashing = defineTool({
      name: 'crash',
      description: 'never returns',
      input: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const model = new ScriptedModel({ replies: [{ toolCalls: [{ name: 'crash', arguments: {} }] }, { text: 'Recovered.' }] });
    const harness = createHarness({ store, model, tools: [crashing] });
    const session = await harness.createSession('s1');
    void session.send('Go');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await session.close(); // the process "dies": the turn never ends
    const reopened = await harness.openSession('s1');
    const log = await events(store, 's1');
    expect(types(log).slice(-3)).toEqual(['session/end-seed', 'tool/result', 'turn/end']);
    expect(log.at(-1)?.data).toEqual({ turn: 1, reason: 'interrupted' });
    expect(await reopened.send('Continue')).toMatchObject({ turn: 2, reason: 'completed', text: 'Recovered.' });
    expect((await verifyLog(store.read('s1'))).ok).toBe(true);
  });
});

describe('replay', () => {
  it('names a call that does not exist', async () => {
    const { store, harness, resolveRenderer } = setup([{ text: 'Hi.' }]);
    await (await harness.createSession('s1')).send('Hi');
    await expect(replay(store, 's1', { turn: 2 }, { resolveRenderer })).rejects.toThrow(
      /no model call at turn 2, step 1; its model calls are in turns 1/,
    );
    await expect(replay(store, 's1', { turn: 1, step: 2 }, { resolveRenderer })).rejects.toBeInstanceOf(ReplayError);
  });

  it('says so when the rebuilt request does not hash to the recorded digest', async () => {
    const { store, harness, model } = setup([{ text: 'Hi.' }]);
    await (await harness.createSession('s1')).send('Hi');
    const drifted = Object.create(model) as ScriptedModel;
    drifted.render = (request, version) => {
      const rendered = model.render(request, version);
      return { body: { ...rendered.body, temperature: 0.5 } };
    };
    const error = await replay(store, 's1', { turn: 1 }, { resolveRenderer: () => drifted }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ReplayError);
    expect(error).toMatchObject({ problem: 'digest-differs', code: 'REPLAY_MISMATCH' });
  });
});
