// Chat completions as each kind of host takes them: the field of the output budget, how tool-call
// arguments go back, the parameters every request may carry, what a model refuses outright, and a
// server that cuts the input silently. Each setting is in the renderer version, so that replay
// renders what was sent.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import { ConfigError } from '../../src/log/errors.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { verifyLog } from '../../src/log/verify.js';
import type { ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel, type OpenAIChatModelOptions } from '../../src/providers/openai-chat/openai-chat-model.js';
import { openAIChatSettingsOf } from '../../src/providers/openai-chat/renderer-versions.js';
import { UnknownRendererVersionError } from '../../src/providers/renderer-version.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, type FakeResponse, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

const at = (baseUrl: string | undefined, options: Partial<OpenAIChatModelOptions> = {}) =>
  createOpenAIChatModel({
    model: 'gpt-4.1-mini',
    apiKey: 'sk-test',
    env: {},
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...options,
  });

const weatherTool = {
  name: 'weather',
  description: 'The weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};
const budgeted: ModelRequest = {
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    {
      role: 'assistant',
      content: [],
      toolCalls: [
        { callId: 'c1', name: 'weather', arguments: { city: 'Lisbon' }, argumentsText: '{"city": "Lisbon"}' },
        { callId: 'c2', name: 'weather', arguments: '{"city": "Por', argumentsText: '{"city": "Por' },
        { callId: 'c3', name: 'weather', arguments: 'Faro', argumentsText: '"Faro"' },
        { callId: 'c4', name: 'weather', arguments: {}, argumentsText: '' },
      ],
    },
    ...['c1', 'c2', 'c3', 'c4'].map((callId) => ({
      role: 'tool' as const,
      callId,
      content: [{ type: 'text' as const, text: 'ok' }],
      isError: false,
    })),
  ],
  params: { tools: [weatherTool], maxOutputTokens: 64, stream: false },
};
const sentArguments = (body: Record<string, unknown>) =>
  (body.messages as Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>)
    .flatMap((message) => message.tool_calls ?? [])
    .map((call) => call.function.arguments);

describe('chat completions by host', () => {
  it('at api.openai.com: max_completion_tokens and arguments as written, renderer version 2 as before', () => {
    const model = at(undefined);
    expect(model.rendererVersion).toBe('openai-chat/2');
    const body = model.render(budgeted).body;
    expect(body).toMatchObject({ max_completion_tokens: 64 });
    expect(sentArguments(body)).toEqual(['{"city": "Lisbon"}', '{"city": "Por', '"Faro"', '']);
  });

  it('at DeepSeek: max_tokens, arguments as objects, its reasoning back on every tool-calling message', () => {
    const model = at('https://api.deepseek.com/v1', { model: 'deepseek-chat' });
    expect(model.rendererVersion).toBe('openai-chat/3;tokens=max_tokens;arguments=object;reasoning=deepseek;reasoning-fill');
    const body = model.render(budgeted).body;
    expect(body).toMatchObject({ max_tokens: 64 });
    expect(body).not.toHaveProperty('max_completion_tokens');
  });

  it('at any other host (Ollama, vLLM, llama.cpp): max_tokens, and arguments that are not a JSON object sent as {}', () => {
    const model = at('http://127.0.0.1:11434/v1', { model: 'qwen3:8b', contextWindow: 32_768, defaultMaxOutputTokens: 4_096 });
    expect(model.rendererVersion).toBe('openai-chat/3;tokens=max_tokens;arguments=object;reasoning=openai-compatible');
    const body = model.render(budgeted).body;
    expect(body).toMatchObject({ max_tokens: 64 });
    // A JSON object goes back as written; anything else as the empty object the server can parse.
    expect(sentArguments(body)).toEqual(['{"city": "Lisbon"}', '{}', '{}', '{}']);
  });

  it('takes overrides, named in the renderer version, and renders any recorded version whatever it is configured with', () => {
    const verbatim = at('http://127.0.0.1:8000/v1', { toolArguments: 'verbatim', maxTokensField: 'max_completion_tokens' });
    expect(verbatim.rendererVersion).toBe('openai-chat/3;tokens=max_completion_tokens;arguments=verbatim;reasoning=openai-compatible');
    const official = at(undefined);
    for (const version of [
      verbatim.rendererVersion,
      'openai-chat/3;tokens=max_tokens;arguments=object',
      'openai-chat/2',
      'openai-chat/1;max_tokens',
    ]) {
      expect(official.render(budgeted, version).body).toEqual(at('http://127.0.0.1:1/v1').render(budgeted, version).body);
    }
    expect(sentArguments(official.render(budgeted, 'openai-chat/1').body)).toEqual(['{"city":"Lisbon"}', '{"city": "Por', 'Faro', '{}']);
  });

  it('refuses a version 3 string it does not understand, naming what it renders', () => {
    for (const version of [
      'openai-chat/3',
      'openai-chat/3;tokens=max_tokens',
      'openai-chat/3;tokens=max;arguments=object',
      'openai-chat/3;tokens=max_tokens;arguments=object;reasoning-fill',
      'openai-chat/3;tokens=max_tokens;arguments=object;cache=yes',
      'openai-chat/3;tokens=max_tokens;arguments=object;tokens=max_tokens',
      'openai-chat/4;tokens=max_tokens;arguments=object',
    ]) {
      expect(() => openAIChatSettingsOf(version), version).toThrow(UnknownRendererVersionError);
    }
    expect(() => openAIChatSettingsOf('openai-chat/9')).toThrow(/it renders openai-chat\/2 or .* or openai-chat\/3;tokens=…;arguments=…/);
  });

  it('renders reasoning effort, tool choice and parallel tool calls, the last two only with tools', () => {
    const model = at(undefined);
    const params = {
      ...budgeted.params,
      reasoning: { effort: 'high' as const },
      toolChoice: { tool: 'weather' },
      parallelToolCalls: false,
    };
    expect(model.render({ ...budgeted, params }).body).toMatchObject({
      reasoning_effort: 'high',
      tool_choice: { type: 'function', function: { name: 'weather' } },
      parallel_tool_calls: false,
    });
    expect(model.render({ ...budgeted, params: { ...params, toolChoice: 'required' } }).body).toMatchObject({ tool_choice: 'required' });
    const toolless = model.render({ messages: budgeted.messages.slice(0, 1), params: { ...params, tools: [] } }).body;
    expect(toolless).not.toHaveProperty('tool_choice');
    expect(toolless).not.toHaveProperty('parallel_tool_calls');
    // Absent parameters are not sent: a request recorded before they existed renders as it did.
    expect(Object.keys(model.render(budgeted).body).sort()).toEqual(['max_completion_tokens', 'messages', 'model', 'tools']);
  });
});

