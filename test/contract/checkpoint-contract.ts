// The suite every store that keeps fold checkpoints (CheckpointStore) passes, through the API
// alone: keeping, listing and pruning checkpoints (append-only: never replaced, the newest never
// pruned), reading events back by seq, and SessionLog.open over them — from the newest proven one
// to the fold a full walk gives, and past every one that is unproven (not MACed under this
// process's key), corrupt, foreign, stale or incompatible, each reported and none trusted.

import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, InvalidEventError, SeqOutOfRangeError, SessionNotFoundError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { CheckpointExistsError } from '../../src/store/checkpoint-errors.js';
import { CHECKPOINT_KEY_FILE_VARIABLE, checkpointDigest, createCheckpointKey } from '../../src/store/checkpoint-key.js';
import type { CheckpointStore, LogStore, ReadRange } from '../../src/store/log-store.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import { keyedCheckpoint, testCheckpointKey } from '../support/checkpoint-tamper.js';
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

    /** The payload a checkpoint of `sessionId` at `toSeq` holds, from a walk of the log, without writing it. */
    async function payloadAt(sessionId: string, toSeq: number): Promise<string> {
      return encodeFoldCheckpoint(sessionId, (await fullWalk(sessionId, toSeq)).fold.snapshot());
    }

    it('keeps and lists checkpoints newest first, never replaces one, prunes all but the newest, and reads events back by seq', async () => {
      const events = (await sealedBatches(3, 40)).flat();
      await target.append('s1', events, { expectedSeq: 0 });
      expect(await target.listCheckpoints('s1')).toEqual([]);
      expect(await target.readCheckpoint('s1', 5)).toBeUndefined();
      const key = testCheckpointKey();
      const digest = (text: string) => checkpointDigest(key, text);
      for (const seq of [5, 20, 10]) await target.writeCheckpoint('s1', { seq, digest: digest(`p${seq}`), payload: `p${seq}` });
      expect(await target.listCheckpoints('s1')).toEqual(
        [20, 10, 5].map((seq) => ({ seq, digest: digest(`p${seq}`), length: `p${seq}`.length })),
      );
      // The same one again is a retry, and changes nothing; another at its seq is refused, the stored one kept.
      await target.writeCheckpoint('s1', { seq: 10, digest: digest('p10'), payload: 'p10' });
      const refused = await target.writeCheckpoint('s1', { seq: 10, digest: digest('again'), payload: 'again' }).catch((error) => error);
      expect(refused).toBeInstanceOf(CheckpointExistsError);
      expect(refused).toMatchObject({ code: 'CHECKPOINT_EXISTS', sessionId: 's1', seq: 10, storedDigest: digest('p10') });
      expect(await target.readCheckpoint('s1', 10)).toEqual({ seq: 10, digest: digest('p10'), payload: 'p10' });
      expect(await target.pruneCheckpoints('s1', 2)).toBe(1);
      expect((await target.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([20, 10]);
      // The newest is never pruned: keep is at least 1.
      await expect(target.pruneCheckpoints('s1', 0)).rejects.toBeInstanceOf(ConfigError);
      expect(await target.pruneCheckpoints('s1', 1)).toBe(1);
      expect((await target.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([20]);
      expect(await target.readEventsAt('s1', [7, 0, 39])).toEqual([events[7], events[0], events[39]]);
      await expect(target.readEventsAt('s1', [40])).rejects.toBeInstanceOf(SeqOutOfRangeError);
    });

    it('refuses a checkpoint of an unknown session, past the head or at 0, or with a digest not keyed, keeping nothing', async () => {
      const events = (await sealedBatches(3, 10)).flat();
      await target.append('s1', events, { expectedSeq: 0 });
      const good = { digest: `hmac-sha256:${'0'.repeat(16)}:${'a'.repeat(64)}`, payload: '{}' };
      await expect(target.writeCheckpoint('nobody', { seq: 1, ...good })).rejects.toBeInstanceOf(SessionNotFoundError);
      await expect(target.writeCheckpoint('s1', { seq: events.length + 1, ...good })).rejects.toBeInstanceOf(SeqOutOfRangeError);
      await expect(target.writeCheckpoint('s1', { seq: 0, ...good })).rejects.toBeInstanceOf(SeqOutOfRangeError);
      await expect(target.writeCheckpoint('s1', { seq: 2, digest: 'ABC', payload: '{}' })).rejects.toBeInstanceOf(InvalidEventError);
      // An unkeyed SHA-256, as checkpoints were stored before they were keyed.
      await expect(target.writeCheckpoint('s1', { seq: 2, digest: nodeSha256.hex('{}'), payload: '{}' })).rejects.toBeInstanceOf(
        InvalidEventError,
      );
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

    it('ignores a checkpoint whose payload does not match the MAC under this key (corrupt), and opens right from further back', async () => {
      const nextSeq = await store(target, 's1', sealedBatches(21, 60));
      await checkpointAt('s1', 20);
      const seq = nextSeq - 5;
      const genuine = await payloadAt('s1', seq);
      // The MAC of the genuine payload, stored with another one: changed after it was written.
      await target.writeCheckpoint('s1', { seq, digest: keyedCheckpoint(seq, genuine).digest, payload: `${genuine.slice(0, -1)} }` });
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport.restoredFrom).toBe(20);
      expect(opened.checkpointReport.ignored).toEqual([
        { seq, status: 'corrupt', reason: expect.stringMatching(/does not match the MAC written with it under this process's key/) },
      ]);
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
    });

    it("ignores a checkpoint not proven by this process's key (unproven): under another key, or with no key at all", async () => {
      const nextSeq = await store(target, 's1', sealedBatches(23, 60));
      await checkpointAt('s1', 20);
      // A well-formed checkpoint of the log's own fold, MACed under a key of someone else's.
      const other = createCheckpointKey(randomBytes(32));
      const seq = nextSeq - 5;
      await target.writeCheckpoint('s1', keyedCheckpoint(seq, await payloadAt('s1', seq), other));
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport).toEqual({
        restoredFrom: 20,
        ignored: [
          {
            seq,
            status: 'unproven',
            reason: `it was written under checkpoint key ${other.id}, not this process's key ${testCheckpointKey().id}`,
          },
        ],
      });
      expect(stateOf(opened)).toEqual(stateOf(await fullWalk('s1')));
      // The same, opened with that key: it is the one used.
      const withOther = await SessionLog.open(target, 's1', { registry: registry(), checkpointKey: other });
      expect(withOther.checkpointReport.restoredFrom).toBe(seq);
      expect(withOther.checkpointReport.ignored).toEqual([]);
      // A process without a key file proves nothing: the whole log is read, and an open creates no key.
      const saved = process.env[CHECKPOINT_KEY_FILE_VARIABLE];
      const missing = `${saved as string}.missing`;
      process.env[CHECKPOINT_KEY_FILE_VARIABLE] = missing;
      try {
        const keyless = await SessionLog.open(target, 's1', { registry: registry() });
        expect(keyless.checkpointReport.restoredFrom).toBeUndefined();
        expect(keyless.checkpointReport.ignored.map((finding) => [finding.seq, finding.status])).toEqual([
          [seq, 'unproven'],
          [20, 'unproven'],
        ]);
        expect(keyless.checkpointReport.ignored[0]?.reason).toBe(
          `this process has no checkpoint key (no file ${missing}), so no checkpoint is proven`,
        );
        expect(stateOf(keyless)).toEqual(stateOf(await fullWalk('s1')));
      } finally {
        process.env[CHECKPOINT_KEY_FILE_VARIABLE] = saved;
      }
    });

    it('ignores a checkpoint proven by the key whose state does not hold together (corrupt)', async () => {
      const batches = sealedBatches(22, 60);
      const events = batches.flat();
      await store(target, 's1', batches);
      const payload = JSON.parse(await payloadAt('s1', events.length)) as { nodes: number[] };
      const logOnly = events.find((event) => event.type === 'model/request') as LogEvent;
      // MACed under the key: a key holder's bug. The restore still checks what it reads.
      const damaged = JSON.stringify({ ...payload, nodes: [...payload.nodes, logOnly.seq] });
      await target.writeCheckpoint('s1', keyedCheckpoint(events.length, damaged));
      const opened = await SessionLog.open(target, 's1', { registry: registry() });
      expect(opened.checkpointReport).toMatchObject({ restoredFrom: undefined, ignored: [{ seq: events.length, status: 'corrupt' }] });
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
      await target.writeCheckpoint('s1', keyedCheckpoint(2, elsewherePayload));
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
      const payload = JSON.parse(await payloadAt('s1', 30)) as { headHash: string };
      const stale = JSON.stringify({ ...payload, headHash: 'e'.repeat(64) });
      await target.writeCheckpoint('s1', keyedCheckpoint(30, stale));
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
