// The OpenAI Responses API adapter: rendering every message kind as input items, reading
// recorded responses and streams (text, function calls, an error event), its error and
// context-window wordings, and a tool loop through the spine that replays to its digests.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import type { ModelMessage, ModelRequest } from '../../src/providers/language-model.js';
import {
  createOpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
} from '../../src/providers/openai-responses/openai-responses-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { UnknownRendererVersionError } from '../../src/providers/renderer-version.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import {
  type FakeProviderServer,
  type FakeResponse,
  readFixtureChunks,
  readFixtureJson,
  startFakeProviderServer,
} from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const model = (options: Partial<OpenAIResponsesModelOptions> = {}) =>
  createOpenAIResponsesModel({ model: 'gpt-4.1-mini', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {}, ...options });

const CONVERSATION: ModelMessage[] = [
  { role: 'system', content: [{ type: 'text', text: 'You are terse.' }] },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'Let me look.' }],
    toolCalls: [{ callId: 'call_1', name: 'lookup', arguments: { query: 'cat' }, argumentsText: '{"query": "cat"}' }],
  },
  { role: 'tool', callId: 'call_1', content: [{ type: 'text', text: 'a cat' }], isError: false },
  { role: 'assistant', content: [{ type: 'text', text: 'It is a cat.' }], toolCalls: [] },
  { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
];
const LOOKUP = {
  name: 'lookup',
  description: 'Looks things up',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};
const ask = (stream: boolean): ModelRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
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