describe('parameters a model refuses', () => {
  const read = defineTool({ name: 'read', description: 'Reads', input: z.object({ path: z.string() }), execute: () => 'x' });
  const build = (model: string, options: Partial<HarnessOptions>) => {
    const store = new MemoryLogStore();
    return { store, build: () => createHarness({ store, model: at(undefined, { model }), tools: [read], ...options }) };
  };

  it('refuses a temperature for a model that takes none (gpt-5, o3), when the harness is built', async () => {
    for (const model of ['gpt-5', 'gpt-5-mini-2025-08-07', 'o3', 'o4-mini']) {
      const { store, build: create } = build(model, { temperature: 0.2 });
      expect(create, model).toThrow(ConfigError);
      expect(create, model).toThrow(
        `model "${model}" takes no temperature (it samples at its own default), found 0.2; leave temperature out`,
      );
      expect(await store.listSessions()).toEqual([]);
    }
    expect(() => build('gpt-5-chat-latest', { temperature: 0.2 }).build()).not.toThrow();
    expect(() => build('gpt-4.1', { temperature: 0.2 }).build()).not.toThrow();
    expect(() => build('gpt-5', {}).build()).not.toThrow();
  });

  it('refuses a thinking budget, which chat completions cannot carry, and a tool choice naming no tool', () => {
    expect(() => build('gpt-4.1', { reasoning: { budgetTokens: 2_048 } }).build()).toThrow(/take a reasoning effort, not a token budget/);
    expect(() => build('gpt-4.1', { toolChoice: { tool: 'write' } }).build()).toThrow(
      'toolChoice names tool "write", which is not one of the tools (read); name one of them',
    );
  });
});

