// Bad input is refused at createAiSdkRecorder with a typed error, before any model call and
// with nothing written; and a record the store refuses never loses the app's answer: the call
// returns, the failure is reported, and the record is written once the store takes it.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkRecorder, RecordFailedError, StoreUnavailableError } from '../../src/ai-sdk/index.js';
import { ConfigError, InvalidSessionIdError, SessionBusyError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { MemoryLogStore } from '../../src/store/index.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { failingStore, failOnType } from '../support/failing-store.js';
import { type AiSdkHarness, describeSurface, startAiSdkHarness } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
beforeEach(async () => {
  harness = await startAiSdkHarness();
});
afterEach(async () => {
  await harness.close();
});

describe('bad input at createAiSdkRecorder', () => {
  it('refuses a session another writer owns, with SessionBusyError', async () => {
    const store = new MemoryLogStore();
    const first = await createAiSdkRecorder({ store, sessionId: 'owned-1' });
    const error = await createAiSdkRecorder({ store, sessionId: 'owned-1' }).catch((caught: unknown) => caught);
    expect(SessionBusyError.isInstance(error)).toBe(true);
    await first.close();
    // Once the first writer is gone the session can be continued.
    const again = await createAiSdkRecorder({ store, sessionId: 'owned-1' });
    await again.close();
  });

  it('refuses a session a writer of another store handle owns (SQLite)', async () => {
    const first = await createAiSdkRecorder({ store: await harness.store(), sessionId: 'owned-2' });
    const error = await createAiSdkRecorder({ store: `sqlite:${harness.storePath}`, sessionId: 'owned-2' }).catch(
      (caught: unknown) => caught,
    );
    expect(SessionBusyError.isInstance(error)).toBe(true);
    await first.close();
  });

  it('refuses a store that cannot be opened, with StoreUnavailableError', async () => {
    const error = await createAiSdkRecorder({ store: `sqlite:${harness.directory}/no/such/dir/log.db`, sessionId: 's1' }).catch(
      (caught: unknown) => caught,
    );
    expect(StoreUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('no model call was made');
  });

  it.each([
    ['a ratio out of range', { contextWindow: 6_000, compaction: { config: { thresholdRatio: 2 } } }, 'thresholdRatio'],
    ['an unknown key', { contextWindow: 6_000, compaction: { config: { treshold: 0.5 } } }, 'treshold'],
    [
      'no room under the headroom',
      { contextWindow: 6_000, maxOutputTokens: 500, compaction: { config: { headroomTokens: 65_536 } } },
      'headroomTokens',
    ],
    ['compaction without a window', { compaction: {} }, 'contextWindow'],
    ['a summarizer that is not a model', { contextWindow: 6_000, compaction: { summarizer: 'abstractive' } }, 'summarizer'],
    ['a pruner without compaction', { pruner: { thresholdChars: 100 } }, 'pruner'],
    ['a reserve as large as the window', { contextWindow: 1_000, maxOutputTokens: 1_000 }, 'maxOutputTokens'],
  ])('refuses %s with a ConfigError, writing nothing', async (_name, options, named) => {
    const store = new MemoryLogStore();
    const error = await createAiSdkRecorder({ store, sessionId: 'config-1', ...(options as object) }).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(named);
    expect(await store.head('config-1')).toBeUndefined();
  });

  it('refuses a session id that could not name a session', async () => {
    const error = await createAiSdkRecorder({ store: new MemoryLogStore(), sessionId: '../etc' }).catch((caught: unknown) => caught);
    expect(InvalidSessionIdError.isInstance(error)).toBe(true);
  });
});

describe('a record the store refuses', () => {
  it('never loses the answer: the call returns, the failure is reported, and the record is written once the store takes it', async () => {
    const store = failingStore(new MemoryLogStore(), failOnType('model/request'));
    const reported: unknown[] = [];
    const recorder = await createAiSdkRecorder({ store, sessionId: 'flaky-1', onRecordError: (error) => reported.push(error) });
    const openai = createOpenAI({ baseURL: `${harness.upstream.baseUrl}/v1`, apiKey: 'sk-test', fetch: recorder.fetch });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware: recorder.middleware });
    harness.upstream.enqueue(answerJson('openai', { text: 'Still here.' }, 1));
    const result = await generateText({ model, prompt: 'Are you there?' });
    expect(result.text).toBe('Still here.');
    await recorder.flush();
    expect(reported).toHaveLength(1);
    expect(RecordFailedError.isInstance(reported[0])).toBe(true);
    await recorder.close();
    const events: LogEvent[] = [];
    for await (const page of store.read('flaky-1')) events.push(...(page as LogEvent[]));
    expect(describeSurface(events)).toEqual(['user/message: Are you there?', 'assistant/message: Still here.']);
    expect(events.filter((event) => event.type === 'model/request')).toHaveLength(1);
    expect((await verifyLog(store.read('flaky-1'))).ok).toBe(true);
  });
});
