// Anthropic Messages renderer version 2: prompt-cache breakpoints on the stable prefix by the
// rule of cache-breakpoints.ts, the system prompt as blocks, thinking sent back with its
// signature, the new parameters, what is refused before anything is sent, and a thinking tool
// loop through the fake server (which refuses a tool-using turn sent back without its thinking).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import type { JsonObject, LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import {
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { ModelMessage, ModelParams, ModelRequest } from '../../src/providers/language-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, readFixtureChunks, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

const model = (options: Partial<AnthropicMessagesModelOptions> = {}) =>
  createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', env: {}, ...options });
const text = (value: string) => ({ type: 'text', text: value }) as const;
const LOOKUP = { name: 'lookup', description: 'Looks things up', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
const NOW = { name: 'now', description: 'The time', parameters: { type: 'object', properties: {} } };
const request = (messages: ModelMessage[], params: Partial<ModelParams> = {}): ModelRequest => ({
  messages,
  params: { tools: [LOOKUP, NOW], maxOutputTokens: 1_000, stream: true, ...params },
});
const SIGNED = { type: 'reasoning', provider: 'anthropic', text: 'I should look it up.', signature: 'EqQBCkYIBxgCKkD' } as const;

/** Where cache_control stands: tool names, system block indexes, and message.block positions. */
function breakpoints(body: JsonObject): string[] {
  const marked = (block: unknown) => (block as { cache_control?: unknown }).cache_control !== undefined;
  const tools = ((body.tools ?? []) as JsonObject[]).filter(marked).map((tool) => `tool ${String(tool.name)}`);
  const system = Array.isArray(body.system) ? body.system.flatMap((block, index) => (marked(block) ? [`system ${index}`] : [])) : [];
  const messages = (body.messages as Array<{ content: unknown[] }>).flatMap((message, index) =>
    message.content.flatMap((block, position) => (marked(block) ? [`message ${index}.${position}`] : [])),
  );
  return [...tools, ...system, ...messages];
}

const SYSTEM: ModelMessage = { role: 'system', content: [text('You are terse.'), text('Use the tools.')] };
const ASK: ModelMessage = { role: 'user', content: [text('What is the time?')] };
const CALL: ModelMessage = {
  role: 'assistant',
  content: [SIGNED, text('Checking.')],
  toolCalls: [{ callId: 'toolu_1', name: 'now', arguments: {} }],
};
const RESULT: ModelMessage = { role: 'tool', callId: 'toolu_1', content: [text('12:00')], isError: false };
const ANSWER: ModelMessage = { role: 'assistant', content: [text('It is noon.')], toolCalls: [] };
const AGAIN: ModelMessage = { role: 'user', content: [text('And tomorrow?')] };

describe('Anthropic Messages version 2: cache breakpoints', () => {
  it('marks the tools, the system prompt and the new turn on the first call', () => {
    const body = model().render(request([SYSTEM, ASK])).body;
    expect(body.system).toEqual([text('You are terse.'), { ...text('Use the tools.'), cache_control: { type: 'ephemeral' } }]);
    expect(breakpoints(body)).toEqual(['tool now', 'system 1', 'message 0.0']);
  });

  it("in a tool loop, marks the end of what the previous call sent and the end of this one's", () => {
    const body = model().render(request([SYSTEM, ASK, CALL, RESULT])).body;
    // messages: 0 the question, 1 the thinking, text and call, 2 the result.
    expect(breakpoints(body)).toEqual(['tool now', 'system 1', 'message 0.0', 'message 2.0']);
    const next = model().render(request([SYSTEM, ASK, CALL, RESULT, ANSWER, AGAIN])).body;
    expect(breakpoints(next)).toEqual(['tool now', 'system 1', 'message 2.0', 'message 4.0']);
  });

  it('never marks a thinking block, never more than four blocks, and none with promptCache off', () => {
    const prefill: ModelMessage = { role: 'assistant', content: [text('Sure:'), SIGNED], toolCalls: [] };
    const body = model().render(request([SYSTEM, ASK, prefill])).body;
    // The final turn is an assistant's: its text is marked, not the thinking after it.
    expect(breakpoints(body)).toEqual(['tool now', 'system 1', 'message 0.0', 'message 1.0']);
    for (const messages of [
      [SYSTEM, ASK],
      [SYSTEM, ASK, CALL, RESULT],
      [SYSTEM, ASK, CALL, RESULT, ANSWER, AGAIN],
    ]) {
      expect(breakpoints(model().render(request(messages)).body).length).toBeLessThanOrEqual(4);
    }
    const off = model({ promptCache: false });
    expect(breakpoints(off.render(request([SYSTEM, ASK, CALL, RESULT])).body)).toEqual([]);
    expect(off.rendererVersion).toBe('anthropic-messages/2;default_max_tokens=64000;no-cache');
  });

  it('renders a recorded version 1 request as version 1 did: no markers, the system prompt as one string, no thinking', () => {
    const body = model().render(request([SYSTEM, ASK, CALL, RESULT]), 'anthropic-messages/1;default_max_tokens=64000').body;
    expect(breakpoints(body)).toEqual([]);
    expect(body.system).toBe('You are terse.\n\nUse the tools.');
    expect((body.messages as Array<{ content: Array<{ type: string }> }>)[1]?.content.map((block) => block.type)).toEqual([
      'text',
      'tool_use',
    ]);
  });
});

describe('Anthropic Messages version 2: thinking, parameters, refusals', () => {
  it("sends Anthropic's thinking back with its signature, redacted thinking as its data, and no other provider's reasoning", () => {
    const redacted = { type: 'reasoning', provider: 'anthropic', data: 'EmwKAhgBEgy3va3pzix' } as const;
    const foreign = { type: 'reasoning', provider: 'deepseek', text: 'Let me think.' } as const;
    const call: ModelMessage = { ...CALL, content: [SIGNED, redacted, foreign, text('Checking.')] } as ModelMessage;
    const body = model({ promptCache: false }).render(request([ASK, call, RESULT])).body;
    expect((body.messages as JsonObject[])[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should look it up.', signature: 'EqQBCkYIBxgCKkD' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'now', input: {} },
      ],
    });
  });

  it('renders the thinking budget, the effort, the tool choice and parallel calls turned off', () => {
    const params = {
      reasoning: { budgetTokens: 2_048, effort: 'high' as const },
      toolChoice: 'required' as const,
      parallelToolCalls: false,
    };
    expect(model().render(request([ASK], params)).body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2_048 },
      output_config: { effort: 'high' },
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
    const choice = (toolChoice: ModelParams['toolChoice']) =>
      model().render(request([ASK], toolChoice === undefined ? {} : { toolChoice })).body.tool_choice;
    expect([choice('auto'), choice('none'), choice({ tool: 'now' }), choice(undefined)]).toEqual([
      { type: 'auto' },
      { type: 'none' },
      { type: 'tool', name: 'now' },
      undefined,
    ]);
  });

  it('refuses a request with a system prompt and no message before it is sent; renders the fixed part of an empty one', () => {
    expect(() => model().render(request([SYSTEM]))).toThrow(ProviderError);
    expect(() => model().render(request([SYSTEM, { role: 'user', content: [text('')] }]))).toThrow(/at least one user message/);
    expect(model().render(request([])).body.messages).toEqual([]);
  });

  describe('parameters refused when the harness is built', () => {
    const refused = (options: Partial<AnthropicMessagesModelOptions>, harness: Partial<HarnessOptions>) => {
      const store = new MemoryLogStore();
      return () => createHarness({ store, model: model(options), ...harness });
    };
    it('a temperature for Claude from Opus 4.7 on', () => {
      expect(refused({ model: 'claude-opus-4-7' }, { temperature: 0.3 })).toThrow(/"claude-opus-4-7" takes no temperature/);
      expect(refused({ model: 'claude-opus-4-6' }, { temperature: 0.3 })).not.toThrow();
    });
    it('a thinking budget out of range, and what thinking does not allow with it', () => {
      expect(refused({}, { reasoning: { budgetTokens: 512 } })).toThrow(/at least 1024 tokens and below max_tokens \(16384\), found 512/);
      expect(refused({}, { reasoning: { budgetTokens: 16_384 } })).toThrow(/below max_tokens/);
      expect(refused({}, { reasoning: { budgetTokens: 4_096 }, temperature: 0.5 })).toThrow(/takes no temperature but 1/);
      expect(refused({}, { reasoning: { budgetTokens: 4_096 }, toolChoice: 'required' })).toThrow(/toolChoice may be auto or none/);
      expect(refused({}, { reasoning: { effort: 'minimal' } })).toThrow(/low, medium, high, xhigh, max, found minimal/);
      expect(refused({}, { reasoning: { budgetTokens: 4_096 } })).not.toThrow();
    });
    it('a request that does not stream and reserves more than the official SDK sends unstreamed', () => {
      expect(refused({}, { stream: false, maxOutputTokens: 32_000 })).toThrow(
        /at most 21333 output tokens .* found 32000; stream, or lower maxOutputTokens/,
      );
      expect(refused({}, { stream: false, maxOutputTokens: 21_333 })).not.toThrow();
      expect(refused({}, { stream: true, maxOutputTokens: 32_000 })).not.toThrow();
    });
  });
});

