// Property: whatever an app does to its own history between calls (asks on, drops its oldest
// exchanges, drops its newest answer and asks again), the recorder's log verifies, and the
// surface each call recorded is exactly the messages the app sent, in order.

import { generateText, type ModelMessage, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { MemoryLogStore } from '../../src/store/index.js';

type Move = 'ask' | 'drop-oldest' | 'regenerate';

function textOf(event: LogEvent): string {
  const data = event.data as { content?: Array<{ text?: string }> };
  return (data.content ?? []).map((block) => block.text ?? '').join('');
}

function contentText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => ('text' in part ? part.text : '')).join('');
}

describe('the app rewrites its history at will', () => {
  it('the log verifies and each call records exactly what the app sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Move>('ask', 'ask', 'drop-oldest', 'regenerate'), { minLength: 1, maxLength: 8 }),
        async (moves) => {
          const store = new MemoryLogStore();
          const recorder = await createAiSdkRecorder({
            store,
            sessionId: 'property-1',
            onRecordError: (error) => {
              throw error;
            },
          });
          let answers = 0;
          const mock = new MockLanguageModelV3({
            doGenerate: async () => ({
              content: [{ type: 'text', text: `answer ${++answers}` }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage: {
                inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
                outputTokens: { total: 2, text: 2, reasoning: undefined },
              },
              warnings: [],
            }),
          });
          const model = wrapLanguageModel({ model: mock, middleware: recorder.middleware });
          const messages: ModelMessage[] = [];
          const sent: string[][] = [];
          let question = 0;
          for (const move of ['ask' as Move, ...moves]) {
            if (move === 'drop-oldest' && messages.length >= 4) messages.splice(0, 2);
            if (move === 'regenerate' && messages.length >= 2) messages.pop();
            else messages.push({ role: 'user', content: `question ${++question}` });
            sent.push(messages.map(contentText));
            const result = await generateText({ model, messages });
            messages.push(...result.response.messages);
          }
          await recorder.close();
          expect((await verifyLog(store.read('property-1'))).ok).toBe(true);
          const events: LogEvent[] = [];
          for await (const page of store.read('property-1')) events.push(...(page as LogEvent[]));
          const fold = new SurfaceFold();
          const recorded: string[][] = [];
          for (const event of events) {
            if (event.type === 'model/request')
              recorded.push(
                fold.requestSurfaceSeqs(dataOf(event, 'model/request'), event.seq).map((seq) => textOf(events[seq] as LogEvent)),
              );
            fold.apply(event);
          }
          expect(recorded).toEqual(sent);
        },
      ),
      { numRuns: 25 },
    );
  });
});
