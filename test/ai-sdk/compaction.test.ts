// Compaction at the log layer: a 6,000-token window, twelve long turns. The app keeps its whole
// `messages` and resends it each call; the model is sent the session's surface, where a
// compaction shadows the oldest turns. The last request the server received holds the newest
// question and not the first; the log still holds every original, verifies and replays.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import { answerJson } from '../proxy/proxy-answers.js';
import type { FakeResponse } from '../support/fake-provider-server.js';
import { type AiSdkHarness, sha256, startAiSdkHarness, verifyAndReplay } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
beforeEach(async () => {
  harness = await startAiSdkHarness();
});
afterEach(async () => {
  await harness.close();
});

/** About 450 tokens of plain sentences that name the turn. */
function longText(kind: string, turn: number): string {
  const sentences = Array.from(
    { length: 30 },
    (_, index) => `In ${kind} ${turn} the harbour inspector counted ${index + 3} barrels of tar on pier ${turn * 7 + index}.`,
  );
  return `${kind.toUpperCase()}-${turn}: ${sentences.join(' ')}`;
}

/** A text answer whose usage counts the request as a server would (about four characters a token), so that the meter's anchor is honest. */
function measuredAnswer(text: string, index: number): FakeResponse {
  return {
    type: 'computed',
    respond: (request) => {
      const answer = answerJson('openai', { text }, index) as { type: 'json'; body: { usage: object } };
      const input = Math.ceil(request.body.length / 4);
      const output = Math.ceil(text.length / 4);
      return {
        type: 'json',
        body: { ...answer.body, usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } },
      };
    },
  };
}

describe('compaction at the log layer', () => {
  it('compacts twelve long turns in a 6,000-token window while the app keeps its whole messages', async () => {
    const recorder = await createAiSdkRecorder({
      store: `sqlite:${harness.storePath}`,
      sessionId: 'long-1',
      contextWindow: 6_000,
      maxOutputTokens: 500,
      // A tail of 0.16 holds the newest question (about 600 tokens) verbatim; the default 0.05 of this small window does not.
      compaction: { config: { headroomTokens: 1_000, retainRatio: 0.16 } },
      onRecordError: (error) => harness.recordErrors.push(error),
    });
    const openai = createOpenAI({ baseURL: `${harness.upstream.baseUrl}/v1`, apiKey: 'sk-test', fetch: recorder.fetch });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware: recorder.middleware });
    const messages: ModelMessage[] = [];
    for (let turn = 1; turn <= 12; turn++) {
      harness.upstream.enqueue(measuredAnswer(longText('answer', turn), turn));
      messages.push({ role: 'user', content: longText('question', turn) });
      const result = await generateText({ model, system: 'You keep harbour records.', messages, maxOutputTokens: 500 });
      messages.push(...result.response.messages);
    }
    await recorder.close();

    // The app's history is whole: every question and answer, the first included.
    expect(messages).toHaveLength(24);
    expect(JSON.stringify(messages[0])).toContain('QUESTION-1:');
    // The model was sent the surface: the last request holds the newest question, not the first.
    const last = harness.upstream.requests[harness.upstream.requests.length - 1]?.body ?? '';
    const sent = (JSON.parse(last) as { messages: Array<{ role: string; content: string }> }).messages;
    const starts = sent.map((message) => `${message.role} ${message.content.slice(0, 12)}`);
    expect(starts).toContain('user QUESTION-12:');
    expect(starts).not.toContain('user QUESTION-1: ');
    expect(sent.some((message) => message.role === 'user' && message.content.includes('<compacted-summary>'))).toBe(true);
    expect(last.length).toBeLessThan(JSON.stringify(messages).length / 2);

    const events = await harness.events('long-1');
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === 'compaction/summary').length).toBeGreaterThan(0);
    expect(types.filter((type) => type === 'user/message' && true).length).toBeGreaterThanOrEqual(12);
    // Every original question is still in the log, each once: resent history was matched, not appended again.
    for (let turn = 1; turn <= 12; turn++) {
      const copies = events.filter(
        (event) =>
          event.type === 'user/message' && event.surfaceOp === 'append' && JSON.stringify(event.data).includes(`QUESTION-${turn}:`),
      );
      expect(copies, `question ${turn}`).toHaveLength(1);
    }
    const store = await harness.store();
    const { report, calls, replays } = await verifyAndReplay(store, 'long-1');
    expect(report.ok).toBe(true);
    expect(calls.map((call) => call.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(replays.every((result) => result.verified)).toBe(true);
    expect(calls.map((call) => call.requestDigest)).toEqual(harness.upstream.requests.map((request) => sha256(request.body)));
    expect(harness.recordErrors).toEqual([]);
  });
});
