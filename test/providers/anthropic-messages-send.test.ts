// Sending through the Anthropic Messages adapter to a fake server on loopback: the exact
// bytes, the headers, and the recorded responses in JSON and SSE form.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { sha256Hex } from '../../src/log/sha256.js';
import {
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { ModelRequest } from '../../src/providers/language-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { type FakeProviderServer, readFixtureChunks, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const model = (options: Partial<AnthropicMessagesModelOptions> = {}) =>
  createAnthropicMessagesModel({ model: 'claude-haiku-4-5', apiKey: 'sk-ant-secret', baseUrl: server.baseUrl, env: {}, ...options });

const ask = (text: string, stream: boolean): ModelRequest => ({
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
  params: { tools: [], stream },
});

async function send(stream: boolean, onTextDelta?: (text: string) => void) {
  const anthropic = model();
  return anthropic.send(anthropic.render(ask('Hello, how are you?', stream)), onTextDelta === undefined ? {} : { onTextDelta });
}

const SAN_FRANCISCO = { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] };
const FOUR_CITIES = {
  elements: [
    { location: 'San Francisco', temperature: -5, condition: 'snowy' },
    { location: 'London', temperature: 0, condition: 'snowy' },
    { location: 'Paris', temperature: 23, condition: 'cloudy' },
    { location: 'Berlin', temperature: -9, condition: 'snowy' },
  ],
};
const THINKING_TEXT =
  '<thinking>\nThe updateIssueList tool was provided in the list of available functions. The tool has no required parameters, so it can be called without any additional information needed from the user.\n</thinking>\n\nOkay, I will update the current issue list:';