describe('a server that parses the arguments it is sent (Ollama, vLLM)', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer({ objectArguments: true });
  });
  afterEach(async () => {
    await server.close();
  });

  const notJson = [
    JSON.stringify({
      id: 'c',
      model: 'qwen3:8b',
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city": "Lis' } }] },
          finish_reason: 'tool_calls',
        },
      ],
    }),
  ];
  const weather = defineTool({ name: 'weather', description: 'Weather', input: z.object({ city: z.string() }), execute: () => 'sunny' });

  async function run(options: Partial<OpenAIChatModelOptions>) {
    const store = new MemoryLogStore();
    server.enqueue({ type: 'sse', payloads: notJson }, { type: 'sse', payloads: readFixtureChunks('openai-text') });
    const model = at(`${server.baseUrl}/v1`, { model: 'qwen3:8b', contextWindow: 32_768, defaultMaxOutputTokens: 4_096, ...options });
    const harness = createHarness({ store, model, tools: [weather], retries: { maxRetries: 0 } });
    const session = await harness.createSession('parsed');
    const result = await session.send('Weather in Lisbon?');
    const events: LogEvent[] = [];
    for await (const page of store.read('parsed')) events.push(...page);
    return { store, result, events };
  }

  it('takes the whole conversation back when arguments that are not JSON go as {}; the log keeps what the model wrote', async () => {
    const { store, result, events } = await run({});
    expect(result.reason).toBe('completed');
    expect(server.violations).toEqual([]);
    expect(sentArguments(JSON.parse(server.requests[1]?.body ?? '{}'))).toEqual(['{}']);
    const assistant = events.find((event) => event.type === 'assistant/message');
    expect(assistant?.data.toolCalls).toEqual([
      { callId: 'call_1', name: 'weather', arguments: '{"city": "Lis', argumentsText: '{"city": "Lis' },
    ]);
    for (const request of events
      .filter((event) => event.type === 'model/request')
      .map((event) => event.data as unknown as ModelRequestData)) {
      const replayed = await replay(store, 'parsed', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(request.requestDigest);
    }
  });

  it('is refused there when the arguments go back as written, which is what was sent to every host before', async () => {
    const { result } = await run({ toolArguments: 'verbatim' });
    expect(result.reason).toBe('error');
    expect(result.error?.message).toMatch(/invalid character in tool call arguments/);
    expect(server.violations).toHaveLength(1);
  });
});

describe('a server that cuts the input silently (Ollama at its num_ctx)', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer();
  });
  afterEach(async () => {
    await server.close();
  });

  const answer = (promptTokens: number): FakeResponse => ({
    type: 'json',
    body: {
      id: 'chatcmpl-1',
      model: 'qwen3:8b',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Sure.' } }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 2, total_tokens: promptTokens + 2 },
    },
  });

  async function ask(baseUrl: string, promptTokens: number) {
    const store = new MemoryLogStore();
    server.enqueue(answer(promptTokens));
    const model = at(baseUrl, { model: 'qwen3:8b', contextWindow: 32_768, defaultMaxOutputTokens: 4_096 });
    const harness = createHarness({ store, model, stream: false, systemPrompt: 'You read long notes.' });
    const session = await harness.createSession('cut');
    // About four thousand tokens of text: a request the estimate can be trusted on.
    await session.send(`Summarize: ${'the quick brown fox jumps over the lazy dog '.repeat(400)}`);
    const events: LogEvent[] = [];
    for await (const page of store.read('cut')) events.push(...page);
    return { store, events, harness, session };
  }

  it('records a model/warning when the server reports far fewer input tokens than were sent, and the log stays valid', async () => {
    const { store, events } = await ask(`${server.baseUrl}/v1`, 2_048);
    const request = events.find((event) => event.type === 'model/request')?.data as unknown as ModelRequestData;
    expect(request.estimatedTokens).toBeGreaterThan(3_000);
    const warning = events.find((event) => event.type === 'model/warning');
    expect(warning).toMatchObject({ ignorable: true, data: { turn: 1, step: 1, code: 'SILENT_TRUNCATION' } });
    expect(warning?.data.message).toMatch(/counted 2048 input tokens where about \d+ were sent: it may have cut the input/);
    expect(events.map((event) => event.type).slice(-3)).toEqual(['assistant/message', 'model/warning', 'turn/end']);
    expect((await verifyLog(store.read('cut'))).ok).toBe(true);
    expect(sha256Hex(server.requests[0]?.body ?? '')).toBe(request.requestDigest);
  });

  it('leaves the session one that reopens, goes on and replays past the warning', async () => {
    const { store, harness, session } = await ask(`${server.baseUrl}/v1`, 2_048);
    await session.close();
    server.enqueue(answer(9_000));
    const reopened = await harness.openSession('cut');
    expect(await reopened.send('And now?')).toMatchObject({ turn: 2, reason: 'completed' });
    const replayed = await replay(store, 'cut', { turn: 2 }, { resolveRenderer: rendererFor });
    expect(replayed.requestDigest).toBe(sha256Hex(server.requests[1]?.body ?? ''));
    expect((await verifyLog(store.read('cut'))).ok).toBe(true);
  });

  it('records none when the count is close to the estimate', async () => {
    const first = await ask(`${server.baseUrl}/v1`, 1);
    const request = first.events.find((event) => event.type === 'model/request');
    const estimated = (request?.data as unknown as ModelRequestData | undefined)?.estimatedTokens ?? 0;
    expect(estimated).toBeGreaterThan(3_000);
    const { events } = await ask(`${server.baseUrl}/v1`, Math.round(estimated * 0.9));
    expect(events.some((event) => event.type === 'model/warning')).toBe(false);
  });
});