describe('Anthropic thinking over the wire', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });
  const wired = () => model({ baseUrl: server.baseUrl, model: 'claude-sonnet-4-6' });

  it('reads a recorded thinking stream: the thinking with its signature, the text, the thinking tokens', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-thinking'), chunkSizes: [5, 17, 301], delayMs: 1 });
    const adapter = wired();
    const result = await adapter.send(adapter.render(request([ASK])));
    const [thinking, answer] = result.content;
    expect(thinking).toEqual({
      type: 'reasoning',
      provider: 'anthropic',
      text: "I'm working through the Euclidean algorithm to find the GCD of 1071 and 462, applying successive division until I reach a remainder of zero, which gives me 21 as the greatest common divisor.",
      signature: expect.stringMatching(/^EsECCokBCBAYAipA9i3HF1aHpQITkdN8.*L4oPGAE=$/),
    });
    expect(answer).toMatchObject({ type: 'text', text: expect.stringMatching(/^# Finding GCD\(1071, 462\)/) });
    expect(result.usage).toEqual({ inputTokens: 47, outputTokens: 373, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 62 });
  });

  it('reads a recorded refusal stream as a content-filter finish with no content', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-refusal') });
    const adapter = wired();
    expect(await adapter.send(adapter.render(request([ASK])))).toMatchObject({
      content: [],
      toolCalls: [],
      finishReason: 'content-filter',
    });
  });

  it('completes a thinking tool loop: the signed thinking goes back with the call, every call replays to its digest', async () => {
    const check = defineTool({ name: 'checkSandboxErrors', description: 'Checks', input: z.object({}), execute: () => 'no errors' });
    const store = new MemoryLogStore();
    server.enqueue(
      { type: 'json', body: readFixtureJson('anthropic-thinking-tool') },
      { type: 'json', body: readFixtureJson('anthropic-text') },
    );
    const harness = createHarness({
      store,
      model: wired(),
      tools: [check],
      systemPrompt: 'Check the sandbox.',
      stream: false,
      maxOutputTokens: 8_192,
      reasoning: { budgetTokens: 2_048 },
    });
    const session = await harness.createSession('thinking');
    expect(await session.send('Check the sandbox now.')).toMatchObject({ reason: 'completed', steps: 2 });
    expect(server.violations).toEqual([]);
    const second = JSON.parse(server.requests[1]?.body ?? '{}') as {
      thinking: unknown;
      messages: Array<{ role: string; content: JsonObject[] }>;
    };
    expect(second.thinking).toEqual({ type: 'enabled', budget_tokens: 2_048 });
    const fixture = readFixtureJson('anthropic-thinking-tool') as { content: [{ signature: string }] };
    expect(second.messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'The user wants me to call checkSandboxErrors immediately.',
      signature: fixture.content[0].signature,
    });

    const events: LogEvent[] = [];
    for await (const page of store.read('thinking')) events.push(...page);
    const assistant = events.find((event) => event.type === 'assistant/message');
    expect(assistant?.data).toMatchObject({
      content: [{ type: 'reasoning', provider: 'anthropic', signature: fixture.content[0].signature }],
      usage: { inputTokens: 599, outputTokens: 59, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 18 },
      responseId: 'msg_011CfWBu94HWxZXjXK6ZhEXM',
    });
    const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
    for (const [index, recorded] of requests.entries()) {
      expect(sha256Hex(server.requests[index]?.body ?? '')).toBe(recorded.requestDigest);
      const replayed = await replay(store, 'thinking', { turn: recorded.turn, step: recorded.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(recorded.requestDigest);
    }

    // What was sent before version 2, the same surface without the thinking, is refused there.
    const adapter = wired();
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-text') });
    const lastRequest = requests.at(-1) as ModelRequestData;
    const replayed = await replay(store, 'thinking', { turn: lastRequest.turn, step: lastRequest.step }, { resolveRenderer: rendererFor });
    const v1 = adapter.render(
      { messages: replayed.messages, params: lastRequest.params as unknown as ModelParams },
      'anthropic-messages/1;default_max_tokens=64000',
    );
    const refusal = await adapter.send(v1).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toMatchObject({ kind: 'invalid-request', status: 400 });
    expect((refusal as ProviderError).message).toMatch(/Expected `thinking` or `redacted_thinking`, but found `tool_use`/);
  });
});
