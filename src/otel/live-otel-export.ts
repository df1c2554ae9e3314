// Live export: spans sent while a session is recorded. A store wrapped by `wrapStore` hands every
// appended event to the exporter after the store has written it, so the log write comes first and
// never waits on the collector; the exporter builds spans as operations end and sends them in
// batches in the background (one request at a time, a bounded queue). A collector that is down
// costs spans, counted and reported through onError, never a log write or a model call.
//
// The hook for other recorders (an AI SDK middleware, a custom harness): wrap the LogStore they
// write through, or call `observe(sessionId, events)` with the events a store accepted.

import type { LogEvent } from '../log/index.js';
import type { LogStore } from '../store/index.js';
import { DEFAULT_SPAN_BATCH_SIZE, type SpanSink } from './export-session-spans.js';
import { OtlpSpanSender } from './otlp-sender.js';
import { type OtlpOptions, resolveOtlpSettings } from './otlp-settings.js';
import { SessionSpanBuilder, type SpanBuilderOptions } from './session-span-builder.js';
import type { SessionSpan } from './span-types.js';

export interface LiveOtelExportOptions extends OtlpOptions, Omit<SpanBuilderOptions, 'sinceSeq'> {
  /** Spans per request (default 512). */
  readonly batchSize?: number;
  /** The longest a finished span waits for its batch (default 2,000 ms). */
  readonly flushIntervalMs?: number;
  /** Spans held while the collector is slow or down; beyond it the oldest are dropped and counted (default 8,192). */
  readonly maxQueuedSpans?: number;
  /** Told of each failure: a refused or failed export, spans dropped, an event that could not become spans. Default: ignored. */
  readonly onError?: (error: unknown) => void;
  /** Where batches go instead of the OTLP endpoint the options name (tests, a custom exporter). */
  readonly sink?: SpanSink;
}

export interface LiveOtelStats {
  readonly spansSent: number;
  readonly spansDropped: number;
  readonly failedExports: number;
}

interface SessionState {
  builder: SessionSpanBuilder | undefined;
  /** Work for this session, in order: events are turned into spans one append at a time. */
  chain: Promise<void>;
  failed: boolean;
}

/** Creates a live exporter; throws ConfigError when no endpoint is given or set in the environment (unless a sink is given). */
export function createLiveOtelExport(options: LiveOtelExportOptions): LiveOtelExport {
  return new LiveOtelExport(options);
}

export class LiveOtelExport {
  private readonly options: LiveOtelExportOptions;
  private readonly sink: SpanSink & { shutdown?(): Promise<void> };
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly maxQueuedSpans: number;
  private readonly sessions = new Map<string, SessionState>();
  private readonly queue: SessionSpan[] = [];
  private sending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private store: LogStore | undefined;
  private sent = 0;
  private dropped = 0;
  private failures = 0;
  private closed = false;

  constructor(options: LiveOtelExportOptions) {
    this.options = options;
    this.sink = options.sink ?? new OtlpSpanSender(resolveOtlpSettings(options));
    this.batchSize = options.batchSize ?? DEFAULT_SPAN_BATCH_SIZE;
    this.flushIntervalMs = options.flushIntervalMs ?? 2_000;
    this.maxQueuedSpans = Math.max(options.maxQueuedSpans ?? 8_192, this.batchSize);
  }

  get stats(): LiveOtelStats {
    return { spansSent: this.sent, spansDropped: this.dropped, failedExports: this.failures };
  }