describe('OpenAI Responses render', () => {
  it('renders every message kind as input items, stateless, with tools and parameters', () => {
    const params = {
      tools: [LOOKUP],
      maxOutputTokens: 256,
      temperature: 0.2,
      stream: true,
      toolChoice: 'auto' as const,
      parallelToolCalls: false,
    };
    expect(model().render({ messages: CONVERSATION, params }).body).toEqual({
      model: 'gpt-4.1-mini',
      input: [
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'You are terse.' }] },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this picture?' },
            { type: 'input_image', detail: 'auto', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
          ],
        },
        { type: 'message', role: 'assistant', content: 'Let me look.' },
        { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"query": "cat"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a cat' },
        { type: 'message', role: 'assistant', content: 'It is a cat.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
      store: false,
      tools: [{ type: 'function', name: 'lookup', description: 'Looks things up', parameters: LOOKUP.parameters, strict: false }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      max_output_tokens: 256,
      temperature: 0.2,
      stream: true,
    });
  });

  it('asks for encrypted reasoning from a reasoning model, and a summary with an effort', () => {
    const reasoner = model({ model: 'gpt-5' });
    expect(reasoner.rendererVersion).toBe('openai-responses/1;reasoning');
    expect(model().rendererVersion).toBe('openai-responses/1');
    expect(reasoner.render(ask(false)).body).toMatchObject({ include: ['reasoning.encrypted_content'] });
    expect(model().render(ask(false)).body).not.toHaveProperty('include');
    const effort = { ...ask(false), params: { ...ask(false).params, reasoning: { effort: 'low' as const } } };
    expect(model().render(effort).body).toMatchObject({
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(model({ model: 'gpt-5' }).render(ask(false), 'openai-responses/1').body).not.toHaveProperty('include');
    expect(model().render(ask(false), 'openai-responses/1;reasoning').body).toMatchObject({ include: ['reasoning.encrypted_content'] });
    expect(() => model().render(ask(false), 'openai-responses/2')).toThrow(UnknownRendererVersionError);
  });

  it('refuses a temperature for a reasoning model and a thinking budget, when the harness is built', () => {
    const store = new MemoryLogStore();
    expect(() => createHarness({ store, model: model({ model: 'gpt-5' }), temperature: 0.5 })).toThrow(/takes no temperature/);
    expect(() => createHarness({ store, model: model(), reasoning: { budgetTokens: 4_096 } })).toThrow(/not a token budget/);
  });
});

describe('OpenAI Responses send', () => {
  it('posts to /v1/responses and reads a recorded JSON response: text, usage, ids', async () => {
    server.enqueue({ type: 'json', body: readFixtureJson('openai-responses-reasoning') });
    const responses = model({ model: 'gpt-5-mini' });
    const result = await responses.send(responses.render(ask(false)));
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/responses', headers: { authorization: 'Bearer sk-test' } });
    const fixture = readFixtureJson('openai-responses-reasoning') as {
      output: [{ encrypted_content: string; summary: [{ text: string }] }];
    };
    expect(result).toMatchObject({
      content: [
        // The reasoning item, kept to go back: its id, summary and encrypted content.
        {
          type: 'reasoning',
          provider: 'openai',
          id: 'rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e',
          summary: [fixture.output[0].summary[0].text],
          data: fixture.output[0].encrypted_content,
        },
        { type: 'text', text: '12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570' },
      ],
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 865, outputTokens: 163, cacheReadTokens: 0, reasoningTokens: 128 },
      responseModel: 'gpt-5-mini-2025-08-07',
      responseId: 'resp_0f35ed53160b395301693cc957829881909359e7f80cdd20b5',
      requestId: 'req_fake_1',
    });
  });

  it('reads a recorded function-call stream, split at odd byte counts', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-responses-tool-call'), chunkSizes: [7, 1, 301, 13], delayMs: 1 });
    const responses = model();
    const result = await responses.send(responses.render(ask(true)));
    expect(result).toEqual({
      content: [],
      toolCalls: [{ callId: 'call_2FQdm3Br7Qb35YUBSkDR7kue', name: 'get_weather', arguments: { city: 'Beijing' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 45, outputTokens: 25, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      responseModel: 'gpt-5.1-2025-11-13',
      responseId: 'resp_0775572d10a16b66006a8d85285ef487d2ae865d3657af7276',
      requestId: 'req_fake_1',
    });
  });

  it('streams text deltas of a recorded text stream', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-responses-text') });
    const responses = model();
    const deltas: string[] = [];
    const result = await responses.send(responses.render(ask(true)), { onTextDelta: (text) => deltas.push(text) });
    expect(deltas).toEqual(['OK']);
    expect(result).toMatchObject({
      content: [{ type: 'text', text: 'OK' }],
      finishReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 2 },
    });
  });

  it("turns a recorded stream's error event into a ProviderError, with the request id", async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-responses-error') });
    const responses = model();
    const error = await caught(responses.send(responses.render(ask(true))));
    expect(error).toMatchObject({ kind: 'rate-limit', provider: 'openai-responses', requestId: 'req_fake_1' });
    expect(error.message).toMatch(/error event in the stream, insufficient_quota.*You exceeded your current quota/);
  });

  it('recognises the context-window error in a rejection and in a failed response', async () => {
    const message = 'Your input exceeds the context window of this model. Please adjust your input and try again.';
    server.enqueue({
      type: 'error',
      status: 400,
      body: { error: { message, type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' } },
    });
    const responses = model();
    expect(await caught(responses.send(responses.render(ask(false))))).toMatchObject({
      kind: 'context-overflow',
      contextOverflow: true,
      status: 400,
    });
    const failed = (status: string) =>
      JSON.stringify({
        type: `response.${status}`,
        response: { id: 'resp_1', status, output: [], error: { code: 'context_length_exceeded', message } },
      });
    server.enqueue({ type: 'sse', payloads: [failed('failed')] });
    expect(await caught(responses.send(responses.render(ask(true))))).toMatchObject({ kind: 'context-overflow', retryable: false });
  });

  it('reads an answer cut by its token limit as length, and refuses a stream that ends before its final event', async () => {
    const incomplete = {
      id: 'resp_2',
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [],
      model: 'gpt-5',
    };
    server.enqueue({ type: 'json', body: incomplete });
    const responses = model();
    expect((await responses.send(responses.render(ask(false)))).finishReason).toBe('length');
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('openai-responses-text').slice(0, 5) });
    const error = await caught(responses.send(responses.render(ask(true))));
    expect(error).toMatchObject({ kind: 'malformed-response' });
    expect(error.message).toMatch(/ended before response\.completed/);
  });
});

