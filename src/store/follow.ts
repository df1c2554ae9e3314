// Following a live session: its events as they land, in seq order, each exactly once. A store
// that can watch a session (PostgreSQL: LISTEN/NOTIFY) wakes the follower; any other (SQLite,
// memory) is polled by its head. Either way the events are read from the store by seq range,
// so what a follower yields is always what the store holds.
//
//   for await (const events of followSession(store, 'session-1', { signal })) print(events);

import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError, CorruptLogError, SessionNotFoundError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { assertSessionId } from '../log/session-id.js';
import type { LogStore } from './log-store.js';

export const DEFAULT_POLL_MS = 200;

export interface FollowOptions {
  /** The first seq to yield (default 0: the whole session, then what lands). */
  readonly fromSeq?: number;
  /** Stops the follower: the iteration then ends without an error. */
  readonly signal?: AbortSignal;
  /** How often to look at the head of a store that cannot watch, in milliseconds (default 200). */
  readonly pollMs?: number;
  /** Use the store's watch() when it has one (default true); false polls every store. */
  readonly watch?: boolean;
  /** Events per read (default: the store's page size). */
  readonly pageSize?: number;
  /** Told when the store's watch failed; the follower polls from then on. */
  readonly onWatchLost?: (error: unknown) => void;
}

/**
 * Yields the session's events from `fromSeq` on, a page at a time, first those already stored,
 * then each batch as it lands, until `signal` aborts (or the caller stops iterating). Throws
 * SessionNotFoundError when there is no such session, and whatever the store throws on a read.
 */
export async function* followSession(store: LogStore, sessionId: string, options: FollowOptions = {}): AsyncGenerator<readonly LogEvent[]> {
  assertSessionId(sessionId);
  const fromSeq = wholeNumber('fromSeq', options.fromSeq ?? 0, 0);
  const pollMs = wholeNumber('pollMs', options.pollMs ?? DEFAULT_POLL_MS, 1);
  const signal = options.signal ?? new AbortController().signal;
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  let nextSeq = fromSeq;
  for await (const _ of wakeUps(store, sessionId, signal, pollMs, options)) {
    if (signal.aborted) return;
    const range = options.pageSize === undefined ? { fromSeq: nextSeq } : { fromSeq: nextSeq, pageSize: options.pageSize };
    for await (const page of store.read(sessionId, range)) {
      page.forEach((event, index) => {
        if (event.seq !== nextSeq + index) {
          throw new CorruptLogError(`following session ${sessionId}: expected event seq ${nextSeq + index}, the store gave ${event.seq}`, {
            seq: event.seq,
          });
        }
      });
      if (page.length === 0) continue;
      nextSeq += page.length;
      yield page;
      if (signal.aborted) return;
    }
  }
}

/**
 * When to look for new events: at once, then on each wake-up of the store's watch, or every
 * `pollMs` without one (or after the watch failed). Ends when `signal` aborts.
 */
async function* wakeUps(
  store: LogStore,
  sessionId: string,
  signal: AbortSignal,
  pollMs: number,
  options: FollowOptions,
): AsyncGenerator<void> {
  if (store.watch !== undefined && options.watch !== false) {
    try {
      // The watch's first value comes once it is in place: reading after it misses nothing.
      for await (const _ of store.watch(sessionId, signal)) yield;
      if (signal.aborted) return;
    } catch (error) {
      if (signal.aborted) return;
      options.onWatchLost?.(error);
    }
  }
  for (;;) {
    if (signal.aborted) return;
    yield;
    try {
      await sleep(pollMs, undefined, { signal });
    } catch {
      return;
    }
  }
}

function wholeNumber(key: string, value: number, minimum: number): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new ConfigError(key, `${key} must be a whole number of at least ${minimum}, found ${String(value)}`);
  }
  return value;
}
