// The recorder with @ai-sdk/anthropic (the Messages API) against the fake provider: a streamed
// tool loop lands as one turn of two steps, each digest the sha256 of the bytes the server
// received, and every call replays to them.

import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import { answerStream } from '../proxy/proxy-answers.js';
import { type AiSdkHarness, describeSurface, sha256, startAiSdkHarness, verifyAndReplay } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
beforeEach(async () => {
  harness = await startAiSdkHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('the recorder with @ai-sdk/anthropic', () => {
  it('records a streamed tool loop whose every call replays to the bytes the server received', async () => {
    harness.upstream.enqueue(
      answerStream('anthropic', { tool: { id: 'toolu_1', name: 'weather', arguments: { city: 'Oslo' } } }, 1),
      answerStream('anthropic', { text: 'It is snowing in Oslo.' }, 2),
    );
    const recorder = await createAiSdkRecorder({
      store: `sqlite:${harness.storePath}`,
      sessionId: 'claude-1',
      onRecordError: (error) => harness.recordErrors.push(error),
    });
    const anthropic = createAnthropic({ baseURL: `${harness.upstream.baseUrl}/v1`, apiKey: 'sk-ant-test', fetch: recorder.fetch });
    const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: recorder.middleware });
    const weather = tool({
      description: 'The weather in a city',
      inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
      execute: async ({ city }) => ({ city, sky: 'snow' }),
    });
    const result = streamText({ model, prompt: 'Weather in Oslo?', tools: { weather }, stopWhen: stepCountIs(4) });
    expect(await result.text).toBe('It is snowing in Oslo.');
    await recorder.close();

    const events = await harness.events('claude-1');
    expect(describeSurface(events)).toEqual([
      'user/message: Weather in Oslo?',
      'assistant/message: Let me look. → weather',
      'tool/result: {"city":"Oslo","sky":"snow"}',
      'assistant/message: It is snowing in Oslo.',
    ]);
    const { report, calls, replays } = await verifyAndReplay(await harness.store(), 'claude-1');
    expect(report.ok).toBe(true);
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [1, 2],
    ]);
    expect(calls.map((call) => call.requestDigest)).toEqual(harness.upstream.requests.map((request) => sha256(request.body)));
    expect(replays.every((replayed) => replayed.verified)).toBe(true);
    expect(harness.recordErrors).toEqual([]);
  });
});
