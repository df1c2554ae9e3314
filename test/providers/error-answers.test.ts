// Error answers end to end (test/fixtures/providers/error-answers.json): each context-window
// wording through its adapter and the spine is a model/error with contextOverflow set, and is
// not retried; a bare 400 is not an overflow; vLLM's in-stream BadRequestError is not a server
// error worth a retry; a streamed refusal is kept as the answer's text.

import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import type { RetryClock } from '../../src/providers/retry-schedule.js';
import { createHarness } from '../../src/spine/harness.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type FakeProviderServer, type FakeResponse, startFakeProviderServer } from '../support/fake-provider-server.js';

interface ErrorAnswer {
  readonly provider: 'openai' | 'anthropic';
  readonly overflow?: boolean;
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  readonly stream?: string[];
}
const ANSWERS = JSON.parse(readFileSync(new URL('../fixtures/providers/error-answers.json', import.meta.url), 'utf8')) as Record<
  string,
  ErrorAnswer
>;

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const waits: number[] = [];
const clock: RetryClock = { now: () => 0, random: () => 0, sleep: async (ms) => void waits.push(ms) };

function responseOf(answer: ErrorAnswer): FakeResponse {
  if (answer.stream !== undefined) return { type: 'sse', payloads: answer.stream };
  return {
    type: 'error',
    status: answer.status ?? 500,
    ...(answer.body === undefined ? {} : { body: answer.body }),
    ...(answer.headers === undefined ? {} : { headers: answer.headers }),
  };
}

async function turnWith(answer: ErrorAnswer, extra: FakeResponse[] = []) {
  waits.length = 0;
  const store = new MemoryLogStore();
  server.enqueue(responseOf(answer), ...extra);
  const model =
    answer.provider === 'anthropic'
      ? createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'k', baseUrl: server.baseUrl, env: {} })
      : createOpenAIChatModel({
          model: 'qwen3',
          baseUrl: `${server.baseUrl}/v1`,
          env: {},
          contextWindow: 32_768,
          defaultMaxOutputTokens: 4_096,
        });
  const harness = createHarness({ store, model, retryClock: clock });
  const session = await harness.createSession('errors');
  const result = await session.send('Hello');
  const events: LogEvent[] = [];
  for await (const page of store.read('errors')) events.push(...page);
  return { result, events, errors: events.filter((event) => event.type === 'model/error').map((event) => event.data) };
}

describe('context-window wordings through the spine', () => {
  const overflows = Object.entries(ANSWERS).filter(([, answer]) => answer.overflow === true);
  it('has every wording of the issue', () => {
    expect(overflows.map(([name]) => name).sort()).toEqual([
      'anthropic-input-and-max-tokens',
      'anthropic-prompt-too-long',
      'cerebras-empty-413',
      'deepseek-context-length',
      'llama-cpp-context-exceeded-500',
      'llama-cpp-context-size',
      'openai-context-window',
      'vllm-decoder-prompt',
    ]);
  });
  for (const [name, answer] of overflows) {
    it(`recognises ${name} as an overflow and does not retry it`, async () => {
      const { result, errors } = await turnWith(answer);
      expect(result.reason).toBe('error');
      expect(errors).toEqual([
        expect.objectContaining({ contextOverflow: true, retryable: false, attempt: 1, code: 'PROVIDER_CONTEXT_OVERFLOW' }),
      ]);
      expect(waits).toEqual([]);
    });
  }

  it('does not take a bare 400 with no body for an overflow', async () => {
    const { errors } = await turnWith(ANSWERS['bare-empty-400'] as ErrorAnswer);
    expect(errors).toEqual([
      expect.objectContaining({ contextOverflow: false, retryable: false, code: 'PROVIDER_INVALID_REQUEST', status: 400 }),
    ]);
  });
});

describe('other error answers', () => {
  it("does not retry vLLM's BadRequestError inside a stream: the request was refused, the server did not fail", async () => {
    const { result, errors } = await turnWith(ANSWERS['vllm-bad-request-in-stream'] as ErrorAnswer);
    expect(result.error).toMatchObject({ kind: 'invalid-request', retryable: false });
    expect(errors).toEqual([expect.objectContaining({ attempt: 1, retryable: false, code: 'PROVIDER_INVALID_REQUEST' })]);
    expect(waits).toEqual([]);
  });

  it('retries the 429 and 529 answers as their retry-after asks', async () => {
    for (const name of ['openai-rate-limit', 'anthropic-rate-limit', 'anthropic-overloaded']) {
      const answer = ANSWERS[name] as ErrorAnswer;
      const success: FakeResponse =
        answer.provider === 'anthropic'
          ? {
              type: 'json',
              body: {
                id: 'msg_1',
                type: 'message',
                role: 'assistant',
                model: 'claude-sonnet-4-5',
                content: [{ type: 'text', text: 'Hi.' }],
                stop_reason: 'end_turn',
                usage: { input_tokens: 5, output_tokens: 2 },
              },
            }
          : {
              type: 'sse',
              payloads: [
                JSON.stringify({ id: 'c', model: 'qwen3', choices: [{ index: 0, delta: { content: 'Hi.' }, finish_reason: 'stop' }] }),
              ],
            };
      const store = new MemoryLogStore();
      waits.length = 0;
      server.enqueue(responseOf(answer), success);
      const model =
        answer.provider === 'anthropic'
          ? createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'k', baseUrl: server.baseUrl, env: {} })
          : createOpenAIChatModel({
              model: 'qwen3',
              baseUrl: `${server.baseUrl}/v1`,
              env: {},
              contextWindow: 32_768,
              defaultMaxOutputTokens: 4_096,
            });
      const session = await createHarness({ store, model, retryClock: clock, stream: answer.provider !== 'anthropic' }).createSession(name);
      expect(await session.send('Hello'), name).toMatchObject({ reason: 'completed', steps: 2, text: 'Hi.' });
      expect(waits, name).toEqual([Number(answer.headers?.['retry-after']) * 1_000]);
    }
  });

  it('keeps a streamed refusal as the text of the answer', async () => {
    const { result, events } = await turnWith(ANSWERS['openai-refusal-stream'] as ErrorAnswer);
    expect(result).toMatchObject({ reason: 'completed', text: "I'm sorry, I can't help with that." });
    expect(events.find((event) => event.type === 'assistant/message')?.data.content).toEqual([
      { type: 'text', text: "I'm sorry, I can't help with that." },
    ]);
  });
});
