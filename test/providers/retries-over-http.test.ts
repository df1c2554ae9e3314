// Retries end to end: the spine, a real adapter and the fake server on loopback. Each failed
// attempt is an ordinary model/error with its attempt number and the wait before the next; each
// retry is a step of its own with its own model/request, and every one of them replays to the
// digest of the bytes the server received. The clock is the test's own, so that no test waits
// for real seconds, except one that waits a few real milliseconds to prove the real clock works.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent, ModelRequestData } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import type { RetryClock } from '../../src/providers/retry-schedule.js';
import { createHarness, type HarnessOptions } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, type FakeResponse, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

/** A clock that waits no real time: it records each wait and moves its time on by it. */
function testClock(onSleep: (ms: number) => void = () => {}) {
  const waits: number[] = [];
  let now = 0;
  const clock: RetryClock = {
    now: () => now,
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
      onSleep(ms);
    },
  };
  return { clock, waits };
}

const openai = () => createOpenAIChatModel({ model: 'gpt-4.1-mini', apiKey: 'sk-test', baseUrl: `${server.baseUrl}/v1`, env: {} });
const anthropic = () =>
  createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseUrl: server.baseUrl, env: {} });

const overloaded: FakeResponse = {
  type: 'error',
  status: 529,
  headers: { 'retry-after': '1' },
  body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
};
const rateLimited: FakeResponse = {
  type: 'error',
  status: 429,
  headers: { 'retry-after': '2' },
  body: { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } },
};

