// Sessions across calls and processes: an app that resends its whole history each call is
// matched against what it sent before, not recorded twice; continuing a session id with a new
// recorder (a new process) is a new lifecycle whose turns keep counting; a history the app
// rewrote is recorded as a replacement that lists what it dropped; a provider made without the
// recorder's fetch is recorded as not captured, never with invented bytes.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type LanguageModel, type ModelMessage, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AiSdkRecorder, createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import { dataOf } from '../../src/log/event-data.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { createCliWorkspace } from '../support/cli.js';
import { type AiSdkHarness, describeSurface, startAiSdkHarness, verifyAndReplay } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
beforeEach(async () => {
  harness = await startAiSdkHarness();
});
afterEach(async () => {
  await harness.close();
});

async function recorderFor(sessionId: string, withFetch = true): Promise<{ recorder: AiSdkRecorder; model: LanguageModel }> {
  const recorder = await createAiSdkRecorder({
    store: `sqlite:${harness.storePath}`,
    sessionId,
    onRecordError: (error) => harness.recordErrors.push(error),
  });
  const openai = createOpenAI({
    baseURL: `${harness.upstream.baseUrl}/v1`,
    apiKey: 'sk-test',
    ...(withFetch ? { fetch: recorder.fetch } : {}),
  });
  return { recorder, model: wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware: recorder.middleware }) };
}

async function ask(model: LanguageModel, messages: ModelMessage[], question: string, answer: string, index: number): Promise<void> {
  harness.upstream.enqueue(answerJson('openai', { text: answer }, index));
  messages.push({ role: 'user', content: question });
  const result = await generateText({ model, system: 'Be brief.', messages });
  messages.push(...result.response.messages);
}

describe('sessions across calls and processes', () => {
  it('matches resent history, continues in a new recorder as a new lifecycle, and counts turns on', async () => {
    const messages: ModelMessage[] = [];
    const first = await recorderFor('chat-1');
    await ask(first.model, messages, 'One?', 'Uno.', 1);
    await ask(first.model, messages, 'Two?', 'Dos.', 2);
    await first.recorder.close();
    const second = await recorderFor('chat-1');
    await ask(second.model, messages, 'Three?', 'Tres.', 3);
    await second.recorder.close();

    const events = await harness.events('chat-1');
    expect(describeSurface(events)).toEqual([
      'system/message: Be brief.',
      'user/message: One?',
      'assistant/message: Uno.',
      'user/message: Two?',
      'assistant/message: Dos.',
      'user/message: Three?',
      'assistant/message: Tres.',
    ]);
    expect(events.filter((event) => event.type === 'session/end-seed')).toHaveLength(1);
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    const { report, replays } = await verifyAndReplay(await harness.store(), 'chat-1');
    expect(report.ok).toBe(true);
    expect(replays.every((result) => result.verified)).toBe(true);
    expect(harness.recordErrors).toEqual([]);
  });

  it('records a history the app rewrote as a replacement that lists what it dropped', async () => {
    const messages: ModelMessage[] = [];
    const { recorder, model } = await recorderFor('rewrite-1');
    await ask(model, messages, 'Old question?', 'Old answer.', 1);
    await ask(model, messages, 'Keep this?', 'Kept.', 2);
    // The app drops its first exchange (a sliding window of its own) and asks on.
    messages.splice(0, 2);
    await ask(model, messages, 'Next?', 'Next answer.', 3);
    await recorder.close();

    const events = await harness.events('rewrite-1');
    const calls = events
      .filter((event) => event.type === 'model/request')
      .map((event) => event.data as { recorder: { rewrite?: { shadowedSeqs: number[] } } });
    const rewrite = calls[2]?.recorder.rewrite;
    expect(rewrite).toBeDefined();
    const dropped = (rewrite?.shadowedSeqs ?? []).map((seq) => describeSurface([events[seq] as never])[0]);
    expect(dropped).toContain('user/message: Old question?');
    expect(dropped).toContain('assistant/message: Old answer.');
    // The originals are still in the log; the surface is what the app sent.
    const sent = JSON.parse(harness.upstream.requests[2]?.body ?? '{}') as { messages: Array<{ content: string }> };
    expect(sent.messages.map((message) => message.content)).toEqual(['Be brief.', 'Keep this?', 'Kept.', 'Next?']);
    const { report, replays } = await verifyAndReplay(await harness.store(), 'rewrite-1');
    expect(report.ok).toBe(true);
    expect(replays.every((result) => result.verified)).toBe(true);
    expect(harness.recordErrors).toEqual([]);
  });

  it('says the bytes were not captured when the provider was made without the recorder fetch', async () => {
    const messages: ModelMessage[] = [];
    const { recorder, model } = await recorderFor('nofetch-1', false);
    await ask(model, messages, 'Hello?', 'Hi.', 1);
    await recorder.close();
    const events = await harness.events('nofetch-1');
    const request = events.find((event) => event.type === 'model/request');
    const data = request?.data as {
      provenance?: string;
      requestDigest?: string;
      requestBody?: unknown;
      recorder: { bytes: string; reason: string };
    };
    expect(data.provenance).toBe('imported');
    expect(data.requestDigest).toBeUndefined();
    expect(data.requestBody).toBeUndefined();
    expect(data.recorder.bytes).toBe('not-captured');
    expect(data.recorder.reason).toMatch(/fetch was not given/);
    const { report, replays } = await verifyAndReplay(await harness.store(), 'nofetch-1');
    expect(report.ok).toBe(true);
    expect(replays[0]?.verified).toBe(false);
    const cli = createCliWorkspace();
    try {
      const wire = await cli.run(['replay', 'nofetch-1', '--turn', '1', '--wire', '--store', `sqlite:${harness.storePath}`]);
      expect(wire.code).not.toBe(0);
      expect(wire.stdout).toBe('');
      expect(wire.stderr).toContain('recorded by shadowlog/ai-sdk with its bytes not captured');
      const shown = await cli.run(['replay', 'nofetch-1', '--turn', '1', '--store', `sqlite:${harness.storePath}`]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('not byte-verified: shadowlog/ai-sdk recorded this call');
      expect(shown.stdout).not.toContain('another harness');
    } finally {
      cli.cleanup();
    }
  });
});
