// The suite every store that keeps fold checkpoints (CheckpointStore) passes, through the API
// alone: keeping, listing, replacing and pruning checkpoints, reading events back by seq, and
// SessionLog.open over them — from the newest valid one to the fold a full walk gives, and past
// every one that is corrupt, foreign, stale or incompatible, each reported and none trusted.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidEventError, SeqOutOfRangeError, SessionNotFoundError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import type { CheckpointStore, LogStore, ReadRange } from '../../src/store/log-store.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { createTestRegistry, meteringRegistry } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

export interface CheckpointHarness {
  readonly store: LogStore & CheckpointStore;
  cleanup(): Promise<void>;
}

/** A random log sealed in its batches, under the clock `time`. */
function sealedBatches(seed: number, targetEvents: number, time = '2026-01-01T00:00:00.000Z'): LogEvent[][] {
  const log = buildRandomLog(seed, { targetEvents, formatVersion: 2 });
  const fold = new SurfaceFold({ registry: createTestRegistry() });
  return log.batches.map((batch: readonly EventDraft[]) => [...prepareAppend(fold, batch, () => time).events]);
}

async function store(target: LogStore, sessionId: string, batches: readonly LogEvent[][]): Promise<number> {
  let seq = 0;
  for (const batch of batches) {
    await target.append(sessionId, batch, { expectedSeq: seq });
    seq += batch.length;
  }
  return seq;
}

/** Everything a program sees of a fold, as one comparable value. */
function stateOf(log: SessionLog) {
  return {
    encoded: encodeFoldCheckpoint(log.sessionId, log.fold.snapshot()),
    nodes: log.fold.toArray().map((node) => node.event),
    pending: log.fold.pendingToolCalls(),
  };
}

/** Passes everything on, counting the events read through read(). */
class CountingStore implements LogStore, CheckpointStore {
  eventsRead = 0;
  constructor(private readonly inner: LogStore & CheckpointStore) {}
  get location() {
    return this.inner.location;
  }
  async *read(sessionId: string, range?: ReadRange) {
    for await (const page of this.inner.read(sessionId, range)) {
      this.eventsRead += page.length;
      yield page;
    }
  }
  append: LogStore['append'] = (...args) => this.inner.append(...args);
  appendAll: LogStore['appendAll'] = (...args) => this.inner.appendAll(...args);
  readEvent: LogStore['readEvent'] = (...args) => this.inner.readEvent(...args);
  head: LogStore['head'] = (...args) => this.inner.head(...args);
  listSessions: LogStore['listSessions'] = () => this.inner.listSessions();
  acquireOwnership: LogStore['acquireOwnership'] = (...args) => this.inner.acquireOwnership(...args);
  close: LogStore['close'] = () => this.inner.close();
  writeCheckpoint: CheckpointStore['writeCheckpoint'] = (...args) => this.inner.writeCheckpoint(...args);
  listCheckpoints: CheckpointStore['listCheckpoints'] = (...args) => this.inner.listCheckpoints(...args);
  readCheckpoint: CheckpointStore['readCheckpoint'] = (...args) => this.inner.readCheckpoint(...args);
  pruneCheckpoints: CheckpointStore['pruneCheckpoints'] = (...args) => this.inner.pruneCheckpoints(...args);
  readEventsAt: CheckpointStore['readEventsAt'] = (...args) => this.inner.readEventsAt(...args);
}

