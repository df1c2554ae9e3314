// Answers that break a log rule as they come: tool-call ids that are reused, repeated or empty
// get ids of their own (the provider's kept as providerCallId); anything the log still cannot
// hold as an assistant/message is recorded as it arrived, in model/unrecorded-answer, with the
// reason, and the turn ends with error. Nothing a model said is missing from the record.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AssistantMessageData, LogEvent, ModelRequestData, ModelUnrecordedAnswerData, ToolCall } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { UnrecordedAnswerError } from '../../src/spine/spine-errors.js';
import { defineTool } from '../../src/spine/tool.js';
import { ToolCallIds } from '../../src/spine/tool-call-ids.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { failingStore, failOnType, InjectedFailure } from '../support/failing-store.js';

const read = defineTool({
  name: 'read',
  description: 'Read a file',
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}`,
});

async function events(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

const callsOf = (log: LogEvent[]) =>
  log.filter((event) => event.type === 'assistant/message').flatMap((event) => (event.data as unknown as AssistantMessageData).toolCalls);
const resultIds = (log: LogEvent[]) => log.filter((event) => event.type === 'tool/result').map((event) => event.data.callId);

async function replaysAll(store: LogStore, sessionId: string, model: ScriptedModel): Promise<void> {
  for (const event of await events(store, sessionId)) {
    if (event.type !== 'model/request') continue;
    const { turn, step, requestDigest } = event.data as unknown as ModelRequestData;
    expect((await replay(store, sessionId, { turn, step }, { resolveRenderer: () => model })).requestDigest).toBe(requestDigest);
  }
}

function setup(replies: ScriptedReply[], store: LogStore = new MemoryLogStore()) {
  const model = new ScriptedModel({ replies });
  return { store, model, harness: createHarness({ store, model, tools: [read] }) };
}

describe('tool-call ids', () => {
  it('gives a call an id of its own when the provider reuses one from an earlier turn, and pairs its result with it', async () => {
    const { store, model, harness } = setup([
      { toolCalls: [{ callId: 'call_0', name: 'read', arguments: { path: 'a' } }] },
      { text: 'Read a.' },
      { toolCalls: [{ callId: 'call_0', name: 'read', arguments: { path: 'b' } }] },
      { text: 'Read b.' },
    ]);
    const session = await harness.createSession('s');
    expect((await session.send('Read a')).reason).toBe('completed');
    expect((await session.send('Read b')).reason).toBe('completed');
    const log = await events(store, 's');
    const second = log.filter((event) => event.type === 'assistant/message')[2] as LogEvent;
    expect(callsOf(log)).toEqual([
      { callId: 'call_0', name: 'read', arguments: { path: 'a' } },
      { callId: `shadowlog-call-${second.seq}-1`, providerCallId: 'call_0', name: 'read', arguments: { path: 'b' } },
    ]);
    expect(resultIds(log)).toEqual(['call_0', `shadowlog-call-${second.seq}-1`]);
    expect((await verifyLog(store.read('s'))).ok).toBe(true);
    await replaysAll(store, 's', model);
  });

  it('renames repeated and empty ids within one answer, keeping what the provider sent', async () => {
    const { store, model, harness } = setup([
      {
        toolCalls: [
          { callId: 'x', name: 'read', arguments: { path: 'a' } },
          { callId: 'x', name: 'read', arguments: { path: 'b' } },
          { callId: '', name: 'read', arguments: { path: 'c' } },
        ],
      },
      { text: 'Done.' },
    ]);
    const session = await harness.createSession('s');
    expect((await session.send('Read')).reason).toBe('completed');
    const log = await events(store, 's');
    const seq = (log.find((event) => event.type === 'assistant/message') as LogEvent).seq;
    expect(callsOf(log).map((call) => [call.callId, call.providerCallId])).toEqual([
      ['x', undefined],
      [`shadowlog-call-${seq}-2`, 'x'],
      [`shadowlog-call-${seq}-3`, ''],
    ]);
    expect(resultIds(log)).toEqual(['x', `shadowlog-call-${seq}-2`, `shadowlog-call-${seq}-3`]);
    await replaysAll(store, 's', model);
  });

  it('counts the ids of earlier lifecycles of the session', async () => {
    const { store, harness } = setup([{ toolCalls: [{ callId: 'call_0', name: 'read', arguments: { path: 'a' } }] }, { text: 'One.' }]);
    const first = await harness.createSession('s');
    await first.send('One');
    await first.close();
    const again = setup([{ toolCalls: [{ callId: 'call_0', name: 'read', arguments: { path: 'b' } }] }, { text: 'Two.' }], store);
    const second = await again.harness.openSession('s');
    expect((await second.send('Two')).reason).toBe('completed');
    const calls = callsOf(await events(store, 's'));
    expect(calls[1]?.providerCallId).toBe('call_0');
    expect(calls[1]?.callId).not.toBe('call_0');
  });

  it('never hands out an id a provider used, in the session or in the same answer', () => {
    const ids = new ToolCallIds();
    ids.observe({
      type: 'assistant/message',
      data: { content: [], model: 'm', toolCalls: [{ callId: 'shadowlog-call-9-1', name: 'read', arguments: {} }] },
    } as unknown as LogEvent);
    const call = (callId: string): ToolCall => ({ callId, name: 'read', arguments: {} });
    expect(ids.assign([call(''), call('shadowlog-call-9-1-2'), call('shadowlog-call-9-1')], 9).map((assigned) => assigned.callId)).toEqual([
      'shadowlog-call-9-1-3',
      'shadowlog-call-9-1-2',
      'shadowlog-call-9-3',
    ]);
  });
});

describe('an answer the log cannot hold as a message', () => {
  it('is recorded as it arrived, with the reason, and the turn ends with error; the session goes on', async () => {
    const { store, harness } = setup([{ text: 'Calling.', toolCalls: [{ name: '', arguments: { path: 'a' } }] }, { text: 'Hello again.' }]);
    const session = await harness.createSession('s');
    const result = await session.send('Go');
    expect(result.reason).toBe('error');
    expect(result.error).toBeInstanceOf(UnrecordedAnswerError);
    const log = await events(store, 's');
    const kept = log.find((event) => event.type === 'model/unrecorded-answer') as LogEvent;
    expect(result.error).toMatchObject({ code: 'UNRECORDED_ANSWER', turn: 1, step: 1, seq: kept.seq });
    // Log-only and changing no surface: a reader from before the type existed may skip it.
    expect(kept.ignorable).toBe(true);
    const data = kept.data as unknown as ModelUnrecordedAnswerData;
    expect(data).toMatchObject({ turn: 1, step: 1, code: 'INVALID_EVENT', raw: { format: 'result' } });
    expect(data.message).toMatch(/toolCalls\[0\]\.name must be a non-empty string/);
    expect(JSON.parse(data.raw.text)).toMatchObject({ content: [{ type: 'text', text: 'Calling.' }], toolCalls: [{ name: '' }] });
    expect(log.at(-1)?.data).toEqual({ turn: 1, reason: 'error' });
    expect((await verifyLog(store.read('s'))).ok).toBe(true);
    expect(await session.send('Hi')).toMatchObject({ reason: 'completed', text: 'Hello again.' });
  });

  it('keeps values JSON has no form for (a number beyond a 64-bit float) as text', async () => {
    const usage = { inputTokens: 10, outputTokens: 5 };
    const { store, harness } = setup([{ toolCalls: [{ name: 'read', arguments: { path: 'a', size: Number.POSITIVE_INFINITY } }], usage }]);
    const session = await harness.createSession('s');
    expect((await session.send('Go')).reason).toBe('error');
    const kept = (await events(store, 's')).find((event) => event.type === 'model/unrecorded-answer') as LogEvent;
    expect(kept.data).toMatchObject({ code: 'INVALID_EVENT', message: expect.stringMatching(/must be a finite number, found Infinity/) });
    expect(JSON.parse((kept.data as unknown as ModelUnrecordedAnswerData).raw.text).toolCalls[0].arguments).toEqual({
      path: 'a',
      size: 'Infinity',
    });
  });

  it('is not confused with a store that fails: that error is thrown, not recorded as the answer', async () => {
    const memory = new MemoryLogStore();
    const { harness } = setup([{ text: 'Hi.' }], failingStore(memory, failOnType('assistant/message')));
    const session = await harness.createSession('s');
    await expect(session.send('Hi')).rejects.toBeInstanceOf(InjectedFailure);
    expect((await events(memory, 's')).map((event) => event.type)).not.toContain('model/unrecorded-answer');
  });
});
