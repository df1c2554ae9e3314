// Fold checkpoints and branches (SPEC §14): a checkpoint of the parent taken within the prefix
// serves the branch's open (the branch reads only the events after it), one taken past the fork
// point does not, and the fold it gives is the fold of the whole walk.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { createCheckpointKey } from '../../src/store/checkpoint-key.js';
import type { ReadRange } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';

/** A memory store that records the ranges read. */
class ReadCountingStore extends MemoryLogStore {
  reads: Array<{ sessionId: string; fromSeq: number }> = [];
  override read(sessionId: string, range: ReadRange = {}): AsyncIterable<readonly LogEvent[]> {
    this.reads.push({ sessionId, fromSeq: range.fromSeq ?? 0 });
    return super.read(sessionId, range);
  }
}

const surface = (log: SessionLog) => log.fold.toArray().map((node) => [node.seq, node.event.hash]);

describe('fold checkpoints on branches', () => {
  it('opens a branch from a checkpoint of its parent within the prefix, not from one past the fork', async () => {
    const store = new ReadCountingStore();
    const key = createCheckpointKey(randomBytes(32));
    const options = { now: fixedNow, checkpointKey: key, checkpointEvery: 10 } as const;
    const parent = await SessionLog.create(store, 'p', { ...options, harnessVersion: 'test' });
    for (let index = 0; index < 30; index++) await parent.append([drafts.user(`message ${index}`)]);
    const checkpoints = (await store.listCheckpoints('p')).map((entry) => entry.seq);
    expect(checkpoints).toEqual([30, 20, 10]);
    const branch = await SessionLog.fork(store, 'p', { ...options, checkpoints: false, at: 24, id: 'b' });
    await branch.append([drafts.user('on the branch')]);
    expect(await store.listCheckpoints('b')).toEqual([]);

    store.reads = [];
    const opened = await SessionLog.open(store, 'b', options);
    expect(opened.checkpointReport.restoredFrom).toBe(20);
    expect(store.reads[0]).toEqual({ sessionId: 'b', fromSeq: 20 });
    const whole = await SessionLog.open(store, 'b', { ...options, checkpoints: false });
    expect(surface(opened)).toEqual(surface(whole));
    expect(opened.nextSeq).toBe(27);
    // The fold restored from the parent goes on as the branch's own.
    await opened.append([drafts.user('after the open')]);
    expect((await SessionLog.open(store, 'b', { ...options, checkpoints: false })).nextSeq).toBe(28);

    // A branch forked before every checkpoint of its parent is read whole.
    await SessionLog.fork(store, 'p', { ...options, checkpoints: false, at: 5, id: 'early' });
    const early = await SessionLog.open(store, 'early', options);
    expect(early.checkpointReport.restoredFrom).toBeUndefined();
    // A branch of a branch finds its grandparent's checkpoint within both prefixes.
    await SessionLog.fork(store, 'b', { ...options, checkpoints: false, at: 26, id: 'bb' });
    expect((await SessionLog.open(store, 'bb', options)).checkpointReport.restoredFrom).toBe(20);
  });
});
