// What issue 11 is done by, in one conversation per provider through the fake server on
// loopback: the turn survives a 529 and a 429 with retry-after, completes its reasoning tool
// loop (Anthropic thinking with its signature; DeepSeek's reasoning_content), records cache and
// reasoning tokens, and every call it made, retries included, replays to its digest from a log
// whose hash chain verifies. (Each context-window wording, and not a bare 400, is in
// error-answers.test.ts; a local model unknown to the table, its limits given on the command
// line, in test/cli/chat.test.ts.)

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import type { AssistantMessageData, LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { verifyLog } from '../../src/log/verify.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import type { RetryClock } from '../../src/providers/retry-schedule.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import {
  type FakeProviderServer,
  type FakeResponse,
  type FakeServerOptions,
  readFixtureChunks,
  readFixtureJson,
  startFakeProviderServer,
} from '../support/fake-provider-server.js';

let server: FakeProviderServer;
afterEach(async () => {
  await server.close();
});

const waits: number[] = [];
const clock: RetryClock = { now: () => 0, random: () => 0, sleep: async (ms) => void waits.push(ms) };

const overloaded: FakeResponse = {
  type: 'error',
  status: 529,
  headers: { 'retry-after': '1' },
  body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
};
const limited = (body: unknown): FakeResponse => ({ type: 'error', status: 429, headers: { 'retry-after': '3' }, body });

async function converse(
  options: FakeServerOptions,
  model: (baseUrl: string) => LanguageModel,
  responses: FakeResponse[],
  harness: Partial<HarnessOptions>,
) {
  server = await startFakeProviderServer(options);
  waits.length = 0;
  server.enqueue(...responses);
  const store = new MemoryLogStore();
  const session = await createHarness({
    store,
    model: model(server.baseUrl),
    retryClock: clock,
    systemPrompt: 'Use the tools.',
    ...harness,
  }).createSession('done');
  const result = await session.send('Go.');
  const events: LogEvent[] = [];
  for await (const page of store.read('done')) events.push(...page);
  const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
  expect(server.violations).toEqual([]);
  expect(requests).toHaveLength(server.requests.length);
  for (const [index, request] of requests.entries()) {
    expect(sha256Hex(server.requests[index]?.body ?? '')).toBe(request.requestDigest);
    const replayed = await replay(store, 'done', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
    expect(replayed.requestDigest).toBe(request.requestDigest);
  }
  expect((await verifyLog(store.read('done'))).ok).toBe(true);
  const answers = events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => event.data as unknown as AssistantMessageData);
  const errors = events.filter((event) => event.type === 'model/error').map((event) => event.data);
  return { result, answers, errors, requests };
}

describe('a conversation ready for production', () => {
  it('with Anthropic: a 529, a thinking tool call, a 429, the answer; cache and thinking tokens; every call replays', async () => {
    const check = defineTool({ name: 'checkSandboxErrors', description: 'Checks', input: z.object({}), execute: () => 'no errors' });
    const answer = readFixtureJson('anthropic-text') as { usage: Record<string, number> };
    const cachedAnswer = {
      ...answer,
      usage: { ...answer.usage, input_tokens: 12, cache_read_input_tokens: 590, cache_creation_input_tokens: 40 },
    };
    const { result, answers, errors, requests } = await converse(
      {},
      (baseUrl) => createAnthropicMessagesModel({ model: 'claude-sonnet-4-6', apiKey: 'k', baseUrl, env: {} }),
      [
        overloaded,
        { type: 'json', body: readFixtureJson('anthropic-thinking-tool') },
        limited({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } }),
        { type: 'json', body: cachedAnswer },
      ],
      { tools: [check], stream: false, maxOutputTokens: 8_192, reasoning: { budgetTokens: 2_048 } },
    );
    expect(result).toMatchObject({ reason: 'completed', steps: 4 });
    expect(waits).toEqual([1_000, 3_000]);
    expect(errors.map((error) => [error.step, error.attempt, error.status, error.retryAfterMs])).toEqual([
      [1, 1, 529, 1_000],
      [3, 1, 429, 3_000],
    ]);
    expect(answers[0]?.content[0]).toMatchObject({ type: 'reasoning', provider: 'anthropic', signature: expect.any(String) });
    expect(answers[0]?.usage).toMatchObject({ reasoningTokens: 18 });
    expect(answers[1]?.usage).toEqual({ inputTokens: 642, outputTokens: 29, cacheReadTokens: 590, cacheWriteTokens: 40 });
    expect(requests.map((request) => request.rendererVersion)).toEqual(
      Array(4).fill('surface/1 anthropic-messages/2;default_max_tokens=64000'),
    );
  });

  it('with DeepSeek: a 429, a reasoning tool call, the answer; cache and reasoning tokens; every call replays', async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'Weather',
      input: z.object({ location: z.string() }),
      execute: () => 'Foggy',
    });
    const { result, answers, errors } = await converse(
      { deepseekThinking: true },
      (baseUrl) => createOpenAIChatModel({ model: 'deepseek-chat', apiKey: 'k', baseUrl: `${baseUrl}/v1`, env: {}, dialect: 'deepseek' }),
      [
        limited({ error: { message: 'Rate limit reached', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } }),
        { type: 'sse', payloads: readFixtureChunks('deepseek-reasoning-tool') },
        overloaded,
        { type: 'sse', payloads: readFixtureChunks('openai-text') },
      ],
      { tools: [weather] },
    );
    expect(result).toMatchObject({ reason: 'completed', steps: 4 });
    expect(waits).toEqual([3_000, 1_000]);
    expect(errors.map((error) => error.code)).toEqual(['PROVIDER_RATE_LIMIT', 'PROVIDER_SERVER']);
    expect(answers[0]).toMatchObject({
      content: [{ type: 'reasoning', provider: 'deepseek' }],
      usage: { inputTokens: 374, outputTokens: 61, cacheReadTokens: 256, reasoningTokens: 17 },
    });
    expect(answers[1]?.usage).toEqual({ inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 });
  });
});
