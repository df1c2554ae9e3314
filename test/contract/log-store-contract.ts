// The one test suite every LogStore backend passes (SPEC §11). A backend's spec file calls
// describeLogStoreContract with a factory; nothing here knows which backend it is testing. What
// needs more than the LogStore interface comes through hooks the backend provides: a second
// handle on the same data, raw access to the stored form (to read it, or damage it past the
// append-only guard), and an owner in another process. A backend without a stored form or
// without other processes (the memory store) says so in its features, and those cases are
// reported as skipped for it.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import {
  ConcurrencyError,
  CorruptLogError,
  InvalidSessionIdError,
  SeqOutOfRangeError,
  SessionBusyError,
  SessionNotFoundError,
  ShadowlogError,
} from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import type { LogStore, Ownership } from '../../src/store/log-store.js';
import type { Child } from '../support/child-process.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';
import { pausedBatches } from '../support/paused-batches.js';

/** One stored event as the backend keeps it. */
export interface StoredRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly hash: string;
  readonly body: string;
}

export interface StoreHarness {
  /** The store under test. */
  readonly store: LogStore;
  /** A second, independent handle on the same data (another connection, another file handle). */
  openSecond(): Promise<LogStore>;
  cleanup(): Promise<void>;
  /** With `storedForm`: a session's rows as stored, in seq order, read past the store. */
  storedRows?(sessionId: string): Promise<StoredRow[]>;
  /** With `storedForm`: overwrites one event's stored body with `body`, the append-only guard bypassed. */
  damageBody?(sessionId: string, seq: number, body: string): Promise<void>;
  /** With `processes`: another process that claims the session and then holds it, or releases it and exits. */
  startOwner?(sessionId: string, mode: 'hold' | 'release'): Child;
  /** With `processes`: claims the session, retrying while it is busy until the backend has seen a dead owner go. */
  claimOnceFree?(store: LogStore, sessionId: string): Promise<Ownership>;
  /** With `processes`: how a busy claim names an owner in the process `pid`. */
  ownerPattern?(pid: number): RegExp;
}

/** What a backend promises beyond the interface; each turns on the cases that test it. */
export interface ContractFeatures {
  /** Events live in a stored form raw access can read and damage (not the memory store). */
  readonly storedForm?: boolean;
  /** close() ends the store: later calls are refused with STORE_CLOSED, and its claims are released. */
  readonly closes?: boolean;
  /** A session can be owned from another process. */
  readonly processes?: boolean;
}

function hook<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`the harness declares the feature but provides no ${name}`);
  return value;
}

async function readAll(store: LogStore, sessionId: string, range = {}): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId, range)) out.push(...page);
  return out;
}

