// The model summarizer's output budget (summary-budget.ts) against a fake server on 127.0.0.1
// with a small local model's limits: max_tokens is the output limit, or the room the window
// leaves after the request's input; a request without room for the summary's target is refused
// before anything is sent, naming the numbers.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelSummarizer } from '../../src/compaction/summarizer.js';
import { SummaryBudgetError, summaryOutputBudget } from '../../src/compaction/summary-budget.js';
import type { ModelMessage } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { fakePromptTokens } from '../support/fake-provider-requests.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';

const WINDOW = 3000;
const OUTPUT = 1500;

const summaryAnswer = {
  type: 'json',
  body: {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'local',
    choices: [{ index: 0, message: { role: 'assistant', content: '## Progress\n- The user talked.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 },
  },
} as const;

const messages = (characters: number): ModelMessage[] => [
  { role: 'user', content: [{ type: 'text', text: 'Tell me about the build. '.repeat(Math.ceil(characters / 50)) }] },
  { role: 'assistant', content: [{ type: 'text', text: 'It writes a bundle. '.repeat(Math.ceil(characters / 40)) }], toolCalls: [] },
];

describe('the summary request fits the model', () => {
  let server: FakeProviderServer;
  beforeEach(async () => {
    server = await startFakeProviderServer({ contextWindow: WINDOW, maxOutputTokens: OUTPUT });
  });
  afterEach(async () => {
    await server.close();
  });
  const model = () =>
    createOpenAIChatModel({ model: 'local', baseUrl: `${server.baseUrl}/v1`, contextWindow: WINDOW, defaultMaxOutputTokens: OUTPUT });
  const summarize = (characters: number, maxTokens = 8192) => {
    server.enqueue(summaryAnswer);
    return createModelSummarizer(model()).summarize({ messages: messages(characters), maxTokens, signal: new AbortController().signal });
  };

  it('asks for the output limit, not maxSummaryTokens, when the window has room', async () => {
    const result = await summarize(2_000);
    const body = JSON.parse(server.requests[0]?.body ?? '{}') as { max_tokens: number; messages: unknown[] };
    expect(body.max_tokens).toBe(OUTPUT);
    expect(result.maxTokens).toBe(OUTPUT);
    expect(server.violations).toEqual([]);
  });

  it('asks for the room the window leaves when that is less, and the server takes it', async () => {
    const result = await summarize(7_000);
    const body = JSON.parse(server.requests[0]?.body ?? '{}') as { max_tokens: number; messages: unknown[] };
    expect(body.max_tokens).toBeLessThan(OUTPUT);
    expect(fakePromptTokens(body.messages) + body.max_tokens).toBeLessThanOrEqual(WINDOW);
    expect(result.maxTokens).toBe(body.max_tokens);
    expect(server.violations).toEqual([]);
  });

  it('keeps a smaller maxSummaryTokens as it is', async () => {
    const result = await summarize(2_000, 600);
    expect((JSON.parse(server.requests[0]?.body ?? '{}') as { max_tokens: number }).max_tokens).toBe(600);
    expect(result.maxTokens).toBeUndefined();
  });

  it('refuses a request with no room for the summary before sending it, naming the numbers', async () => {
    const refused = await summarize(11_000).catch((error: unknown) => error);
    expect(SummaryBudgetError.isInstance(refused)).toBe(true);
    const error = refused as SummaryBudgetError;
    expect(error.code).toBe('SUMMARY_OVER_WINDOW');
    expect(error.contextWindow).toBe(WINDOW);
    expect(error.inputTokens + error.targetTokens).toBeGreaterThan(WINDOW);
    expect(error.message).toMatch(/would not fit its context window: \d+ input tokens .* > the 3000-token window .*nothing was sent/);
    expect(server.requests).toHaveLength(0);
  });

  it('computes the budget as min(maxSummaryTokens, output limit, window − input)', () => {
    const base = { maxSummaryTokens: 8192, outputLimit: 4096, contextWindow: 32_768, targetTokens: 512, model: 'm' };
    expect(summaryOutputBudget({ ...base, inputTokens: 1_000 })).toBe(4096);
    expect(summaryOutputBudget({ ...base, inputTokens: 30_000 })).toBe(2768);
    expect(summaryOutputBudget({ ...base, maxSummaryTokens: 300, inputTokens: 1_000 })).toBe(300);
    expect(() => summaryOutputBudget({ ...base, inputTokens: 32_500 })).toThrow(SummaryBudgetError);
  });
});