describe('a tool loop through the Responses API', () => {
  it('calls the tool, sends its output back paired with the call, and replays every call to its digest', async () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Get weather',
      input: z.object({ city: z.string() }),
      execute: ({ city }) => `Sunny in ${city}`,
    });
    const store = new MemoryLogStore();
    const responses: FakeResponse[] = [
      { type: 'sse', payloads: readFixtureChunks('openai-responses-tool-call') },
      { type: 'sse', payloads: readFixtureChunks('openai-responses-text') },
    ];
    server.enqueue(...responses);
    const harness = createHarness({ store, model: model(), tools: [weather], systemPrompt: 'Be brief.' });
    const session = await harness.createSession('responses');
    expect(await session.send('Weather in Beijing?')).toMatchObject({ reason: 'completed', steps: 2, text: 'OK' });
    expect(server.violations).toEqual([]);
    const second = JSON.parse(server.requests[1]?.body ?? '{}') as { input: unknown[] };
    expect(second.input.slice(-2)).toEqual([
      { type: 'function_call', call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue', name: 'get_weather', arguments: '{"city":"Beijing"}' },
      { type: 'function_call_output', call_id: 'call_2FQdm3Br7Qb35YUBSkDR7kue', output: 'Sunny in Beijing' },
    ]);
    const events: LogEvent[] = [];
    for await (const page of store.read('responses')) events.push(...page);
    const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
    expect(requests.map((request) => request.provider)).toEqual(['openai-responses', 'openai-responses']);
    for (const [index, request] of requests.entries()) {
      expect(sha256Hex(server.requests[index]?.body ?? '')).toBe(request.requestDigest);
      const replayed = await replay(store, 'responses', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(request.requestDigest);
    }
  });
});

describe('reasoning through the Responses API', () => {
  it('keeps a reasoning item with its encrypted content and sends it back, stateless, on the next turn', async () => {
    const store = new MemoryLogStore();
    server.enqueue(
      { type: 'json', body: readFixtureJson('openai-responses-reasoning') },
      { type: 'sse', payloads: readFixtureChunks('openai-responses-text') },
    );
    const harness = createHarness({ store, model: model({ model: 'gpt-5-mini' }), systemPrompt: 'Be brief.', stream: false });
    const session = await harness.createSession('reasoning');
    await session.send('What is (12 + 7) × 3 × 10?');
    const streaming = createHarness({ store, model: model({ model: 'gpt-5-mini' }), systemPrompt: 'Be brief.' });
    await session.close();
    const again = await streaming.openSession('reasoning');
    expect(await again.send('Thanks. Say OK.')).toMatchObject({ reason: 'completed', text: 'OK' });
    expect(server.violations).toEqual([]);
    const fixture = readFixtureJson('openai-responses-reasoning') as {
      output: [{ id: string; encrypted_content: string; summary: [{ text: string }] }];
    };
    const second = JSON.parse(server.requests[1]?.body ?? '{}') as { input: unknown[]; include: unknown; store: unknown };
    expect(second).toMatchObject({ store: false, include: ['reasoning.encrypted_content'] });
    expect(second.input[2]).toEqual({
      type: 'reasoning',
      id: fixture.output[0].id,
      summary: [{ type: 'summary_text', text: fixture.output[0].summary[0].text }],
      encrypted_content: fixture.output[0].encrypted_content,
    });
    const events: LogEvent[] = [];
    for await (const page of store.read('reasoning')) events.push(...page);
    expect(events.find((event) => event.type === 'assistant/message')?.data.usage).toEqual({
      inputTokens: 865,
      outputTokens: 163,
      cacheReadTokens: 0,
      reasoningTokens: 128,
    });
    for (const request of events
      .filter((event) => event.type === 'model/request')
      .map((event) => event.data as unknown as ModelRequestData)) {
      const replayed = await replay(store, 'reasoning', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(request.requestDigest);
    }
  });

  it("does not send reasoning it cannot: another provider's, or OpenAI's without its encrypted content", () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', provider: 'anthropic', text: 'Hm.', signature: 'sig' },
          { type: 'reasoning', provider: 'openai', id: 'rs_1', summary: ['Thinking'] },
          { type: 'text', text: 'Hello.' },
        ],
        toolCalls: [],
      },
    ];
    expect(model().render({ messages, params: { tools: [], stream: false } }).body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      { type: 'message', role: 'assistant', content: 'Hello.' },
    ]);
  });
});