async function converse(model: LanguageModel, responses: FakeResponse[], options: Partial<HarnessOptions> = {}) {
  const store = new MemoryLogStore();
  const received = server.requests.length;
  server.enqueue(...responses);
  const harness = createHarness({ store, model, systemPrompt: 'Be brief.', maxOutputTokens: 1_000, ...options });
  const session = await harness.createSession('retries');
  const result = await session.send('Hello?');
  const events: LogEvent[] = [];
  for await (const page of store.read('retries')) events.push(...page);
  const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
  // Every attempt is a call of its own, sent as recorded and replayed to its digest.
  const sent = server.requests.slice(received);
  expect(requests).toHaveLength(sent.length);
  for (const [index, request] of requests.entries()) {
    expect(sha256Hex(sent[index]?.body ?? '')).toBe(request.requestDigest);
    const replayed = await replay(store, 'retries', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
    expect(replayed.requestDigest).toBe(request.requestDigest);
  }
  const errors = events.filter((event) => event.type === 'model/error').map((event) => event.data);
  return { result, events, requests, errors };
}

describe('retries at the transport', () => {
  it('survives a 529 and a 429 with retry-after: each attempt logged, each retry a step, waits as the server asked', async () => {
    const { clock, waits } = testClock();
    const { result, requests, errors, events } = await converse(
      anthropic(),
      [overloaded, rateLimited, { type: 'sse', payloads: readFixtureChunks('anthropic-text') }],
      { retryClock: clock },
    );
    expect(result).toMatchObject({ reason: 'completed', steps: 3 });
    expect(waits).toEqual([1_000, 2_000]);
    expect(requests.map((request) => request.step)).toEqual([1, 2, 3]);
    // The answer keeps the provider's ids for the request that succeeded and for itself.
    expect(events.find((event) => event.type === 'assistant/message')?.data).toMatchObject({
      requestId: 'req_fake_3',
      responseId: 'msg_01QC4g3HwBThD4BaNtBckFDJ',
    });
    // The same surface each time: the retries sent the same bytes.
    expect(new Set(requests.map((request) => request.requestDigest)).size).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        step: 1,
        attempt: 1,
        retryable: true,
        retryAfterMs: 1_000,
        status: 529,
        requestId: 'req_fake_1',
        code: 'PROVIDER_SERVER',
      }),
      expect.objectContaining({
        step: 2,
        attempt: 2,
        retryable: true,
        retryAfterMs: 2_000,
        status: 429,
        requestId: 'req_fake_2',
        code: 'PROVIDER_RATE_LIMIT',
      }),
    ]);
    expect(events.map((event) => event.type).slice(-8)).toEqual([
      'user/message',
      'model/request',
      'model/error',
      'model/request',
      'model/error',
      'model/request',
      'assistant/message',
      'turn/end',
    ]);
  });

  it('backs off 0.5 s then 1 s (less jitter) without a retry-after, and gives up after two retries', async () => {
    const { clock, waits } = testClock();
    const down: FakeResponse = {
      type: 'error',
      status: 503,
      body: { error: { message: 'The engine is currently overloaded', type: 'server_error' } },
    };
    const { result, errors } = await converse(openai(), [down, down, down], { retryClock: clock });
    expect(result).toMatchObject({ reason: 'error', steps: 3 });
    expect(result.error).toMatchObject({ kind: 'server', status: 503 });
    expect(waits).toEqual([438, 875]);
    expect(errors.map((error) => [error.attempt, error.retryAfterMs])).toEqual([
      [1, 438],
      [2, 875],
      [3, undefined],
    ]);
  });

  it('retries a 409 and a dropped connection, and honours a configured limit', async () => {
    const { clock } = testClock();
    const conflict: FakeResponse = { type: 'error', status: 409, body: { error: { message: 'lock timeout', type: 'conflict' } } };
    const cut: FakeResponse = {
      type: 'sse',
      payloads: readFixtureChunks('openai-text').slice(0, 30),
      end: 'destroy',
      cutAfterBytes: 900,
      chunkSizes: [300],
    };
    const { result, errors } = await converse(openai(), [conflict, cut, { type: 'sse', payloads: readFixtureChunks('openai-text') }], {
      retryClock: clock,
      retries: { maxRetries: 3 },
    });
    expect(result).toMatchObject({ reason: 'completed', steps: 3 });
    expect(errors.map((error) => error.code)).toEqual(['PROVIDER_SERVER', 'PROVIDER_NETWORK']);

    const none = await converse(openai(), [conflict], { retryClock: clock, retries: { maxRetries: 0 } });
    expect(none.result).toMatchObject({ reason: 'error', steps: 1 });
    expect(none.errors).toEqual([expect.objectContaining({ attempt: 1, retryable: true })]);
    expect(none.errors[0]?.retryAfterMs).toBeUndefined();
  });

  it('obeys x-should-retry: false, and does not retry what would not pass', async () => {
    const { clock, waits } = testClock();
    const refused: FakeResponse = {
      type: 'error',
      status: 500,
      headers: { 'x-should-retry': 'false' },
      body: { error: { message: 'no', type: 'server_error' } },
    };
    const { result, errors } = await converse(openai(), [refused], { retryClock: clock });
    expect(result).toMatchObject({ reason: 'error', steps: 1 });
    expect(errors).toEqual([expect.objectContaining({ attempt: 1, retryable: false, status: 500 })]);
    const invalid = await converse(
      openai(),
      [{ type: 'error', status: 400, body: { error: { message: 'bad', type: 'invalid_request_error' } } }],
      { retryClock: clock },
    );
    expect(invalid.result).toMatchObject({ reason: 'error', steps: 1 });
    expect(waits).toEqual([]);
  });

  it('does not retry when the server asks for a wait past the deadline', async () => {
    const { clock, waits } = testClock();
    const later: FakeResponse = { ...rateLimited, headers: { 'retry-after': '600' } };
    const { result, errors } = await converse(anthropic(), [later], { retryClock: clock, retries: { deadlineMs: 60_000 } });
    expect(result).toMatchObject({ reason: 'error', steps: 1 });
    expect(result.error?.message).toMatch(/wait 600 s \(Retry-After\)/);
    expect(errors).toEqual([expect.objectContaining({ attempt: 1, retryable: true })]);
    expect(errors[0]?.retryAfterMs).toBeUndefined();
    expect(waits).toEqual([]);
  });

  it('ends the turn as aborted when the caller aborts during the wait', async () => {
    const controller = new AbortController();
    const { clock } = testClock(() => controller.abort());
    const store = new MemoryLogStore();
    server.enqueue(overloaded);
    const harness = createHarness({ store, model: anthropic(), retryClock: clock });
    const session = await harness.createSession('aborted');
    const result = await session.send('Hello?', { signal: controller.signal });
    expect(result).toMatchObject({ reason: 'aborted', steps: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('counts each retry as a step, so that maxSteps bounds them', async () => {
    const { clock } = testClock();
    const { result, errors } = await converse(anthropic(), [overloaded, overloaded], { retryClock: clock, maxSteps: 2 });
    expect(result).toMatchObject({ reason: 'max-steps', steps: 2 });
    expect(errors.map((error) => error.retryAfterMs)).toEqual([1_000, undefined]);
  });

  it('waits for real on the system clock (a few milliseconds, from retry-after-ms)', async () => {
    const brief: FakeResponse = { ...overloaded, headers: { 'retry-after-ms': '15' } };
    const { result, errors } = await converse(anthropic(), [brief, { type: 'sse', payloads: readFixtureChunks('anthropic-text') }]);
    expect(result).toMatchObject({ reason: 'completed', steps: 2 });
    expect(errors).toEqual([expect.objectContaining({ attempt: 1, retryAfterMs: 15 })]);
  });
});
