// A huge or malformed tool output never crashes the agent: it becomes an error result that
// says what happened (its size and the limit), and the turn goes on. A request too long to write
// at all ends the turn with a typed context-overflow error instead of a RangeError.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { defineTool, type ToolOutput } from '../../src/spine/tool.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS_LIMIT } from '../../src/spine/tool-results.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

async function events(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

function agentWith(output: () => unknown, options: Partial<HarnessOptions> = {}) {
  const dump = defineTool({ name: 'dump', description: 'Prints a file', input: z.object({}), execute: () => output() as ToolOutput });
  const store = new MemoryLogStore();
  const model = new ScriptedModel({
    replies: [{ toolCalls: [{ name: 'dump', arguments: {} }], usage: { inputTokens: 1, outputTokens: 1 } }, { text: 'I see.' }],
  });
  return { store, harness: createHarness({ store, model, tools: [dump], ...options }) };
}

async function resultOf(store: MemoryLogStore): Promise<LogEvent['data']> {
  return ((await events(store, 's')).find((event) => event.type === 'tool/result') as LogEvent).data;
}

describe('a tool output over the limit', () => {
  it('a 100 M-character output becomes an error result naming its size and the limit, and the turn goes on', async () => {
    // Binary-like text, every character escaped in JSON (\u0000): six times as long written out.
    const { store, harness } = agentWith(() => '\u0000'.repeat(100_000_000));
    const session = await harness.createSession('s');
    expect(await session.send('Print the core dump')).toMatchObject({ reason: 'completed', steps: 2, text: 'I see.' });
    const data = await resultOf(store);
    expect(data.error).toEqual({
      message:
        'dump returned 100,000,000 characters, more than the 33,554,432 a tool result may hold (maxToolResultChars), so its output was not recorded; ask for less at a time (a range of lines, a filter, a summary)',
    });
    expect((await verifyLog(store.read('s'))).ok).toBe(true);
  }, 60_000);

  it('counts text and image data against a limit that can be set', async () => {
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'AAAA' };
    const fits = agentWith(() => [{ type: 'text', text: 'x'.repeat(96) }, image], { maxToolResultChars: 100 });
    await (await fits.harness.createSession('s')).send('Go');
    expect((await resultOf(fits.store)).error).toBeUndefined();
    const over = agentWith(() => [{ type: 'text', text: 'x'.repeat(97) }, image], { maxToolResultChars: 100 });
    await (await over.harness.createSession('s')).send('Go');
    expect((await resultOf(over.store)).error).toEqual({
      message: expect.stringMatching(/^dump returned 101 characters, more than the 100 /),
    });
  });

  it('is a positive integer no larger than a string can hold written as JSON', () => {
    const model = new ScriptedModel({ replies: [] });
    const store = new MemoryLogStore();
    expect(DEFAULT_MAX_TOOL_RESULT_CHARS).toBe(33_554_432);
    expect(createHarness({ store, model, maxToolResultChars: MAX_TOOL_RESULT_CHARS_LIMIT }).maxToolResultChars).toBe(83_886_080);
    for (const bad of [0, -1, 1.5, Number.NaN, MAX_TOOL_RESULT_CHARS_LIMIT + 1]) {
      expect(() => createHarness({ store, model, maxToolResultChars: bad })).toThrow(ConfigError);
    }
    expect(() => createHarness({ store, model, maxToolResultChars: 0 })).toThrow(
      'maxToolResultChars must be a positive integer of at most 83886080',
    );
  });
});

describe('a tool output the log cannot hold', () => {
  it('content blocks of the wrong shape become an error result that says why', async () => {
    const { store, harness } = agentWith(() => [{ type: 'video', url: 'x' }]);
    expect((await (await harness.createSession('s')).send('Go')).reason).toBe('completed');
    expect((await resultOf(store)).error).toEqual({
      message: expect.stringMatching(
        /^the output of dump could not be recorded: event \d+: data\.content\[0\]\.type must be one of text, image, reasoning/,
      ),
    });
  });

  it('an output that is neither text nor content blocks becomes an error result', async () => {
    const { store, harness } = agentWith(() => 42);
    expect((await (await harness.createSession('s')).send('Go')).reason).toBe('completed');
    expect((await resultOf(store)).error).toEqual({ message: 'dump returned number, not text or an array of content blocks' });
  });
});

describe('a request too long to write', () => {
  it('ends the turn with a typed context overflow, recorded as model/error, instead of a RangeError', async () => {
    const scripted = new ScriptedModel({ replies: [{ text: 'never' }] });
    // A renderer whose body, written as JSON, is longer than a string can be (90 M characters, each escaped to six).
    const padding = '\u0001'.repeat(90_000_000);
    const model: LanguageModel = Object.assign(Object.create(scripted) as ScriptedModel, {
      render: (request: Parameters<LanguageModel['render']>[0]) => ({ body: { ...scripted.render(request).body, padding } }),
    });
    const store = new MemoryLogStore();
    const session = await createHarness({ store, model }).createSession('s');
    const result = await session.send('Hi');
    expect(result.reason).toBe('error');
    expect(result.error).toBeInstanceOf(ProviderError);
    expect(result.error).toMatchObject({ kind: 'context-overflow', contextOverflow: true });
    expect(result.error?.message).toMatch(/^the request of turn 1 step 1 was not sent: its JSON is longer than a JavaScript string can be/);
    const log = await events(store, 's');
    expect(log.map((event) => event.type).slice(-2)).toEqual(['model/error', 'turn/end']);
    expect(scripted.calls).toHaveLength(0);
    expect((await verifyLog(store.read('s'))).ok).toBe(true);
  }, 60_000);
});
