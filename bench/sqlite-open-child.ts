// The child process of the sqlite-open benchmark: one measurement per process, so that memory
// figures are not polluted by earlier work. Prints one JSON line on stdout.
//
//   node --import tsx --expose-gc bench/sqlite-open-child.ts build <file> <events>
//   node --import tsx --expose-gc bench/sqlite-open-child.ts open <file> [<gc-every-pages>]

import { statSync } from 'node:fs';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { LogEvent } from '../src/log/event.js';
import type { SurfaceFold } from '../src/log/surface-fold.js';
import type { AppendOptions, LogHead, LogStore, Ownership, ReadRange, StoredSession } from '../src/store/log-store.js';
import { SessionLog } from '../src/store/session-log.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { clock, collectGarbage, elapsedMs, type Figures, median } from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

export const SESSION_ID = 'bench-open';
/** Events per transaction while building the file. */
const BUILD_BATCH = 10_000;

export interface BuildResult {
  readonly events: number;
  readonly ms: number;
  readonly fileBytes: number;
  readonly surfaceNodes: number;
  readonly surfaceBytes: number;
  readonly compactions: number;
}

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  /** Memory outside the V8 heap held by JS objects (external includes arrayBuffers). */
  readonly external: number;
}

export interface OpenResult {
  readonly events: number;
  readonly pages: number;
  readonly openStoreMs: number;
  readonly openMs: number;
  /** After the store is open and a full collection, before SessionLog.open. */
  readonly baseline: MemorySample;
  /** The largest value of each figure seen at any page boundary during the open. */
  readonly peak: MemorySample;
  /** The median of each figure over the same samples (a peak over more samples tends to be higher). */
  readonly median: MemorySample;
  /** After the open and a full collection, with the log still referenced: the fold's own memory. */
  readonly retained: MemorySample;
  /** The operating system's peak resident size of this process (includes start-up). */
  readonly maxRss: number;
  readonly surfaceNodes: number;
  readonly surfaceBytes: number;
  /** 0 when the heap was left to the collector; otherwise a full collection ran every that many pages, before sampling. */
  readonly gcEveryPages: number;
}

function sample(): MemorySample {
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external };
}

function surfaceBytes(fold: SurfaceFold): number {
  let bytes = 0;
  for (const node of fold.nodes()) bytes += canonicalJson(node.event).length;
  return bytes;
}

async function build(file: string, events: number): Promise<BuildResult> {
  const store = await openSqliteStore(file);
  const stream = new SealedSessionStream();
  const start = clock();
  for (let done = 0; done < events; done += BUILD_BATCH) {
    const batch = stream.take(Math.min(BUILD_BATCH, events - done));
    await store.append(SESSION_ID, batch, { expectedSeq: done });
  }
  const ms = elapsedMs(start);
  await store.close();
  return {
    events,
    ms,
    fileBytes: statSync(file).size,
    surfaceNodes: stream.fold.size,
    surfaceBytes: surfaceBytes(stream.fold),
    compactions: stream.session.compactionCount,
  };
}

/** Passes everything to the real store, sampling memory at each page boundary of read(). */
class SamplingStore implements LogStore {
  pages = 0;
  readonly samples: MemorySample[] = [];

  constructor(
    private readonly inner: LogStore,
    private readonly gcEveryPages: number,
  ) {}

  get location(): string {
    return this.inner.location;
  }

  record(): void {
    this.samples.push(sample());
  }

  summary(pick: (values: number[]) => number): MemorySample {
    return {
      rss: pick(this.samples.map((each) => each.rss)),
      heapUsed: pick(this.samples.map((each) => each.heapUsed)),
      external: pick(this.samples.map((each) => each.external)),
    };
  }

  async *read(sessionId: string, range?: ReadRange): AsyncIterable<readonly LogEvent[]> {
    for await (const page of this.inner.read(sessionId, range)) {
      this.pages++;
      // With the page read and parsed, before the fold applies it: the buffer is at its fullest.
      if (this.gcEveryPages === 0) this.record();
      else if (this.pages % this.gcEveryPages === 0) {
        // Live memory only: what a full collection leaves.
        collectGarbage();
        this.record();
      }
      yield page;
    }
  }

  append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    return this.inner.append(sessionId, events, options);
  }
  appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    return this.inner.appendAll(sessionId, batches, options);
  }
  readEvent(sessionId: string, seq: number): Promise<LogEvent> {
    return this.inner.readEvent(sessionId, seq);
  }
  head(sessionId: string): Promise<LogHead | undefined> {
    return this.inner.head(sessionId);
  }
  listSessions(): Promise<StoredSession[]> {
    return this.inner.listSessions();
  }
  acquireOwnership(sessionId: string): Promise<Ownership> {
    return this.inner.acquireOwnership(sessionId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function open(file: string, gcEveryPages: number): Promise<OpenResult> {
  let start = clock();
  const inner = await openSqliteStore(file);
  const openStoreMs = elapsedMs(start);
  const store = new SamplingStore(inner, gcEveryPages);
  collectGarbage();
  const baseline = sample();
  start = clock();
  const log = await SessionLog.open(store, SESSION_ID);
  const openMs = elapsedMs(start);
  if (gcEveryPages === 0) store.record();
  collectGarbage();
  const retained = sample();
  const result: OpenResult = {
    events: log.nextSeq,
    pages: store.pages,
    openStoreMs,
    openMs,
    baseline,
    peak: store.summary((values) => Math.max(...values)),
    median: store.summary(median),
    retained,
    maxRss: process.resourceUsage().maxRSS * 1024,
    surfaceNodes: log.fold.size,
    surfaceBytes: surfaceBytes(log.fold),
    gcEveryPages,
  };
  await store.close();
  return result;
}

async function main(args: readonly string[]): Promise<void> {
  const [mode, file, count] = args;
  if (file === undefined || (mode !== 'build' && mode !== 'open')) {
    throw new Error('usage: sqlite-open-child.ts build <file> <events> | open <file> [<gc-every-pages>]');
  }
  if (typeof (globalThis as { gc?: unknown }).gc !== 'function') throw new Error('run with node --expose-gc');
  const result = mode === 'build' ? await build(file, Number(count)) : await open(file, Number(count ?? 0));
  process.stdout.write(`${JSON.stringify(result satisfies BuildResult | OpenResult as unknown as Figures)}\n`);
}

await main(process.argv.slice(2));