export function describeCheckpointContract(name: string, createHarness: () => Promise<CheckpointHarness>): void {
  describe(`CheckpointStore contract: ${name}`, () => {
    let harness: CheckpointHarness;
    let target: LogStore & CheckpointStore;
    const registry = createTestRegistry;

    beforeEach(async () => {
      harness = await createHarness();
      target = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    /** Opens `sessionId` up to `toSeq`, reading the whole log, and writes its checkpoint there. */
    async function checkpointAt(sessionId: string, toSeq: number, on: LogStore = target) {
      const log = await SessionLog.open(on, sessionId, { toSeq, registry: registry(), checkpoints: false });
      return log.writeCheckpoint();
    }

    async function fullWalk(sessionId: string, toSeq?: number) {
      return SessionLog.open(target, sessionId, { registry: registry(), checkpoints: false, ...(toSeq === undefined ? {} : { toSeq }) });
    }

    it('keeps, lists newest first, replaces and prunes checkpoints, and reads events back by seq', async () => {
      const events = (await sealedBatches(3, 40)).flat();
      await target.append('s1', events, { expectedSeq: 0 });
      expect(await target.listCheckpoints('s1')).toEqual([]);
      expect(await target.readCheckpoint('s1', 5)).toBeUndefined();
      const digest = (text: string) => nodeSha256.hex(text);
      for (const seq of [5, 20, 10]) await target.writeCheckpoint('s1', { seq, digest: digest(`p${seq}`), payload: `p${seq}` });
      expect(await target.listCheckpoints('s1')).toEqual(
        [20, 10, 5].map((seq) => ({ seq, digest: digest(`p${seq}`), length: `p${seq}`.length })),
      );
      await target.writeCheckpoint('s1', { seq: 10, digest: digest('again'), payload: 'again' });
      expect(await target.readCheckpoint('s1', 10)).toEqual({ seq: 10, digest: digest('again'), payload: 'again' });
      expect(await target.pruneCheckpoints('s1', 2)).toBe(1);
      expect((await target.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([20, 10]);
      expect(await target.readEventsAt('s1', [7, 0, 39])).toEqual([events[7], events[0], events[39]]);
      await expect(target.readEventsAt('s1', [40])).rejects.toBeInstanceOf(SeqOutOfRangeError);
    });

    it('refuses a checkpoint of an unknown session, past the head or at 0, or with a malformed digest, keeping nothing', async () => {
      const events = (await sealedBatches(3, 10)).flat();
      await target.append('s1', events, { expectedSeq: 0 });
      const good = { digest: 'a'.repeat(64), payload: '{}' };
      await expect(target.writeCheckpoint('nobody', { seq: 1, ...good })).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(target.writeCheckpoint('s1', { seq: events.length + 1, ...good })).rejects.toBeInstanceOf(SeqOutOfRangeError);
      await expect(target.writeCheckpoint('s1', { seq: 0, ...good })).rejects.toBeInstanceOf(SeqOutOfRangeError);
      await expect(target.writeCheckpoint('s1', { seq: 2, digest: 'ABC', payload: '{}' })).rejects.toBeInstanceOf(InvalidEventError);
      expect(await target.listCheckpoints('s1')).toEqual([]);
    });

    it('opens from the newest valid checkpoint, reading only the events after it, to the fold of the whole walk', async () => {
      for (const seed of [1, 2, 3, 4, 5, 6]) {
        const sessionId = `s${seed}`;
        const nextSeq = await store(target, sessionId, sealedBatches(seed, 80));
        const early = Math.max(1, Math.floor(nextSeq / 3));
        const late = Math.max(early + 1, nextSeq - 7);
        await checkpointAt(sessionId, early);
        await checkpointAt(sessionId, late);
        const counting = new CountingStore(target);
        const opened = await SessionLog.open(counting, sessionId, { registry: registry() });
        expect(opened.checkpointReport).toEqual({ restoredFrom: late, ignored: [] });
        expect(counting.eventsRead).toBe(nextSeq - late);
        expect(stateOf(opened)).toEqual(stateOf(await fullWalk(sessionId)));
        // Up to a position between the two: the older one.
        const between = Math.floor((early + late) / 2);
        const partial = await SessionLog.open(target, sessionId, { registry: registry(), toSeq: between });
        expect(partial.checkpointReport.restoredFrom).toBe(between >= late ? late : early);
        expect(stateOf(partial)).toEqual(stateOf(await fullWalk(sessionId, between)));
        // And the fold goes on from there as the walk's does: an append lands on both alike.
        const walked = await fullWalk(sessionId);
        expect(opened.nextSeq).toBe(walked.nextSeq);
      }
    });

    it('ignores a checkpoint whose payload does not match its digest (corrupt), reports it, and opens right from further back', async () => {
      const nextSeq = await store(target, 's1', sealedBatches(21, 60));
      await checkpointAt('s1', 20);
      const entry = await checkpointAt('s1', nextSeq - 5);
      const stored = await target.readCheckpoint('s1', entry.seq);
      await target.writeCheckpoint('s1', { seq: entry.seq, digest: entry.digest, payload: `${stored?.payload.slice(0, -1)} }` });
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport.restoredFrom).toBe(20);
      expect(opened.checkpointReport.ignored).toEqual([
        { seq: entry.seq, status: 'corrupt', reason: expect.stringMatching(/does not match the digest/) },
      ]);
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
    });

    it('ignores a checkpoint whose digest matches but whose state does not hold together (corrupt)', async () => {
      const batches = sealedBatches(22, 60);
      const events = batches.flat();
      await store(target, 's1', batches);
      const entry = await checkpointAt('s1', events.length);
      const payload = JSON.parse((await target.readCheckpoint('s1', entry.seq))?.payload as string) as { nodes: number[] };
      const logOnly = events.find((event) => event.type === 'model/request') as LogEvent;
      const damaged = JSON.stringify({ ...payload, nodes: [...payload.nodes, logOnly.seq] });
      await target.writeCheckpoint('s1', { seq: entry.seq, digest: nodeSha256.hex(damaged), payload: damaged });
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport).toMatchObject({ restoredFrom: undefined, ignored: [{ seq: entry.seq, status: 'corrupt' }] });
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
    });

    it('ignores a checkpoint of another session (foreign), whether it names another id or another history under the same id', async () => {
      const nextSeq = await store(target, 's1', sealedBatches(31, 50));
      await store(target, 's2', sealedBatches(32, 50));
      // Another session's checkpoint, written under s1.
      const other = await checkpointAt('s2', 30);
      const copied = await target.readCheckpoint('s2', other.seq);
      await target.writeCheckpoint('s1', copied as NonNullable<typeof copied>);
      // The same id in another store with another history (another clock, so another event 0).
      const elsewhere = await SessionLog.create(target, 'elsewhere-s1', { now: () => '2027-01-01T00:00:00.000Z' });
      await elsewhere.append([{ type: 'user/message', data: { content: [{ type: 'text', text: 'hello' }] }, surfaceOp: 'append' }]);
      const elsewherePayload = encodeFoldCheckpoint('s1', elsewhere.fold.snapshot());
      await target.writeCheckpoint('s1', { seq: 2, digest: nodeSha256.hex(elsewherePayload), payload: elsewherePayload });
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport).toEqual({
        restoredFrom: undefined,
        ignored: [
          { seq: 30, status: 'foreign', reason: expect.stringMatching(/session "s2"/) },
          { seq: 2, status: 'foreign', reason: expect.stringMatching(/event 0/) },
        ],
      });
      expect(opened.nextSeq).toBe(nextSeq);
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
    });

    it('ignores a checkpoint taken of a history the log does not hold at its seq (stale)', async () => {
      await store(target, 's1', sealedBatches(41, 50));
      const entry = await checkpointAt('s1', 30);
      const payload = JSON.parse((await target.readCheckpoint('s1', entry.seq))?.payload as string) as { headHash: string };
      const stale = JSON.stringify({ ...payload, headHash: 'e'.repeat(64) });
      await target.writeCheckpoint('s1', { seq: entry.seq, digest: nodeSha256.hex(stale), payload: stale });
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport).toEqual({
        restoredFrom: undefined,
        ignored: [{ seq: 30, status: 'stale', reason: expect.stringMatching(/event 29 with hash eeeeeeeeeeee…/) }],
      });
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
    });

    it('ignores a checkpoint folded under event types this reader knows otherwise (incompatible)', async () => {
      const batches = sealedBatches(51, 80);
      expect(batches.flat().some((event) => event.type === 'compaction/summary' || event.type === 'compaction/prune')).toBe(true);
      await store(target, 's1', batches);
      await checkpointAt('s1', 60);
      const opened = await SessionLog.open(target, 's1', { registry: meteringRegistry() });
      expect(opened.checkpointReport).toMatchObject({ restoredFrom: undefined, ignored: [{ seq: 60, status: 'incompatible' }] });
      const walked = await SessionLog.open(target, 's1', { registry: meteringRegistry(), checkpoints: false });
      expect(stateOf(opened)).toEqual(stateOf(walked));
    });

    it('has the writer leave a checkpoint every checkpointEvery events, keeping the newest three, and none with checkpoints off', async () => {
      const log = await SessionLog.create(target, 's1', { checkpointEvery: 5 });
      const message = { type: 'user/message', data: { content: [{ type: 'text', text: 'x' }] }, surfaceOp: 'append' } as const;
      for (let index = 0; index < 23; index++) await log.append([message]);
      expect((await target.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([20, 15, 10]);
      expect(log.checkpointWriteError).toBeUndefined();
      const off = await SessionLog.create(target, 's2', { checkpoints: false, checkpointEvery: 5 });
      for (let index = 0; index < 12; index++) await off.append([message]);
      expect(await target.listCheckpoints('s2')).toEqual([]);
      const reopened = await SessionLog.open(target, 's1');
      expect(reopened.checkpointReport.restoredFrom).toBe(20);
      expect(stateOf(reopened)).toEqual(stateOf(await SessionLog.open(target, 's1', { checkpoints: false })));
      // An observer is promised every event: its open reads the whole log.
      const seen: number[] = [];
      const observed = await SessionLog.open(target, 's1', { observe: (event) => seen.push(event.seq) });
      expect(observed.checkpointReport.restoredFrom).toBeUndefined();
      expect(seen).toHaveLength(24);
    });
  });
}