export function describeLogStoreContract(name: string, createHarness: () => Promise<StoreHarness>, features: ContractFeatures = {}): void {
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

    it('lists sessions in code-unit order, with their first and last event times', async () => {
      const timed = sealLog(sampleDrafts().map((draft, index) => ({ ...draft, time: `2026-02-01T00:00:0${index}.000Z` })));
      await store.append('a-lower', timed, { expectedSeq: 0 });
      await store.append('B-upper', timed.slice(0, 2), { expectedSeq: 0 });
      expect(await store.listSessions()).toEqual([
        { id: 'B-upper', events: 2, createdAt: '2026-02-01T00:00:00.000Z', updatedAt: '2026-02-01T00:00:01.000Z' },
        { id: 'a-lower', events: timed.length, createdAt: '2026-02-01T00:00:00.000Z', updatedAt: timed.at(-1)?.time },
      ]);
    });

    it('refuses a single event that does not take the next seq with ConcurrencyError, naming the seq it found', async () => {
      await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      for (const seq of [1, 5]) {
        const error = await store.append('s1', events.slice(seq, seq + 1), { expectedSeq: seq }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConcurrencyError);
        expect(error).toMatchObject({ sessionId: 's1', expected: seq, actual: 3 });
      }
      // An empty batch writes nothing, but its expected seq is checked all the same.
      await expect(store.append('s1', [], { expectedSeq: 2 })).rejects.toMatchObject({ expected: 2, actual: 3 });
      await store.append('s1', [], { expectedSeq: 3 });
      await store.append('s1', events.slice(3, 4), { expectedSeq: 3 });
      expect((await store.head('s1'))?.nextSeq).toBe(4);
    });

    it('appendAll refuses a stale expected seq and a batch out of order, storing nothing of it', async () => {
      await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      async function* from(batches: LogEvent[][]) {
        yield* batches;
      }
      await expect(store.appendAll('s1', from([events.slice(0, 2)]), { expectedSeq: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
      const outOfOrder = [events.slice(2, 4), events.slice(5)];
      await expect(store.appendAll('s1', from(outOfOrder), { expectedSeq: 2 })).rejects.toBeInstanceOf(ShadowlogError);
      expect((await store.head('s1'))?.nextSeq).toBe(2);
      expect(await store.appendAll('s1', from([events.slice(2, 4), [], events.slice(4)]), { expectedSeq: 2 })).toBe(events.length - 2);
      expect(await readAll(store, 's1')).toEqual(events);
    });

    it('lets other calls on the same store and other handles go on while appendAll reads its stream, showing none of it until it commits', async () => {
      const second = await harness.openSecond();
      try {
        const paused = pausedBatches(events);
        const importing = store.appendAll('imported', paused.source, { expectedSeq: 0 });
        await paused.firstBatchTaken;
        // Not joined to the import: it lands on its own, and the other handle sees it at once.
        await store.append('other', events.slice(0, 1), { expectedSeq: 0 });
        expect((await second.head('other'))?.nextSeq).toBe(1);
        expect(await store.head('imported')).toBeUndefined();
        expect(await second.head('imported')).toBeUndefined();
        expect((await second.listSessions()).map((session) => session.id)).toEqual(['other']);
        paused.finish();
        expect(await importing).toBe(events.length);
        expect(await store.head('imported')).toEqual({ nextSeq: events.length, lastHash: events.at(-1)?.hash });
        expect(await readAll(second, 'imported')).toEqual(events);
        // An import that fails after other calls went on takes none of them with it.
        const failing = pausedBatches([...events.slice(0, 3), events[5] as LogEvent]);
        const refused = store.appendAll('refused', failing.source, { expectedSeq: 0 }).catch((caught: unknown) => caught);
        await failing.firstBatchTaken;
        await store.append('other', events.slice(1, 2), { expectedSeq: 1 });
        failing.finish();
        expect(await refused).toBeInstanceOf(ShadowlogError);
        expect(await second.head('refused')).toBeUndefined();
        expect((await second.head('other'))?.nextSeq).toBe(2);
      } finally {
        await second.close();
      }
    });

    it.runIf(features.storedForm === true)(
      'stores each event as the canonical JSON text of the whole event, hash included, byte for byte',
      async () => {
        const awkward = sealLog([
          ...sampleDrafts(),
          drafts.user('quotes " and \\ backslashes, a tab\t, a NUL \u0000, é, 日本, 🎉, and a lone \ud800 surrogate'),
        ]);
        await store.append('s1', awkward.slice(0, 1), { expectedSeq: 0 });
        await store.append('s1', awkward.slice(1), { expectedSeq: 1 });
        expect(await hook(harness.storedRows, 'storedRows')('s1')).toEqual(
          awkward.map((event) => ({ sessionId: 's1', seq: event.seq, type: event.type, hash: event.hash, body: canonicalJson(event) })),
        );
        expect(await readAll(store, 's1')).toEqual(awkward);
        expect(await store.listSessions()).toEqual([
          { id: 's1', events: awkward.length, createdAt: awkward[0]?.time, updatedAt: awkward.at(-1)?.time },
        ]);
      },
    );

    it.runIf(features.storedForm === true)('reports a damaged stored event as a CorruptLogError naming its seq', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      await hook(harness.damageBody, 'damageBody')('s1', 2, 'not json');
      await expect(store.readEvent('s1', 2)).rejects.toMatchObject({ code: 'CORRUPT_LOG', seq: 2 });
      await expect(readAll(store, 's1')).rejects.toBeInstanceOf(CorruptLogError);
    });

    it.runIf(features.closes === true)('refuses every use after close with STORE_CLOSED, and closes twice without complaint', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      await store.close();
      expect(await store.close().catch((caught: unknown) => caught)).toBeUndefined();
      const calls = [
        () => store.append('s1', events.slice(0, 1), { expectedSeq: 0 }),
        () => store.appendAll('s1', (async function* () {})(), { expectedSeq: 0 }),
        () => store.head('s1'),
        () => store.readEvent('s1', 0),
        () => store.listSessions(),
        () => store.acquireOwnership('s1'),
        () => store.read('s1')[Symbol.asyncIterator]().next(),
      ];
      for (const call of calls) await expect(call()).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    });

    it.runIf(features.closes === true)(
      'releases the claims made through it when it closes, and release() after that does nothing',
      async () => {
        await store.acquireOwnership('s1');
        const ownership = await store.acquireOwnership('s2');
        await store.close();
        await ownership.release();
        const other = await harness.openSecond();
        await (await other.acquireOwnership('s1')).release();
        await (await other.acquireOwnership('s2')).release();
      },
    );

    it.runIf(features.processes === true)('is held by a live owner in another process, which a SIGKILL frees', async () => {
      await store.append('s1', events, { expectedSeq: 0 });
      const child = hook(harness.startOwner, 'startOwner')('s1', 'hold');
      await child.waitFor('owned');
      const error = await store.acquireOwnership('s1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionBusyError);
      expect((error as SessionBusyError).owner).toMatch(hook(harness.ownerPattern, 'ownerPattern')(child.process.pid as number));
      // Readers need no ownership.
      expect(await readAll(store, 's1')).toEqual(events);
      child.process.kill('SIGKILL');
      expect(await child.exited).toMatchObject({ signal: 'SIGKILL' });
      const ownership = await hook(harness.claimOnceFree, 'claimOnceFree')(store, 's1');
      expect(ownership.owner).toMatch(new RegExp(`^pid ${process.pid} on host `));
      await ownership.release();
    });

    it.runIf(features.processes === true)('is free after an owner in another process released it and exited', async () => {
      const child = hook(harness.startOwner, 'startOwner')('s1', 'release');
      await child.waitFor('released');
      expect(await child.exited).toMatchObject({ code: 0 });
      await (await store.acquireOwnership('s1')).release();
    });
  });
}
