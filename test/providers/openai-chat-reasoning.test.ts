// Reasoning on chat completions: DeepSeek's reasoning_content (and the `reasoning` of Ollama
// and newer vLLM) kept as a reasoning block with cache and reasoning tokens, sent back on the
// tool-calling turns that need it, and a DeepSeek thinking-mode tool loop through a fake server
// that refuses, as DeepSeek does, a tool-calling turn sent back without its reasoning.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import type { ContentBlock, JsonObject, LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import type { ModelMessage, ModelParams, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel, type OpenAIChatModelOptions } from '../../src/providers/openai-chat/openai-chat-model.js';
import type { ProviderError } from '../../src/providers/provider-error.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer({ deepseekThinking: true });
});
afterEach(async () => {
  await server.close();
});

const deepseek = (options: Partial<OpenAIChatModelOptions> = {}) =>
  createOpenAIChatModel({
    model: 'deepseek-chat',
    apiKey: 'sk-test',
    baseUrl: `${server.baseUrl}/v1`,
    env: {},
    dialect: 'deepseek',
    ...options,
  });
const REASONED = 'The user asks about the weather in San Francisco. I should use the weather tool.';

describe('reasoning from a chat-completions server', () => {
  it('reads a recorded DeepSeek stream: reasoning first, the call, cache and reasoning tokens', async () => {
    server.enqueue({ type: 'sse', payloads: readFixtureChunks('deepseek-reasoning-tool'), chunkSizes: [3, 101, 7] });
    const model = deepseek();
    const result = await model.send(
      model.render({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Weather?' }] }], params: { tools: [], stream: true } }),
    );
    expect(result).toMatchObject({
      content: [{ type: 'reasoning', provider: 'deepseek', text: REASONED }],
      toolCalls: [{ callId: 'call_00_IhCAliIHtM9gKpgfqbBV9873', name: 'weather', arguments: { location: 'San Francisco' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 374, outputTokens: 61, cacheReadTokens: 256, reasoningTokens: 17 },
      responseModel: 'deepseek-v4-flash',
    });
  });

  it("reads Ollama's `reasoning` field in a JSON answer, tagged for the server it came from", async () => {
    server.enqueue({
      type: 'json',
      body: {
        model: 'qwen3:8b',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi.', reasoning: 'Greet back.' } }],
      },
    });
    const model = createOpenAIChatModel({
      model: 'qwen3:8b',
      baseUrl: `${server.baseUrl}/v1`,
      env: {},
      contextWindow: 32_768,
      defaultMaxOutputTokens: 4_096,
    });
    const result = await model.send(
      model.render({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], params: { tools: [], stream: false } }),
    );
    expect(result.content).toEqual([
      { type: 'reasoning', provider: 'openai-compatible', text: 'Greet back.' },
      { type: 'text', text: 'Hi.' },
    ]);
  });

  it('sends reasoning back only on tool-calling turns, only its own, and an empty one where DeepSeek needs the field', () => {
    const call = (content: ContentBlock[], callId: string): ModelMessage[] => [
      { role: 'assistant', content, toolCalls: [{ callId, name: 'weather', arguments: {} }] },
      { role: 'tool', callId, content: [{ type: 'text', text: 'sunny' }], isError: false },
    ];
    const messages: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      ...call([{ type: 'reasoning', provider: 'deepseek', text: 'Use the tool.' }], 'c1'),
      ...call([{ type: 'reasoning', provider: 'anthropic', text: 'Not mine.', signature: 'sig' }], 'c2'),
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', provider: 'deepseek', text: 'Answer now.' },
          { type: 'text', text: 'Sunny.' },
        ],
        toolCalls: [],
      },
    ];
    const request: ModelRequest = { messages, params: { tools: [], stream: false } };
    const sent = (body: JsonObject) =>
      (body.messages as JsonObject[]).filter((message) => message.role === 'assistant').map((message) => message.reasoning_content);
    expect(sent(deepseek().render(request).body)).toEqual(['Use the tool.', '', undefined]);
    const compatible = createOpenAIChatModel({
      model: 'qwen3:8b',
      baseUrl: 'http://127.0.0.1:1/v1',
      env: {},
      contextWindow: 32_768,
      defaultMaxOutputTokens: 4_096,
      reasoningProvider: 'deepseek',
    });
    expect(sent(compatible.render(request).body)).toEqual(['Use the tool.', undefined, undefined]);
    expect(sent(createOpenAIChatModel({ model: 'gpt-4.1', apiKey: 'k', env: {} }).render(request).body)).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('a DeepSeek thinking-mode tool loop', () => {
  it('completes, sending the reasoning back with the call, and replays every call to its digest', async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'The weather',
      input: z.object({ location: z.string() }),
      execute: ({ location }) => `Foggy in ${location}, 14 °C`,
    });
    const store = new MemoryLogStore();
    server.enqueue(
      { type: 'sse', payloads: readFixtureChunks('deepseek-reasoning-tool') },
      { type: 'sse', payloads: readFixtureChunks('openai-text') },
    );
    const harness = createHarness({ store, model: deepseek(), tools: [weather], systemPrompt: 'Be brief.', maxOutputTokens: 2_000 });
    const session = await harness.createSession('deepseek');
    expect(await session.send('What is the weather in San Francisco?')).toMatchObject({ reason: 'completed', steps: 2 });
    expect(server.violations).toEqual([]);
    const second = JSON.parse(server.requests[1]?.body ?? '{}') as { messages: JsonObject[] };
    expect(second.messages[2]).toMatchObject({ role: 'assistant', reasoning_content: REASONED });

    const events: LogEvent[] = [];
    for await (const page of store.read('deepseek')) events.push(...page);
    expect(events.find((event) => event.type === 'assistant/message')?.data).toMatchObject({
      content: [{ type: 'reasoning', provider: 'deepseek', text: REASONED }],
      usage: { inputTokens: 374, outputTokens: 61, cacheReadTokens: 256, reasoningTokens: 17 },
    });
    const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
    expect(requests[0]?.rendererVersion).toBe(
      'surface/1 openai-chat/3;tokens=max_tokens;arguments=object;reasoning=deepseek;reasoning-fill',
    );
    for (const [index, request] of requests.entries()) {
      expect(sha256Hex(server.requests[index]?.body ?? '')).toBe(request.requestDigest);
      const replayed = await replay(store, 'deepseek', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(request.requestDigest);
    }

    // The same surface as it was sent before (no reasoning back) is what DeepSeek answers 400 to.
    const last = requests.at(-1) as ModelRequestData;
    const replayed = await replay(store, 'deepseek', { turn: last.turn, step: last.step }, { resolveRenderer: rendererFor });
    const model = deepseek();
    const before = model.render({ messages: replayed.messages, params: last.params as unknown as ModelParams }, 'openai-chat/2;max_tokens');
    const refusal = await model.send(before).then(
      () => undefined,
      (error: unknown) => error as ProviderError,
    );
    expect(refusal).toMatchObject({ kind: 'invalid-request', status: 400 });
    expect(refusal?.message).toMatch(/reasoning_content` in the thinking mode must be passed back/);
  });
});
