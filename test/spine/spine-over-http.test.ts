// The spine end to end over real HTTP: each adapter talks to the fake provider server, and
// replay proves that the body the server received is the one the log's digest names.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { verifyLog } from '../../src/log/verify.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, type FakeResponse, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const weather = defineTool({
  name: 'weather',
  description: 'The weather in a city',
  input: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}, 21 °C`,
});

async function runAndReplay(model: LanguageModel, responses: FakeResponse[]) {
  const store = new MemoryLogStore();
  server.enqueue(...responses);
  const harness = createHarness({ store, model, tools: [weather], systemPrompt: 'Be brief.', maxOutputTokens: 1_000 });
  const session = await harness.createSession('http');
  const result = await session.send('What is the weather in Lisbon?');
  const events: LogEvent[] = [];
  for await (const page of store.read('http')) events.push(...page);
  const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
  expect(requests).toHaveLength(server.requests.length);
  for (const [index, request] of requests.entries()) {
    // What the server received hashes to what the log recorded before the call ...
    expect(sha256Hex(server.requests[index]?.body ?? '')).toBe(request.requestDigest);
    // ... and replay rebuilds it offline from the log alone.
    const replayed = await replay(store, 'http', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
    expect(replayed.requestDigest).toBe(request.requestDigest);
  }
  expect((await verifyLog(store.read('http'))).ok).toBe(true);
  return { result, events };
}

describe('the spine over HTTP', () => {
  it('runs a tool-calling turn through the OpenAI adapter, streamed, and replays both calls', async () => {
    const toolCallChunks = [
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1-mini',
        choices: [
          {
            index: 0,
            delta: {
              role: 'assistant',
              tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'weather', arguments: '' } }],
            },
            finish_reason: null,
          },
        ],
      }),
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }],
      }),
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"Lisbon"}' } }] }, finish_reason: null }],
      }),
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1-mini',
        choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
      }),
      JSON.stringify({
        id: 'c1',
        object: 'chat.completion.chunk',
        model: 'gpt-4.1-mini',
        choices: [],
        usage: { prompt_tokens: 80, completion_tokens: 12, total_tokens: 92 },
      }),
    ];
    const model = createOpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {} });
    const { result, events } = await runAndReplay(model, [
      { type: 'sse', payloads: toolCallChunks, chunkSizes: [7, 31] },
      { type: 'sse', payloads: readFixtureChunks('openai-text') },
    ]);
    expect(result.reason).toBe('completed');
    const toolResult = events.find((event) => event.type === 'tool/result');
    expect(toolResult?.data).toEqual({ callId: 'call_abc', content: [{ type: 'text', text: 'Sunny in Lisbon, 21 °C' }] });
    const assistant = events.find((event) => event.type === 'assistant/message');
    expect(assistant?.data.usage).toEqual({ inputTokens: 80, outputTokens: 12 });
  });

  it('runs a tool-calling turn through the Anthropic adapter with the recorded stream, and replays it', async () => {
    const model = createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseUrl: server.baseUrl, env: {} });
    const tool = readFixtureChunks('anthropic-json-tool.1');
    const { result } = await runAndReplay(model, [
      { type: 'sse', payloads: tool },
      { type: 'sse', payloads: readFixtureChunks('anthropic-text') },
    ]);
    expect(result.reason).toBe('completed');
    expect(result.steps).toBe(2);
  });

  it('sends tool-call arguments back to an OpenAI-compatible server byte for byte, as it wrote them', async () => {
    const written = ['{"city": "Lisbon"}', '{"unit":"C","city":"Porto"}', '"Faro"', ''];
    // OpenAI's way (the default at api.openai.com); other hosts get arguments as objects (openai-chat-dialects.test.ts).
    const model = createOpenAIChatModel({
      model: 'gpt-4.1-mini',
      apiKey: 'sk-test',
      baseUrl: `${server.baseUrl}/v1`,
      env: {},
      toolArguments: 'verbatim',
    });
    const { result, events } = await runAndReplay(model, [
      {
        type: 'sse',
        payloads: [
          ...written.map((text, index) =>
            JSON.stringify({
              model: 'gpt-4.1-mini',
              choices: [
                {
                  index: 0,
                  delta: { tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: 'weather', arguments: text } }] },
                  finish_reason: null,
                },
              ],
            }),
          ),
          JSON.stringify({ model: 'gpt-4.1-mini', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
        ],
      },
      { type: 'sse', payloads: readFixtureChunks('openai-text') },
    ]);
    expect(result.reason).toBe('completed');
    const second = JSON.parse(server.requests[1]?.body ?? '{}') as {
      messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
    };
    const sentBack = second.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.function.arguments);
    expect(sentBack).toEqual(written);
    // A JSON string literal is JSON, just not an object: the tool says so.
    const errors = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data.error as { message: string } | undefined)?.message);
    expect(errors[0]).toBeUndefined();
    expect(errors[2]).toMatch(/^invalid arguments for weather: \(arguments\): .*object/i);
  });

  it('logs the real context-window error of a provider as model/error with contextOverflow set', async () => {
    const model = createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {} });
    const { result, events } = await runAndReplay(model, [
      {
        type: 'error',
        status: 400,
        body: {
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        },
      },
    ]);
    expect(result.reason).toBe('error');
    expect(events.find((event) => event.type === 'model/error')?.data).toMatchObject({
      contextOverflow: true,
      retryable: false,
      code: 'PROVIDER_CONTEXT_OVERFLOW',
    });
  });
});
