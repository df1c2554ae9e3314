// Sending through the OpenAI chat adapter to a fake server on loopback: the exact bytes, the
// headers, the recorded responses in JSON and SSE form, and the ways a stream goes wrong.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { sha256Hex } from '../../src/log/sha256.js';
import type { ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel, type OpenAIChatModelOptions } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { type FakeProviderServer, readFixtureChunks, readFixtureJson, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const model = (options: Partial<OpenAIChatModelOptions> = {}) =>
  createOpenAIChatModel({ model: 'gpt-4.1-nano', apiKey: 'sk-test-secret', baseUrl: `${server.baseUrl}/v1`, env: {}, ...options });

const ask = (text: string, stream: boolean): ModelRequest => ({
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
    { role: 'user', content: [{ type: 'text', text }] },
  ],
  params: { tools: [], stream },
});

async function caught(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

const chunk = (delta: object, finishReason: string | null = null) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    model: 'gpt-4.1-nano-2025-04-14',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });

describe('OpenAI chat send', () => {
  it('posts exactly canonicalJson(body), whose digest is the one the spine records', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('openai-text') });
    const openai = model();
    const rendered = openai.render(ask('Invent a holiday ☕ — “quoted” 😀', false));
    await openai.send(rendered);
    const received = server.requests[0];
    expect(received?.body).toBe(canonicalJson(rendered.body));
    expect(sha256Hex(received?.body ?? '')).toBe(sha256Hex(canonicalJson(rendered.body)));
    expect(received?.body).not.toContain('sk-test-secret');
  });

  it('sends the method, path and headers OpenAI expects', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('openai-text') });
    const openai = model();
    await openai.send(openai.render(ask('hi', false)));
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-test-secret', 'content-type': 'application/json' },
    });
  });

  it('reads the recorded JSON response', async () => {
    const fixture = readFixtureJson('openai-text') as { choices: [{ message: { content: string } }] };
    server.enqueue({ type: 'json', body: fixture });
    const openai = model();
    const result = await openai.send(openai.render(ask('Invent a holiday', false)));
    expect(result.content).toEqual([{ type: 'text', text: fixture.choices[0].message.content }]);
    expect(result.content[0]).toMatchObject({
      text: expect.stringMatching(/^\*\*Holiday Name:\*\* Galaxy Day {2}\n\n\*\*Date:\*\* October 31st/),
    });
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toEqual({ inputTokens: 16, outputTokens: 363, cacheReadTokens: 0, reasoningTokens: 0 });
    expect(result.responseModel).toBe('gpt-4.1-nano-2025-04-14');
  });

  const expectedStreamText = readFixtureChunks('openai-text')
    .map((line) => (JSON.parse(line) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '')
    .join('');

  for (const [label, chunking] of [
    ['whole', {}],
    ['split at odd byte counts', { chunkSizes: [997, 13, 1, 4093, 7], delayMs: 1 }],
  ] as const) {
    it(`reads the recorded stream (${label}) and reports each text delta`, async () => {
      server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-text'), ...chunking });
      const openai = model();
      const deltas: string[] = [];
      const result = await openai.send(openai.render(ask('Invent a holiday', true)), { onTextDelta: (text) => deltas.push(text) });
      expect(expectedStreamText).toMatch(
        /^\*\*Holiday Name:\*\* Harmony Day\n\n\*\*Date:\*\* Celebrated annually on the first Saturday of May/,
      );
      expect(expectedStreamText).toMatch(/we are all connected through shared human experiences and mutual respect\.$/);
      expect(result.content).toEqual([{ type: 'text', text: expectedStreamText }]);
      expect(deltas.join('')).toBe(expectedStreamText);
      expect(deltas.length).toBeGreaterThan(250);
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toEqual({ inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 });
      expect(result.responseModel).toBe('gpt-4.1-nano-2025-04-14');
      expect(JSON.parse(server.requests[0]?.body ?? '')).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });
  }

  const TOOL_STREAM = [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } }],
    }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"loc' } }] }),
    chunk({ tool_calls: [{ index: 1, id: 'call_def', type: 'function', function: { name: 'broken', arguments: '{"path": "/tm' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: 'ation":"Paris"}' } }] }),
    chunk({}, 'tool_calls'),
    JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 80, completion_tokens: 40, total_tokens: 120 } }),
  ];

  it('accumulates streamed tool calls by index, split at every few bytes, keeping arguments that are not JSON as text', async () => {
    server.enqueue({ type: 'sse', payloads: TOOL_STREAM, chunkSizes: [1, 2, 3, 5, 7, 11], delayMs: 1 });
    const openai = model();
    const result = await openai.send(openai.render(ask('weather?', true)));
    expect(result).toEqual({
      content: [],
      toolCalls: [
        { callId: 'call_abc', name: 'get_weather', arguments: { location: 'Paris' } },
        // Text that is not JSON is kept as text, in both fields: it goes back to the server verbatim.
        { callId: 'call_def', name: 'broken', arguments: '{"path": "/tm', argumentsText: '{"path": "/tm' },
      ],
      finishReason: 'tool-calls',
      usage: { inputTokens: 80, outputTokens: 40 },
      responseModel: 'gpt-4.1-nano-2025-04-14',
      responseId: 'chatcmpl-1',
      requestId: 'req_fake_1',
    });
  });

  it('reads a recorded tool-call stream: the text before the call, the call, cached and reasoning tokens', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-tool-call'), chunkSizes: [13, 2, 257] });
    const openai = model();
    expect(await openai.send(openai.render(ask('weather?', true)))).toEqual({
      content: [{ type: 'text', text: 'PRE_TOOL' }],
      toolCalls: [{ callId: 'call_NZa7xqfefoaMI2YYHowVXVlU', name: 'weather', arguments: {} }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 58, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 0 },
      responseModel: 'gpt-4o-2024-08-06',
      responseId: 'chatcmpl-E6yvi7cuDcHZEHTMxcLDyf3CMKIO2',
      requestId: 'req_fake_1',
    });
  });

  it('reads tool calls from a JSON response, empty arguments as {} and bad JSON as the raw text', async () => {
    server.enqueue({
      type: 'json',
      body: {
        model: 'deepseek-chat',
        choices: [
          {
            index: 0,
            finish_reason: 'tool_calls',
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'c1', type: 'function', function: { name: 'now', arguments: '' } },
                { id: 'c2', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
                { id: 'c3', type: 'function', function: { name: 'read', arguments: '{path: a.txt}' } },
              ],
            },
          },
        ],
      },
    });
    const openai = model();
    const result = await openai.send(openai.render(ask('go', false)));
    expect(result).toEqual({
      content: [],
      toolCalls: [
        // Empty text means no arguments, and is kept, so that it goes back as it came.
        { callId: 'c1', name: 'now', arguments: {}, argumentsText: '' },
        { callId: 'c2', name: 'read', arguments: { path: 'a.txt' } },
        { callId: 'c3', name: 'read', arguments: '{path: a.txt}', argumentsText: '{path: a.txt}' },
      ],
      finishReason: 'tool-calls',
      responseModel: 'deepseek-chat',
      requestId: 'req_fake_1',
    });
  });

  it('keeps ids as sent and arguments in every form a server writes them, and reports the answer as it arrived', async () => {
    const body = `{"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
      {"id":"call_0","type":"function","function":{"name":"read","arguments":"\\"README.md\\""}},
      {"id":"call_0","type":"function","function":{"name":"read","arguments":"{\\"n\\":1e400}"}},
      {"id":"","type":"function","function":{"name":"read","arguments":{"path": "a.ts", "n": 1e400}}},
      {"id":"x","type":"function","function":{"name":"read","arguments":{"path":"b.ts"}}}]}}]}`;
    server.enqueue({ type: 'raw', body, contentType: 'application/json' });
    const openai = model();
    const raw: unknown[] = [];
    const result = await openai.send(openai.render(ask('go', false)), { onRawAnswer: (answer) => raw.push(answer) });
    expect(result.toolCalls).toEqual([
      { callId: 'call_0', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' },
      { callId: 'call_0', name: 'read', arguments: '{"n":1e400}', argumentsText: '{"n":1e400}' },
      // Sent as an object (not the protocol's string), with a number JSON.parse cannot keep: its source text.
      { callId: '', name: 'read', arguments: '{"path": "a.ts", "n": 1e400}', argumentsText: '{"path": "a.ts", "n": 1e400}' },
      { callId: 'x', name: 'read', arguments: { path: 'b.ts' } },
    ]);
    expect(raw).toEqual([{ format: 'json', text: body }]);

    server.enqueue({
      type: 'sse',
      payloads: [
        chunk({ tool_calls: [{ index: 0, id: '', type: 'function', function: { name: 'read', arguments: '"READ' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ME.md"' } }] }),
        chunk({}, 'tool_calls'),
      ],
    });
    const streamed: unknown[] = [];
    const fromStream = await openai.send(openai.render(ask('go', true)), { onRawAnswer: (answer) => streamed.push(answer) });
    expect(fromStream.toolCalls).toEqual([{ callId: '', name: 'read', arguments: 'README.md', argumentsText: '"README.md"' }]);
    expect(streamed).toEqual([
      {
        format: 'sse',
        text: `data: ${chunk({ tool_calls: [{ index: 0, id: '', type: 'function', function: { name: 'read', arguments: '"READ' } }] })}\n\ndata: ${chunk({ tool_calls: [{ index: 0, function: { arguments: 'ME.md"' } }] })}\n\ndata: ${chunk({}, 'tool_calls')}\n\ndata: [DONE]\n\n`,
      },
    ]);
  });

  it('maps each finish reason', async () => {
    const reasons = {
      stop: 'stop',
      length: 'length',
      tool_calls: 'tool-calls',
      content_filter: 'content-filter',
      function_call: 'tool-calls',
      eos: 'other',
    };
    for (const [wire, expected] of Object.entries(reasons)) {
      server.enqueue({
        type: 'json',
        body: { model: 'm', choices: [{ index: 0, finish_reason: wire, message: { role: 'assistant', content: 'x' } }] },
      });
      const openai = model();
      const result = await openai.send(openai.render(ask('go', false)));
      expect({ wire, finishReason: result.finishReason }).toEqual({ wire, finishReason: expected });
    }
  });

  it('accepts a stream that closes without [DONE] once it gave a finish reason', async () => {
    server.enqueue({ type: 'sse', payloads: [chunk({ content: 'Hi' }), chunk({}, 'stop')], done: false });
    const openai = model();
    const result = await openai.send(openai.render(ask('hi', true)));
    expect(result).toEqual({
      content: [{ type: 'text', text: 'Hi' }],
      toolCalls: [],
      finishReason: 'stop',
      responseModel: 'gpt-4.1-nano-2025-04-14',
      responseId: 'chatcmpl-1',
      requestId: 'req_fake_1',
    });
  });

  it('refuses a stream that closes before it finished', async () => {
    server.enqueue({ type: 'sse', payloads: [chunk({ content: 'Hi' })], done: false });
    const openai = model();
    const error = await caught(openai.send(openai.render(ask('hi', true))));
    expect(error.kind).toBe('malformed-response');
    expect(error.message).toMatch(/ended before its last chunk/);
  });
});
