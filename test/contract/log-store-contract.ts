// The one test suite every LogStore backend passes (SPEC §11). A backend's spec file calls
// describeLogStoreContract with a factory; nothing here knows which backend it is testing.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConcurrencyError,
  InvalidSessionIdError,
  SeqOutOfRangeError,
  SessionBusyError,
  SessionNotFoundError,
  ShadowlogError,
} from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import type { LogStore } from '../../src/store/log-store.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';

export interface StoreHarness {
  /** The store under test. */
  readonly store: LogStore;
  /** A second, independent handle on the same data (another connection, another file handle). */
  openSecond(): Promise<LogStore>;
  cleanup(): Promise<void>;
}

async function readAll(store: LogStore, sessionId: string, range = {}): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId, range)) out.push(...page);
  return out;
}

export function describeLogStoreContract(name: string, createHarness: () => Promise<StoreHarness>): void {
  describe(`LogStore contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: LogStore;
    const events = sealLog(sampleDrafts());

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('has no head for a session that does not exist', async () => {
      expect(await store.head('nobody')).toBeUndefined();
      await expect(store.readEvent('nobody', 0)).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(readAll(store, 'nobody')).rejects.toBeInstanceOf(SessionNotFoundError);
    });

    it('creates a session with the append at seq 0 and reads it back unchanged', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      const last = events[events.length - 1] as LogEvent;
      expect(await store.head('s1')).toEqual({ nextSeq: events.length, lastHash: last.hash });
      expect(await readAll(store, 's1')).toEqual(events);
      expect(await store.readEvent('s1', 3)).toEqual(events[3]);
    });

    it('reads by range, a page at a time', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      const pages: number[][] = [];
      for await (const page of store.read('s1', { fromSeq: 1, toSeq: 6, pageSize: 2 })) pages.push(page.map((event) => event.seq));
      expect(pages).toEqual([[1, 2], [3, 4], [5]]);
      expect(await readAll(store, 's1', { fromSeq: events.length })).toEqual([]);
      await expect(store.readEvent('s1', events.length)).rejects.toBeInstanceOf(SeqOutOfRangeError);
    });

    it('appends in several batches, each carrying the expected next seq', async () => {
      await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      await store.append('s1', events.slice(3), { expectedSeq: 3 });
      expect(await readAll(store, 's1')).toEqual(events);
    });

    it('refuses a stale expected seq with ConcurrencyError and writes nothing', async () => {
      await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      const error = await store.append('s1', events.slice(2), { expectedSeq: 2 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ sessionId: 's1', expected: 2, actual: 3, code: 'CONCURRENCY' });
      await expect(store.append('s1', events.slice(4), { expectedSeq: 4 })).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await store.head('s1'))?.nextSeq).toBe(3);
      await expect(store.append('s1', events, { expectedSeq: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
    });

    it('refuses a batch whose seqs do not run densely from the expected seq, writing nothing', async () => {
      const gap = [events[0], events[2]] as LogEvent[];
      await expect(store.append('s1', gap, { expectedSeq: 0 })).rejects.toBeInstanceOf(ShadowlogError);
      expect(await store.head('s1')).toBeUndefined();
    });

    it('refuses an unsafe session id before touching storage', async () => {
      for (const bad of ['', '../etc/passwd', "x'; DROP TABLE events; --", 'a b', '.hidden', 'x'.repeat(129), 'é']) {
        await expect(store.append(bad, events, { expectedSeq: 0 })).rejects.toBeInstanceOf(InvalidSessionIdError);
        await expect(store.head(bad)).rejects.toBeInstanceOf(InvalidSessionIdError);
        await expect(store.acquireOwnership(bad)).rejects.toBeInstanceOf(InvalidSessionIdError);
      }
      expect(await store.listSessions()).toEqual([]);
    });

    it('lets exactly one of two racing appends land', async () => {
      const second = await harness.openSecond();
      try {
        await store.append('race', events.slice(0, 2), { expectedSeq: 0 });
        const mine = sealLog([...sampleDrafts().slice(0, 2), drafts.user('from the first writer')]).slice(2);
        const theirs = sealLog([...sampleDrafts().slice(0, 2), drafts.user('from the second writer')]).slice(2);
        const results = await Promise.allSettled([
          store.append('race', mine, { expectedSeq: 2 }),
          second.append('race', theirs, { expectedSeq: 2 }),
        ]);
        const landed = results.filter((result) => result.status === 'fulfilled');
        const refused = results.filter((result) => result.status === 'rejected');
        expect(landed).toHaveLength(1);
        expect(refused).toHaveLength(1);
        expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
        const stored = await readAll(store, 'race');
        expect(stored).toHaveLength(3);
        const winner = results[0]?.status === 'fulfilled' ? mine : theirs;
        expect(stored[2]).toEqual(winner[0]);
      } finally {
        await second.close();
      }
    });

    it('appends a stream of batches as one transaction, or nothing when the stream fails', async () => {
      async function* batches(failAfter?: number) {
        for (let from = 0; from < events.length; from += 2) {
          if (failAfter !== undefined && from >= failAfter) throw new Error('source failed');
          yield events.slice(from, from + 2);
        }
      }
      await expect(store.appendAll('s2', batches(4), { expectedSeq: 0 })).rejects.toThrow('source failed');
      expect(await store.head('s2')).toBeUndefined();
      expect(await store.appendAll('s2', batches(), { expectedSeq: 0 })).toBe(events.length);
      expect(await readAll(store, 's2')).toEqual(events);
    });

    it('lists sessions in byte order of their ids, with their event counts and times', async () => {
      await store.append('b-session', events, { expectedSeq: 0 });
      await store.append('a-session', events.slice(0, 2), { expectedSeq: 0 });
      await store.append('C-session', events.slice(0, 1), { expectedSeq: 0 });
      const listed = await store.listSessions();
      expect(listed.map((session) => [session.id, session.events])).toEqual([
        ['C-session', 1],
        ['a-session', 2],
        ['b-session', events.length],
      ]);
      expect(listed[1]).toMatchObject({ createdAt: events[0]?.time, updatedAt: events[1]?.time });
    });

    it('refuses a read range that makes no sense', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      for (const range of [{ pageSize: 0 }, { fromSeq: -1 }, { toSeq: 1.5 }]) {
        await expect(readAll(store, 's1', range)).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
      }
    });

    it('refuses a stream of batches at a stale expected seq, writing nothing', async () => {
      await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      async function* rest() {
        yield events.slice(2);
      }
      await expect(store.appendAll('s1', rest(), { expectedSeq: 2 })).rejects.toBeInstanceOf(ShadowlogError);
      expect((await store.head('s1'))?.nextSeq).toBe(3);
    });

    it('keeps stored events safe from changes to the objects that were appended or read', async () => {
      const copy = structuredClone(events);
      await store.append('s1', copy, { expectedSeq: 0 });
      (copy[3]?.data as { content: unknown[] }).content = [];
      const read = await store.readEvent('s1', 3);
      try {
        (read.data as { content: unknown[] }).content = [];
      } catch {
        // a frozen event refuses the change, which is as good
      }
      expect(await store.readEvent('s1', 3)).toEqual(events[3]);
    });

    it('grants ownership to one claimant at a time, and not to readers', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      const ownership = await store.acquireOwnership('s1');
      const second = await harness.openSecond();
      try {
        await expect(store.acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
        await expect(second.acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
        expect(await readAll(second, 's1')).toEqual(events);
        await ownership.release();
        const next = await second.acquireOwnership('s1');
        await next.release();
      } finally {
        await second.close();
      }
    });
  });
}
