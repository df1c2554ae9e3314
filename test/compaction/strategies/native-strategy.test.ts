// The native strategy against the fake server on loopback, for both providers' compactions: the
// range goes to Anthropic's compact_20260112 (beta compact-2026-01-12) or the Responses API's
// compact endpoint as the model was sent it; what comes back is the replacing node, kept as the
// provider returned it; the next request sends it back as the provider requires; the log verifies,
// the compaction's call replays to its digest, and so does every turn's. Under auto a provider
// without a compaction (or a range below Anthropic's minimum) gets summary; under native, a typed
// refusal, and nothing is sent.

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../../src/cli/renderers.js';
import { createCompaction } from '../../../src/compaction/compaction-capability.js';
import { COMPACTION_EVENT_TYPES, COMPACTION_SUMMARY } from '../../../src/compaction/event-types.js';
import { replaySummary } from '../../../src/compaction/replay-summary.js';
import type { StrategyName } from '../../../src/compaction/strategies/strategy.js';
import { readableText } from '../../../src/log/content-block.js';
import type { AssistantMessageData, LogEvent } from '../../../src/log/event.js';
import { EventTypeRegistry } from '../../../src/log/event-types.js';
import { sha256Hex } from '../../../src/log/sha256.js';
import { verifyLog } from '../../../src/log/verify.js';
import { createAnthropicMessagesModel } from '../../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel } from '../../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../../src/providers/openai-chat/openai-chat-model.js';
import { createOpenAIResponsesModel } from '../../../src/providers/openai-responses/openai-responses-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { replay } from '../../../src/spine/replay.js';
import { defineTool } from '../../../src/spine/tool.js';
import { MemoryLogStore } from '../../../src/store/memory/memory-store.js';
import { ViewBuilder } from '../../../src/view/view-builder.js';
import { type FakeProviderServer, type FakeResponse, startFakeProviderServer } from '../../support/fake-provider-server.js';

let server: FakeProviderServer;
afterEach(async () => {
  await server.close();
});

const LIMITS = { contextWindow: 1_000_000, defaultMaxOutputTokens: 4_096 };
const CONFIG = { headroomTokens: 0, retainTokens: 40, auto: false, summarizer: { kind: 'extractive' as const } };
/** Notes far past Anthropic's smallest compaction trigger (50,000 input tokens). */
const NOTES = `The value is 42. ${'Notes on the build, line after line, nothing else of note. '.repeat(4_500)}`;

const readNotes = defineTool({
  name: 'read_notes',
  description: 'Reads the notes',
  input: z.object({}),
  execute: async () => NOTES,
});

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

interface Script {
  readonly model: (baseUrl: string) => LanguageModel;
  readonly toolCall: FakeResponse;
  readonly answer: (text: string) => FakeResponse;
}

const anthropic: Script = {
  model: (baseUrl) => createAnthropicMessagesModel({ model: 'claude-sonnet-4-6', baseUrl, ...LIMITS }),
  toolCall: {
    type: 'json',
    body: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_notes', input: {} }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 40, output_tokens: 10 },
    },
  },
  answer: (text) => ({
    type: 'json',
    body: {
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 60_000, output_tokens: 8 },
    },
  }),
};

const responses: Script = {
  model: (baseUrl) => createOpenAIResponsesModel({ model: 'gpt-5.4', baseUrl: `${baseUrl}/v1`, reasoningModel: false, ...LIMITS }),
  toolCall: {
    type: 'json',
    body: {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      model: 'gpt-5.4',
      output: [{ type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'read_notes', arguments: '{}', status: 'completed' }],
      usage: { input_tokens: 40, output_tokens: 10, total_tokens: 50 },
    },
  },
  answer: (text) => ({
    type: 'json',
    body: {
      id: 'resp_2',
      object: 'response',
      status: 'completed',
      model: 'gpt-5.4',
      output: [
        { type: 'message', id: 'msg_2', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
      ],
      usage: { input_tokens: 60_000, output_tokens: 8, total_tokens: 60_008 },
    },
  }),
};

const ANTHROPIC_SUMMARY = 'The user asked for the notes; read_notes returned build notes that say the value is 42.';
const anthropicCompaction: FakeResponse = {
  type: 'json',
  body: {
    id: 'msg_compact',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [{ type: 'compaction', content: ANTHROPIC_SUMMARY, encrypted_content: null }],
    stop_reason: 'compaction',
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      iterations: [
        {
          type: 'compaction',
          input_tokens: 61_200,
          output_tokens: 210,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_creation: null,
        },
      ],
    },
  },
};

