// Live export: a store wrapped by the live exporter writes first and exports after, in batches, in
// the background. A collector that refuses, hangs or is not listening costs spans (counted and
// reported), never a log write; the spans sent live are those a later `otel` export sends.

import { describe, expect, it } from 'vitest';
import { createLiveOtelExport, OtlpExportError, type SessionSpan, type SpanSink, sessionSpanBatches } from '../../src/otel/index.js';
import { MemoryLogStore } from '../../src/store/index.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import { SessionWriter } from './session-drafts.js';

async function allSpans(store: MemoryLogStore, sessionId: string): Promise<SessionSpan[]> {
  const spans: SessionSpan[] = [];
  for await (const batch of sessionSpanBatches(store, sessionId)) spans.push(...batch);
  return spans;
}

async function eventCount(store: MemoryLogStore, sessionId: string): Promise<number> {
  return (await store.head(sessionId))?.nextSeq ?? 0;
}

describe('live export', () => {
  it('sends, as the session is written, the spans a later export sends, in batches', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const inner = new MemoryLogStore();
      const live = createLiveOtelExport({ endpoint: receiver.url, protocol: 'http/json', batchSize: 4, flushIntervalMs: 20 });
      const writer = await SessionWriter.create(live.wrapStore(inner), 'live-session');
      await writer.writeTurn({ toolSteps: [2, 1] });
      await writer.writeTurn({ toolSteps: [1] });
      await live.flush();
      // Everything ended so far has been sent before close: the root waits for the lifecycle's end.
      const beforeClose = receiver.spans().length;
      expect(beforeClose).toBeGreaterThan(0);
      expect(receiver.spans().some((span) => span.parentSpanId === '')).toBe(false);
      const stats = await live.close();
      expect(stats).toEqual({ spansSent: receiver.spans().length, spansDropped: 0, failedExports: 0 });
      expect(receiver.requests.every((request) => request.spans.length <= 4)).toBe(true);
      const expected = await allSpans(inner, 'live-session');
      expect(
        receiver
          .spans()
          .map((span) => span.spanId)
          .sort(),
      ).toEqual(expected.map((span) => span.spanId).sort());
      const chat = receiver.spans().find((span) => span.name === 'chat gpt-test');
      expect(chat?.attributes['gen_ai.usage.input_tokens']).toBe(100);
    } finally {
      await receiver.close();
    }
  });

  it('never loses a log write and never waits on a collector that refuses, hangs or is not listening', async () => {
    const refusing = await startOtlpReceiver();
    refusing.answer(400, 'no');
    const closed = await startOtlpReceiver();
    await closed.close();
    let hung = 0;
    const hanging: SpanSink = {
      send: () => {
        hung++;
        return new Promise(() => {});
      },
    };
    try {
      for (const [label, options] of [
        ['refusing', { endpoint: refusing.url, protocol: 'http/json' }],
        ['not listening', { endpoint: closed.url, timeoutMs: 300 }],
      ] as const) {
        const errors: unknown[] = [];
        const inner = new MemoryLogStore();
        const live = createLiveOtelExport({ ...options, batchSize: 2, flushIntervalMs: 10, onError: (error) => errors.push(error) });
        const writer = await SessionWriter.create(live.wrapStore(inner), `down-${label.replace(' ', '-')}`);
        await writer.writeTurn({ toolSteps: [1, 1] });
        await writer.writeTurn({ toolSteps: [] });
        const stats = await live.close();
        expect(await eventCount(inner, `down-${label.replace(' ', '-')}`), label).toBe(18);
        expect(stats.spansSent, label).toBe(0);
        expect(stats.spansDropped, label).toBe((await allSpans(inner, `down-${label.replace(' ', '-')}`)).length);
        expect(errors.length, label).toBeGreaterThan(0);
        expect(
          errors.every((error) => OtlpExportError.isInstance(error)),
          label,
        ).toBe(true);
        expect((errors[0] as OtlpExportError).code, label).toBe(label === 'refusing' ? 'OTLP_REFUSED' : 'OTLP_UNREACHABLE');
      }

      // A collector that never answers: the writes finish, and spans beyond the queue's bound are dropped and counted.
      const inner = new MemoryLogStore();
      const errors: unknown[] = [];
      const live = createLiveOtelExport({ sink: hanging, batchSize: 2, maxQueuedSpans: 4, onError: (error) => errors.push(error) });
      const writer = await SessionWriter.create(live.wrapStore(inner), 'hung');
      const started = performance.now();
      for (let turn = 0; turn < 5; turn++) await writer.writeTurn({ toolSteps: [1] });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(await eventCount(inner, 'hung')).toBe(2 + 5 * 8);
      expect(hung).toBe(1);
      expect(live.stats.spansDropped).toBeGreaterThan(0);
      expect(errors.some((error) => error instanceof RangeError && /dropped/.test(error.message))).toBe(true);
    } finally {
      await refusing.close();
    }
  });

  it('continues a session without sending its earlier spans again, the new lifecycle under a root of its own', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const inner = new MemoryLogStore();
      const first = await SessionWriter.create(inner, 'continued');
      await first.writeTurn({ toolSteps: [1] });
      const before = await allSpans(inner, 'continued');

      const live = createLiveOtelExport({ endpoint: receiver.url, protocol: 'http/json', flushIntervalMs: 10 });
      const second = await SessionWriter.open(live.wrapStore(inner), 'continued');
      await second.writeTurn({ toolSteps: [2] });
      await live.close();

      const after = await allSpans(inner, 'continued');
      const sent = receiver.spans();
      const beforeIds = new Set(before.filter((span) => span.kind !== 'invoke_agent').map((span) => span.spanId));
      expect(sent.some((span) => beforeIds.has(span.spanId))).toBe(false);
      const newer = after.filter((span) => span.endSeq >= (before.at(-1)?.endSeq ?? 0) + 1);
      expect(sent.map((span) => span.spanId).sort()).toEqual(newer.map((span) => span.spanId).sort());
      const roots = sent.filter((span) => span.parentSpanId === '');
      expect(roots).toHaveLength(1);
      expect(sent.every((span) => span.traceId === roots[0]?.traceId)).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