describe('Anthropic Messages send', () => {
  it('posts exactly canonicalJson(body) with the headers Anthropic expects, and no key in the body', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-text') });
    const anthropic = model();
    const rendered = anthropic.render(ask('Héllo ☕ “quoted” 😀', false));
    await anthropic.send(rendered);
    const received = server.requests[0];
    expect(received?.body).toBe(canonicalJson(rendered.body));
    expect(sha256Hex(received?.body ?? '')).toBe(sha256Hex(canonicalJson(rendered.body)));
    expect(received?.body).not.toContain('sk-ant-secret');
    expect(received).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      headers: { 'x-api-key': 'sk-ant-secret', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    });
    expect(received?.headers.authorization).toBeUndefined();
  });

  it('reads the recorded text response (anthropic-text.json)', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-text') });
    expect(await send(false)).toEqual({
      content: [
        { type: 'text', text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" },
      ],
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 29, cacheReadTokens: 0, cacheWriteTokens: 0 },
      responseModel: 'claude-sonnet-4-5-20250929',
      responseId: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
      requestId: 'req_fake_1',
    });
  });

  for (const [label, chunking] of [
    ['whole', {}],
    ['split at odd byte counts', { chunkSizes: [1, 3, 7, 2, 31, 5], delayMs: 1 }],
  ] as const) {
    it(`reads the recorded text stream (${label}) with its text deltas`, async () => {
      server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-text'), ...chunking });
      const deltas: string[] = [];
      expect(await send(true, (text) => deltas.push(text))).toEqual({
        content: [
          {
            type: 'text',
            text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
          },
        ],
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
        responseModel: 'claude-sonnet-4-5-20250929',
        responseId: 'msg_01QC4g3HwBThD4BaNtBckFDJ',
        requestId: 'req_fake_1',
      });
      expect(deltas).toEqual([
        'Hello',
        '! I',
        "'m doing well, thank you for asking",
        '. How are you doing today?',
        ' Is',
        ' there anything I can help you with?',
      ]);
      expect(server.requests[0]?.body).toContain('"stream":true');
    });

    it(`reads the recorded tool-use stream (${label}) from its input_json_delta pieces`, async () => {
      server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-json-tool.1'), ...chunking });
      expect(await send(true)).toEqual({
        content: [],
        toolCalls: [{ callId: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', arguments: SAN_FRANCISCO }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 },
        responseModel: 'claude-haiku-4-5-20251001',
        responseId: 'msg_01K2JbSUMYhez5RHoK9ZCj9U',
        requestId: 'req_fake_1',
      });
    });

    it(`reads the recorded stream of a tool call with empty input (${label}) as arguments {}`, async () => {
      server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-tool-no-args'), ...chunking });
      const deltas: string[] = [];
      expect(await send(true, (text) => deltas.push(text))).toEqual({
        content: [{ type: 'text', text: "I'll update the issue list for you." }],
        toolCalls: [{ callId: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', arguments: {} }],
        finishReason: 'tool-calls',
        usage: { inputTokens: 565, outputTokens: 48, cacheReadTokens: 0, cacheWriteTokens: 0 },
        responseModel: 'claude-sonnet-4-5-20250929',
        responseId: 'msg_01GE2RKp1VYsPzdFs3sS9z5S',
        requestId: 'req_fake_1',
      });
      expect(deltas).toEqual(["I'll update the issue list for", ' you.']);
    });
  }

  it('reads the recorded tool-use response (anthropic-json-tool.1.json)', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-json-tool.1') });
    expect(await send(false)).toEqual({
      content: [],
      toolCalls: [{ callId: 'toolu_01Q9ExVZnzZj7E2QQYHYtNUa', name: 'json', arguments: FOUR_CITIES }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 1151, outputTokens: 87, cacheReadTokens: 0, cacheWriteTokens: 0 },
      responseModel: 'claude-haiku-4-5-20251001',
      responseId: 'msg_0191iYfpERYfS27xLsdW2nbb',
      requestId: 'req_fake_1',
    });
  });

  it('reads the recorded response with a tool call of empty input (anthropic-tool-no-args.json)', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('anthropic-tool-no-args') });
    expect(await send(false)).toEqual({
      content: [{ type: 'text', text: THINKING_TEXT }],
      toolCalls: [{ callId: 'toolu_01LRmxn9vGM1d2DZSDBowdZ1', name: 'updateIssueList', arguments: {} }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 602, outputTokens: 93, cacheReadTokens: 0, cacheWriteTokens: 0 },
      responseModel: 'claude-3-opus-20240229',
      responseId: 'msg_01GCBaV8gyWAYgMVggRqZbuQ',
      requestId: 'req_fake_1',
    });
  });

  it('keeps ids as sent and inputs the log could not hold as JSON as their text, in JSON and in a stream', async () => {
    const body = `{"model":"m","type":"message","stop_reason":"tool_use","content":[
      {"type":"tool_use","id":"toolu_0","name":"read","input":{"path": "a.ts", "size": 1e400}},
      {"type":"tool_use","id":"toolu_0","name":"read","input":"README.md"},
      {"type":"tool_use","id":"","name":"read"}]}`;
    server.enqueue({ type: 'raw', body, contentType: 'application/json' });
    const raw: unknown[] = [];
    const anthropic = model();
    const result = await anthropic.send(anthropic.render(ask('go', false)), { onRawAnswer: (answer) => raw.push(answer) });
    expect(result.toolCalls).toEqual([
      { callId: 'toolu_0', name: 'read', arguments: '{"path": "a.ts", "size": 1e400}', argumentsText: '{"path": "a.ts", "size": 1e400}' },
      { callId: 'toolu_0', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' },
      { callId: '', name: 'read', arguments: {} },
    ]);
    expect(raw).toEqual([{ format: 'json', text: body }]);

    const tool = (index: number, id: string, partial: string[]) => [
      JSON.stringify({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: 'read', input: {} } }),
      ...partial.map((piece) =>
        JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }),
      ),
    ];
    const payloads = [
      ...tool(0, 'toolu_1', ['{"path": ', '"a.ts"}']),
      ...tool(1, 'toolu_1', ['"READ', 'ME.md"']),
      ...tool(2, 'toolu_2', ['{"n": 1e4', '00}']),
      ...tool(3, 'toolu_3', ['{"path": "unterminated']),
      JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'tool_use' } }),
      JSON.stringify({ type: 'message_stop' }),
    ];
    server.enqueue({ type: 'sse', payloads });
    const streamed: Array<{ format: string; text: string }> = [];
    const fromStream = await anthropic.send(anthropic.render(ask('go', true)), { onRawAnswer: (answer) => streamed.push(answer) });
    expect(fromStream.toolCalls).toEqual([
      { callId: 'toolu_1', name: 'read', arguments: { path: 'a.ts' } },
      { callId: 'toolu_1', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' },
      { callId: 'toolu_2', name: 'read', arguments: '{"n": 1e400}', argumentsText: '{"n": 1e400}' },
      { callId: 'toolu_3', name: 'read', arguments: '{"path": "unterminated', argumentsText: '{"path": "unterminated' },
    ]);
    expect(streamed[0]?.format).toBe('sse');
    expect(streamed[0]?.text).toBe(payloads.map((payload) => `event: ${JSON.parse(payload).type}\ndata: ${payload}\n\n`).join(''));
  });

  it('counts prompt-cache writes and reads as input tokens, in JSON and in a stream', async () => {
    const usage = { input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000, output_tokens: 5 };
    server.enqueue({
      type: 'json',
      body: { model: 'm', type: 'message', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', usage },
    });
    expect((await send(false)).usage).toEqual({ inputTokens: 3210, outputTokens: 5, cacheReadTokens: 3000, cacheWriteTokens: 200 });
    server.enqueue({
      type: 'sse',
      payloads: [
        JSON.stringify({ type: 'message_start', message: { model: 'm', content: [], usage: { ...usage, output_tokens: 1 } } }),
        JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 42 } }),
        JSON.stringify({ type: 'message_stop' }),
      ],
    });
    expect((await send(true)).usage).toEqual({ inputTokens: 3210, outputTokens: 42, cacheReadTokens: 3000, cacheWriteTokens: 200 });
  });

  it('maps each stop reason', async () => {
    const reasons = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      tool_use: 'tool-calls',
      max_tokens: 'length',
      model_context_window_exceeded: 'length',
      refusal: 'content-filter',
      pause_turn: 'other',
    };
    for (const [wire, expected] of Object.entries(reasons)) {
      server.enqueue({ type: 'json', body: { model: 'm', type: 'message', content: [], stop_reason: wire } });
      expect({ wire, finishReason: (await send(false)).finishReason }).toEqual({ wire, finishReason: expected });
    }
  });

  it('turns an error event inside the stream into a ProviderError', async () => {
    const payloads = readFixtureChunks('anthropic-text').slice(0, 4);
    payloads.push(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    server.enqueue({ type: 'sse', payloads, end: 'stall' });
    const error = await send(true).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'server', provider: 'anthropic', retryable: true, status: undefined });
    expect((error as ProviderError).message).toBe(
      `Anthropic-compatible server at ${server.baseUrl}: the provider failed to answer (error event in the stream, overloaded_error): Overloaded; the provider may be overloaded; wait and retry`,
    );
  });

  it('refuses a stream that ends before message_stop', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('anthropic-text').slice(0, 5) });
    const error = await send(true).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ kind: 'malformed-response' });
    expect((error as Error).message).toMatch(/ended before message_stop/);
  });
});