  /**
   * A store that writes through `store` and, once each append is written, hands its events to this
   * exporter. Every other method is the store's own. A session first seen past its start (one
   * continued by this process) has its earlier events read from the store, in the background, so
   * that its spans have their parents; the spans of those earlier events are not sent again.
   */
  wrapStore<T extends LogStore>(store: T): T {
    this.store = store;
    return new Proxy(store, {
      get: (target, property, receiver) => {
        if (property === 'append') {
          return async (sessionId: string, events: readonly LogEvent[], options: { expectedSeq: number }) => {
            await target.append(sessionId, events, options);
            this.observe(sessionId, events);
          };
        }
        if (property === 'appendAll') {
          return async (sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: { expectedSeq: number }) => {
            const count = await target.appendAll(sessionId, batches, options);
            this.observeStored(sessionId, options.expectedSeq, options.expectedSeq + count);
            return count;
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** Hands events a store has written (in seq order) to the exporter. Never throws and never waits. */
  observe(sessionId: string, events: readonly LogEvent[]): void {
    if (this.closed || events.length === 0) return;
    const state = this.stateOf(sessionId);
    const copy = [...events];
    state.chain = state.chain.then(async () => {
      if (state.failed) return;
      try {
        const first = copy[0] as LogEvent;
        if (state.builder === undefined) state.builder = await this.startBuilder(sessionId, first.seq);
        const builder = state.builder;
        // A page already seen (a backfill that read past its mark) is skipped, not repeated.
        for (const event of copy) if (event.seq > builder.lastAcceptedSeq) this.enqueue(builder.accept(event));
      } catch (error) {
        state.failed = true;
        this.report(error);
      }
    });
  }

  /** Sends what is queued now; resolves when the queue is empty (or its sends failed). */
  async flush(): Promise<void> {
    await this.settle();
    while (this.queue.length > 0 || this.sending !== undefined) {
      this.startSending();
      await this.sending;
    }
  }

  /**
   * Ends each session's open spans at its last event (the lifecycle's root), sends everything, and
   * stops. It waits at most `waitMs` (default: the export timeout and a second): what is not sent
   * by then is counted as dropped, so a process that exits is never held by its collector.
   */
  async close(options: { readonly waitMs?: number } = {}): Promise<LiveOtelStats> {
    if (this.closed) return this.stats;
    const waitMs = options.waitMs ?? (this.options.timeoutMs ?? 10_000) + 1_000;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), waitMs);
      timer.unref();
    });
    const done = (async () => {
      await this.settle();
      for (const state of this.sessions.values()) {
        if (state.builder !== undefined && !state.failed) this.enqueue(state.builder.finish());
      }
      this.closed = true;
      await this.flush();
      await this.sink.shutdown?.();
      return 'done' as const;
    })();
    const outcome = await Promise.race([done, expired]);
    clearTimeout(timer);
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (outcome === 'expired') {
      const left = this.queue.length;
      this.queue.length = 0;
      this.dropped += left;
      this.report(
        new RangeError(`the collector did not take the last spans within ${waitMs} ms; ${left} queued spans dropped, and any in flight`),
      );
    }
    return this.stats;
  }

  /** Waits until every session's events so far are spans (work queued meanwhile included). */
  private async settle(): Promise<void> {
    for (;;) {
      const chains = [...this.sessions.values()].map((state) => state.chain);
      await Promise.all(chains);
      if ([...this.sessions.values()].every((state, index) => state.chain === chains[index])) return;
    }
  }

  private stateOf(sessionId: string): SessionState {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = { builder: undefined, chain: Promise.resolve(), failed: false };
      this.sessions.set(sessionId, state);
    }
    return state;
  }

  private observeStored(sessionId: string, fromSeq: number, toSeq: number): void {
    const store = this.store;
    if (store === undefined || toSeq <= fromSeq) return;
    const state = this.stateOf(sessionId);
    state.chain = state.chain.then(async () => {
      try {
        for await (const page of store.read(sessionId, { fromSeq, toSeq })) this.observe(sessionId, page);
      } catch (error) {
        this.report(error);
      }
    });
  }

  /** A builder for a session whose first event seen is `firstSeq`: the earlier ones are read and folded in, and their spans not sent. */
  private async startBuilder(sessionId: string, firstSeq: number): Promise<SessionSpanBuilder> {
    const builder = new SessionSpanBuilder(sessionId, { ...this.options, sinceSeq: firstSeq });
    if (firstSeq > 0) {
      if (this.store === undefined)
        throw new RangeError(
          `live export of ${sessionId} began at seq ${firstSeq} and has no store to read the earlier events from; wrap the store with wrapStore`,
        );
      for await (const page of this.store.read(sessionId, { fromSeq: 0, toSeq: firstSeq })) for (const event of page) builder.accept(event);
    }
    return builder;
  }

  private enqueue(spans: readonly SessionSpan[]): void {
    if (spans.length === 0) return;
    this.queue.push(...spans);
    const over = this.queue.length - this.maxQueuedSpans;
    if (over > 0) {
      this.queue.splice(0, over);
      this.dropped += over;
      this.report(new RangeError(`${over} spans dropped: more than ${this.maxQueuedSpans} were waiting for the collector`));
    }
    if (this.queue.length >= this.batchSize) this.startSending();
    else if (this.timer === undefined && !this.closed) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.startSending();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }

  private startSending(): void {
    if (this.sending !== undefined || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.batchSize);
    this.sending = this.sink
      .send(batch)
      .then(
        () => {
          this.sent += batch.length;
        },
        (error: unknown) => {
          this.failures += 1;
          this.dropped += batch.length;
          this.report(error);
        },
      )
      .finally(() => {
        this.sending = undefined;
        if (this.queue.length >= this.batchSize || (this.closed && this.queue.length > 0)) this.startSending();
      });
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A reporter that throws must not stop the export, nor reach the writer; it shows in stats.
      this.failures += 1;
    }
  }
}
