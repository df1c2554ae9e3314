// The follower's promise, run against each backend: followSession on one store handle sees what
// another handle appends, within a bounded time, in seq order, each event once; it starts where
// it is told, and stops when aborted or when the caller stops iterating.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionNotFoundError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { followSession } from '../../src/store/follow.js';
import type { LogStore } from '../../src/store/log-store.js';
import { drafts, sealLog } from '../support/events.js';

export interface FollowHarness {
  /** The store the follower reads. */
  readonly follower: LogStore;
  /** Another handle on the same events (another connection, pool or file handle), which appends. */
  readonly writer: LogStore;
  /** The pollMs to follow with: a long one where the store's watch must do the waking. */
  readonly pollMs: number;
  cleanup(): Promise<void>;
}

/** How long an append may take to reach a follower before the test fails. */
export const FOLLOW_BOUND_MS = 3_000;

/** A valid session of `count` events: start, system, then user messages. */
export function followLog(count: number): LogEvent[] {
  return sealLog([drafts.start(), drafts.system(), ...Array.from({ length: count - 2 }, (_, index) => drafts.user(`message ${index}`))]);
}

/** Runs a follower in the background, collecting what it yields. */
export function collect(store: LogStore, sessionId: string, options: Parameters<typeof followSession>[2] = {}) {
  const controller = new AbortController();
  const seen: LogEvent[] = [];
  const arrivals: number[] = [];
  const done = (async () => {
    for await (const page of followSession(store, sessionId, { signal: controller.signal, ...options })) {
      for (const event of page) {
        seen.push(event);
        arrivals.push(Date.now());
      }
    }
  })();
  /** Resolves once the follower has yielded every seq below `nextSeq`; fails after FOLLOW_BOUND_MS. */
  const reach = async (nextSeq: number): Promise<number> => {
    const started = Date.now();
    while (seen.length < nextSeq) {
      if (Date.now() - started > FOLLOW_BOUND_MS) {
        throw new Error(`the follower saw ${seen.length} events, not ${nextSeq}, within ${FOLLOW_BOUND_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return Date.now() - started;
  };
  return { controller, seen, arrivals, done, reach };
}

export function describeFollowContract(name: string, createHarness: () => Promise<FollowHarness>): void {
  describe(`followSession: ${name}`, () => {
    let harness: FollowHarness;
    const events = followLog(40);

    beforeEach(async () => {
      harness = await createHarness();
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('yields what is stored, then each batch another handle appends, in order, once each, within a bounded time', async () => {
      const { follower, writer, pollMs } = harness;
      await writer.append('s1', events.slice(0, 5), { expectedSeq: 0 });
      const run = collect(follower, 's1', { pollMs });
      await run.reach(5);
      let next = 5;
      for (const size of [1, 3, 1, 7, 2, 1, 10, 1, 4, 1]) {
        await writer.append('s1', events.slice(next, next + size), { expectedSeq: next });
        next += size;
        expect(await run.reach(next)).toBeLessThan(FOLLOW_BOUND_MS);
      }
      // A batch written as one transaction through appendAll arrives too.
      async function* rest() {
        yield events.slice(next, next + 2);
        yield events.slice(next + 2);
      }
      await writer.appendAll('s1', rest(), { expectedSeq: next });
      await run.reach(events.length);
      run.controller.abort();
      await run.done;
      expect(run.seen.map((event) => event.seq)).toEqual(events.map((event) => event.seq));
      expect(run.seen).toEqual(events);
    });

    it('starts at fromSeq, and waits for a seq not stored yet', async () => {
      const { follower, writer, pollMs } = harness;
      await writer.append('s1', events.slice(0, 10), { expectedSeq: 0 });
      const early = collect(follower, 's1', { pollMs, fromSeq: 7 });
      const ahead = collect(follower, 's1', { pollMs, fromSeq: 12 });
      await early.reach(3);
      await writer.append('s1', events.slice(10, 14), { expectedSeq: 10 });
      await early.reach(7);
      await ahead.reach(2);
      for (const run of [early, ahead]) {
        run.controller.abort();
        await run.done;
      }
      expect(early.seen.map((event) => event.seq)).toEqual([7, 8, 9, 10, 11, 12, 13]);
      expect(ahead.seen.map((event) => event.seq)).toEqual([12, 13]);
    });

    it('ends promptly when aborted while it waits, and yields nothing when aborted before it starts', async () => {
      const { follower, writer, pollMs } = harness;
      await writer.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      const run = collect(follower, 's1', { pollMs });
      await run.reach(3);
      const aborted = Date.now();
      run.controller.abort();
      await run.done;
      expect(Date.now() - aborted).toBeLessThan(1_000);
      const before = new AbortController();
      before.abort();
      const pages: unknown[] = [];
      for await (const page of followSession(follower, 's1', { pollMs, signal: before.signal })) pages.push(page);
      expect(pages).toEqual([]);
    });

    it('lets the caller stop by leaving the loop, and follows again afterwards', async () => {
      const { follower, writer, pollMs } = harness;
      await writer.append('s1', events.slice(0, 6), { expectedSeq: 0 });
      for (let round = 0; round < 2; round++) {
        const seen: number[] = [];
        for await (const page of followSession(follower, 's1', { pollMs, pageSize: 2 })) {
          seen.push(...page.map((event) => event.seq));
          if (seen.length >= 4) break;
        }
        expect(seen).toEqual([0, 1, 2, 3]);
      }
    });

    it('refuses a session that does not exist', async () => {
      const follower = followSession(harness.follower, 'nobody', { pollMs: harness.pollMs });
      await expect(follower.next()).rejects.toBeInstanceOf(SessionNotFoundError);
    });
  });
}
