// The long and short synthetic sessions the open-checkpoint and open-harness benchmarks open:
// both compacted at the same rate, so a 1,000,000-event session's surface is as large as a
// 10,000-event one's, and what opening them costs can be set side by side.

import type { LogEvent } from '../src/log/event.js';
import type { LogStore } from '../src/store/log-store.js';
import { clock, elapsedMs, formatCount, formatMs, formatRatio, median } from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

export const FULL = { small: 10_000, large: 1_000_000, repeats: 7 };
export const QUICK = { small: 10_000, large: 100_000, repeats: 3 };
export type Sizes = typeof FULL;
/** A compaction every this many events, keeping this many nodes at the tail: a surface of a few hundred nodes. */
export const SESSION = { replaceEvery: 1000, keepRecentNodes: 200 };
const BUILD_BATCH = 10_000;

export interface Built {
  readonly sessionId: string;
  readonly events: number;
  readonly surfaceNodes: number;
  /** Tool calls the session's answers made (their ids stay unique over the whole session). */
  readonly toolCalls: number;
  readonly buildMs: number;
}

/** Appends a synthetic compacted session of `events` sealed events to `store`, in batches. */
export async function buildCompactedSession(store: LogStore, sessionId: string, events: number): Promise<Built> {
  const stream = new SealedSessionStream(SESSION);
  let toolCalls = 0;
  const start = clock();
  for (let done = 0; done < events; done += BUILD_BATCH) {
    const batch: LogEvent[] = stream.take(Math.min(BUILD_BATCH, events - done));
    for (const event of batch) if (event.type === 'assistant/message') toolCalls += (event.data.toolCalls as unknown[]).length;
    await store.append(sessionId, batch, { expectedSeq: done });
  }
  return { sessionId, events, surfaceNodes: stream.fold.size, toolCalls, buildMs: elapsedMs(start) };
}

export async function medianOf(repeats: number, run: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let index = 0; index < repeats; index++) times.push(await run());
  return median(times);
}

export const OPEN_COLUMNS = ['how', 'events', 'surface nodes', 'time (median)', 'vs short, whole log'];

/** A row of an open table: how, the session's size, the time, and its ratio to the baseline. */
export function openRow(label: string, built: Built, ms: number, baselineMs: number): string[] {
  return [label, formatCount(built.events), formatCount(built.surfaceNodes), formatMs(ms), formatRatio(ms / baselineMs)];
}
