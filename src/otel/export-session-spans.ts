// A stored session as spans, streamed: its events are read a page at a time and its spans handed
// on in batches as they end, so that neither the session nor its spans are ever held whole.

import { assertSessionId } from '../log/index.js';
import type { LogStore } from '../store/index.js';
import { SessionSpanBuilder, type SpanBuilderOptions } from './session-span-builder.js';
import type { SessionSpan, SessionSpanKind } from './span-types.js';

/** The default number of spans per OTLP request. */
export const DEFAULT_SPAN_BATCH_SIZE = 512;

export interface SessionSpansOptions extends SpanBuilderOptions {
  /** Spans per batch (default 512). */
  readonly batchSize?: number;
}

/** Where batches go: an OtlpSpanSender, or anything else that takes them one at a time. */
export interface SpanSink {
  send(spans: readonly SessionSpan[]): Promise<void>;
}

export interface SessionExportSummary {
  readonly sessionId: string;
  /** Events read. */
  readonly events: number;
  /** Spans sent. */
  readonly spans: number;
  /** Spans sent, by kind. */
  readonly byKind: Readonly<Record<SessionSpanKind, number>>;
  /** Batches (requests) sent. */
  readonly batches: number;
}

/** The session's spans in batches of at most `batchSize`, in the order they end. */
export function sessionSpanBatches(store: LogStore, sessionId: string, options: SessionSpansOptions = {}): AsyncGenerator<SessionSpan[]> {
  return spanBatches(store, sessionId, options, () => {});
}

async function* spanBatches(
  store: LogStore,
  sessionId: string,
  options: SessionSpansOptions,
  countPage: (events: number) => void,
): AsyncGenerator<SessionSpan[]> {
  assertSessionId(sessionId);
  const batchSize = options.batchSize ?? DEFAULT_SPAN_BATCH_SIZE;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, found ${batchSize}`);
  const builder = new SessionSpanBuilder(sessionId, options);
  let batch: SessionSpan[] = [];
  for await (const page of store.read(sessionId)) {
    countPage(page.length);
    for (const event of page) {
      for (const span of builder.accept(event)) {
        batch.push(span);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
  }
  batch.push(...builder.finish());
  while (batch.length > 0) {
    yield batch.slice(0, batchSize);
    batch = batch.slice(batchSize);
  }
}

/** Sends a stored session's spans to `sink`, a batch at a time; returns what was sent. */
export async function exportSessionSpans(
  store: LogStore,
  sessionId: string,
  sink: SpanSink,
  options: SessionSpansOptions = {},
): Promise<SessionExportSummary> {
  const byKind: Record<SessionSpanKind, number> = { invoke_agent: 0, turn: 0, chat: 0, execute_tool: 0, compaction: 0, prune: 0 };
  let spans = 0;
  let batches = 0;
  let events = 0;
  for await (const batch of spanBatches(store, sessionId, options, (count) => (events += count))) {
    await sink.send(batch);
    batches += 1;
    spans += batch.length;
    for (const span of batch) byKind[span.kind] += 1;
  }
  return { sessionId, events, spans, byKind, batches };
}