const ENCRYPTED = 'gAAAAABpZ2NvbXBhY3Rpb24tb3BhcXVlLWJ5dGVz';
const responsesCompaction: FakeResponse = {
  type: 'json',
  body: {
    id: 'resp_compact_1',
    object: 'response.compaction',
    created_at: 1_764_590_000,
    output: [
      { id: 'msg_u1', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Read the notes.' }] },
      { id: 'cmp_1', type: 'compaction', encrypted_content: ENCRYPTED },
    ],
    usage: { input_tokens: 61_000, output_tokens: 900, total_tokens: 61_900 },
  },
};

async function sessionWith(script: Script, strategy: StrategyName, compactionResponse?: FakeResponse) {
  server = await startFakeProviderServer();
  const store = new MemoryLogStore();
  const model = script.model(server.baseUrl);
  const compaction = createCompaction({ config: { ...CONFIG, strategy } });
  const harness = createHarness({
    store,
    model,
    tools: [readNotes],
    systemPrompt: 'Use the tools.',
    capabilities: [compaction],
    stream: false,
  });
  const session = await harness.createSession('native');
  server.enqueue(script.toolCall, script.answer('The notes say the value is 42.'));
  expect((await session.send('Read the notes.')).reason).toBe('completed');
  if (compactionResponse !== undefined) server.enqueue(compactionResponse);
  const outcome = await compaction.compactNow(session);
  return { store, session, outcome, compaction };
}

async function verifiedAndReplayed(store: MemoryLogStore) {
  expect((await verifyLog(store.read('native'))).ok).toBe(true);
  const events = await eventsOf(store, 'native');
  for (const event of events.filter((candidate) => candidate.type === 'model/request')) {
    const { turn, step, requestDigest } = event.data as { turn: number; step: number; requestDigest: string };
    expect((await replay(store, 'native', { turn, step }, { resolveRenderer: rendererFor })).requestDigest).toBe(requestDigest);
  }
  return events;
}

describe('the native strategy, through the fake server', () => {
  it('Anthropic: the compaction block replaces the range, goes back first with the beta header, and replays', async () => {
    const { store, session, outcome } = await sessionWith(anthropic, 'native', anthropicCompaction);
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'native' });
    const compactRequest = server.requests[2];
    expect(compactRequest?.path).toBe('/v1/messages');
    expect(compactRequest?.headers['anthropic-beta']).toBe('compact-2026-01-12');
    const sent = JSON.parse(compactRequest?.body ?? '{}');
    expect(sent.context_management).toEqual({
      edits: [{ type: 'compact_20260112', trigger: { type: 'input_tokens', value: 50_000 }, pause_after_compaction: true }],
    });
    // The range as the model was sent it, with the session's tools, as its turns were sent.
    expect(sent.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_notes']);

    const events = await eventsOf(store, 'native');
    const summary = events.find((event) => event.type === COMPACTION_SUMMARY);
    expect(summary?.data).toMatchObject({
      summarizer: 'native',
      provider: 'anthropic',
      usage: { inputTokens: 61_200, outputTokens: 210 },
      requestDigest: sha256Hex(compactRequest?.body ?? ''),
    });
    const node = events.find((event) => event.seq === (summary?.seq ?? -1) + 1);
    expect(node?.type).toBe('assistant/message');
    const block = (node?.data as unknown as AssistantMessageData | undefined)?.content[0];
    expect(block).toEqual({ type: 'compaction', provider: 'anthropic', text: ANTHROPIC_SUMMARY });
    expect(readableText(block as never)).toContain('the value is 42');

    server.enqueue(anthropic.answer('It was 42.'));
    expect((await session.send('What was the value?')).reason).toBe('completed');
    const next = server.requests[3];
    expect(next?.headers['anthropic-beta']).toBe('compact-2026-01-12');
    const nextBody = JSON.parse(next?.body ?? '{}');
    // First, then the retained tail's answer in the same assistant turn (the API takes no two in a row).
    expect(nextBody.messages[0]).toEqual({
      role: 'assistant',
      content: [
        { type: 'compaction', content: ANTHROPIC_SUMMARY },
        { type: 'text', text: 'The notes say the value is 42.' },
      ],
    });
    expect(server.violations).toEqual([]);

    await verifiedAndReplayed(store);
    const replayed = await replaySummary(store, 'native', String(summary?.data.compactionId), rendererFor);
    expect(replayed.verified).toBe(true);
    expect(replayed.request).toEqual(sent);
    // The audit page, which walks the session once, checks the same call with the tools it sent.
    const view = new ViewBuilder({
      sessionId: 'native',
      resolveRenderer: rendererFor,
      registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES),
    });
    for (const event of await eventsOf(store, 'native')) view.apply(event);
    expect(view.take().compactions[0]?.summary).toMatchObject({
      summarizer: 'native',
      check: { status: 'verified', digest: sha256Hex(compactRequest?.body ?? '') },
    });
    await session.close();
  });

  it('OpenAI Responses: the compacted window replaces the range and goes back as input, first', async () => {
    const { store, session, outcome } = await sessionWith(responses, 'native', responsesCompaction);
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'native' });
    const compactRequest = server.requests[2];
    expect(compactRequest?.path).toBe('/v1/responses/compact');
    const sent = JSON.parse(compactRequest?.body ?? '{}');
    expect(Object.keys(sent).sort()).toEqual(['input', 'model']);
    expect(sent.input.map((item: { type: string }) => item.type)).toEqual(['message', 'function_call', 'function_call_output']);

    const events = await eventsOf(store, 'native');
    const summary = events.find((event) => event.type === COMPACTION_SUMMARY);
    expect(summary?.data).toMatchObject({
      summarizer: 'native',
      provider: 'openai-responses',
      usage: { inputTokens: 61_000, outputTokens: 900 },
    });
    const node = events.find((event) => event.seq === (summary?.seq ?? -1) + 1);
    const block = (node?.data as unknown as AssistantMessageData | undefined)?.content[0];
    expect(block).toMatchObject({ type: 'compaction', provider: 'openai-responses', id: 'cmp_1', data: ENCRYPTED });
    expect(readableText(block as never)).toMatch(
      /compaction by openai-responses cmp_1, 40 chars of opaque data; it keeps 1 user message: Read the notes\./,
    );

    server.enqueue(responses.answer('It was 42.'));
    expect((await session.send('What was the value?')).reason).toBe('completed');
    const nextBody = JSON.parse(server.requests[3]?.body ?? '{}');
    expect(nextBody.input.slice(1, 3)).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read the notes.' }] },
      { type: 'compaction', encrypted_content: ENCRYPTED, id: 'cmp_1' },
    ]);
    expect(server.violations).toEqual([]);

    await verifiedAndReplayed(store);
    const replayed = await replaySummary(store, 'native', String(summary?.data.compactionId), rendererFor);
    expect(replayed.request).toEqual(sent);
    await session.close();
  });

  it('auto falls back to summary for a provider without a compaction; native refuses it with a typed error before any call', async () => {
    const chat: Script = { ...anthropic, model: (baseUrl) => createOpenAIChatModel({ model: 'gpt-4.1', baseUrl, ...LIMITS }) };
    server = await startFakeProviderServer();
    const model = chat.model(server.baseUrl);
    const refused = createCompaction({ config: { ...CONFIG, strategy: 'native' } });
    expect(() => createHarness({ store: new MemoryLogStore(), model, capabilities: [refused] })).toThrow(
      expect.objectContaining({ code: 'NATIVE_COMPACTION_UNAVAILABLE' }),
    );
    const auto = createCompaction({ config: { ...CONFIG, strategy: 'auto' } });
    createHarness({ store: new MemoryLogStore(), model, capabilities: [auto] });
    expect(auto.strategy.name).toBe('summary');
    expect(server.requests).toEqual([]);
  });

  it("below Anthropic's smallest trigger: auto summarizes, native fails naming the minimum and sends nothing", async () => {
    const small = { ...anthropic, model: anthropic.model };
    const tiny = defineTool({
      name: 'read_notes',
      description: 'Reads the notes',
      input: z.object({}),
      execute: async () => 'The value is 42.',
    });
    for (const strategy of ['auto', 'native'] as const) {
      server = await startFakeProviderServer();
      const store = new MemoryLogStore();
      const compaction = createCompaction({ config: { ...CONFIG, strategy } });
      const harness = createHarness({
        store,
        model: small.model(server.baseUrl),
        tools: [tiny],
        capabilities: [compaction],
        stream: false,
      });
      const session = await harness.createSession('native');
      server.enqueue(small.toolCall, small.answer(`The notes say the value is 42. ${'More. '.repeat(40)}`));
      await session.send('Read the notes.');
      const outcome = await compaction.compactNow(session);
      expect(server.requests).toHaveLength(2);
      if (strategy === 'auto') expect(outcome).toMatchObject({ status: 'compacted', strategy: 'summary' });
      else expect(outcome).toMatchObject({ status: 'failed', reason: 'summary', message: expect.stringMatching(/50000 input tokens/) });
      expect((await verifyLog(store.read('native'))).ok).toBe(true);
      await session.close();
      await server.close();
    }
    server = await startFakeProviderServer();
  });

  it("a compaction that did not compact fails the transaction and replaces nothing: Anthropic's answer below its trigger, an empty summary", async () => {
    const below = anthropic.answer('Here are the notes.');
    const failed: FakeResponse = {
      type: 'json',
      body: {
        ...(anthropicCompaction as { body: object }).body,
        content: [{ type: 'compaction', content: null, encrypted_content: null }],
      },
    };
    for (const [response, wording] of [
      [below, /answered \(stop_reason end_turn\) without compacting/],
      [failed, /without a summary/],
    ] as const) {
      const { store, outcome } = await sessionWith(anthropic, 'native', response);
      expect(outcome).toMatchObject({ status: 'failed', reason: 'summary', message: expect.stringMatching(wording) });
      const events = await eventsOf(store, 'native');
      expect(events.some((event) => event.type === COMPACTION_SUMMARY)).toBe(false);
      expect(events.filter((event) => event.surfaceOp !== undefined && event.surfaceOp !== 'append')).toEqual([]);
      await server.close();
    }
    server = await startFakeProviderServer();
  });
});
