// SessionLog and fold checkpoints beyond what every store's suite checks: a checkpoint that
// cannot be written fails no append (the error is kept, and it is tried again later), a store
// without checkpoints is read from seq 0 and refuses an explicit one, and bad settings are refused.

import { describe, expect, it } from 'vitest';
import { ShadowlogError } from '../../src/log/errors.js';
import type { LogStore, StoredCheckpoint } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';

const message = { type: 'user/message', data: { content: [{ type: 'text', text: 'x' }] }, surfaceOp: 'append' } as const;

class FullCheckpointStore extends MemoryLogStore {
  failures = 1;
  override async writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      throw new Error('no room for a checkpoint');
    }
    await super.writeCheckpoint(sessionId, checkpoint);
  }
}

/** A LogStore without the checkpoint methods: a plain wrapper. */
function withoutCheckpoints(inner: MemoryLogStore): LogStore {
  return {
    location: inner.location,
    append: (...args) => inner.append(...args),
    appendAll: (...args) => inner.appendAll(...args),
    read: (...args) => inner.read(...args),
    readEvent: (...args) => inner.readEvent(...args),
    head: (...args) => inner.head(...args),
    listSessions: () => inner.listSessions(),
    acquireOwnership: (...args) => inner.acquireOwnership(...args),
    close: () => inner.close(),
  };
}

describe('SessionLog with fold checkpoints', () => {
  it('lands an append whose checkpoint cannot be written, keeps the error, and writes the next one an interval later', async () => {
    const store = new FullCheckpointStore();
    const told: { message: string; sessionId: string; seq: number }[] = [];
    const log = await SessionLog.create(store, 's1', {
      checkpointEvery: 3,
      onCheckpointWriteError: (error, context) => told.push({ message: (error as Error).message, ...context }),
    });
    await log.append([message, message]);
    expect(log.nextSeq).toBe(3);
    expect((log.checkpointWriteError as Error).message).toBe('no room for a checkpoint');
    expect(told).toEqual([{ message: 'no room for a checkpoint', sessionId: 's1', seq: 3 }]);
    expect(await store.listCheckpoints('s1')).toEqual([]);
    for (let index = 0; index < 3; index++) await log.append([message]);
    expect(log.checkpointWriteError).toBeUndefined();
    expect((await store.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([6]);
  });

  it('by default says that a checkpoint could not be written, as a process warning with its code', async () => {
    const warnings: Error[] = [];
    const listen = (warning: Error) => warnings.push(warning);
    process.on('warning', listen);
    try {
      const log = await SessionLog.create(new FullCheckpointStore(), 's1', { checkpointEvery: 3 });
      await log.append([message, message]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    const ours = warnings.filter((warning) => (warning as Error & { code?: string }).code === 'SHADOWLOG_CHECKPOINT_WRITE_FAILED');
    expect(ours).toHaveLength(1);
    expect(ours[0]?.message).toContain('session s1 at seq 3 could not be written (no room for a checkpoint)');
  });

  it('reads a store without checkpoints from seq 0, and refuses an explicit checkpoint there with a typed error', async () => {
    const inner = new MemoryLogStore();
    const store = withoutCheckpoints(inner);
    const log = await SessionLog.create(store, 's1', { checkpointEvery: 1 });
    await log.append([message]);
    const opened = await SessionLog.open(store, 's1');
    expect(opened.checkpointReport).toEqual({ restoredFrom: undefined, ignored: [] });
    const error = await log.writeCheckpoint().catch((caught: unknown) => caught);
    expect(ShadowlogError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'CHECKPOINTS_UNSUPPORTED' });
    expect(await inner.listCheckpoints('s1')).toEqual([]);
  });

  it('refuses a checkpointEvery that is not a whole number of events', async () => {
    const store = new MemoryLogStore();
    for (const bad of [-1, 1.5, Number.NaN]) {
      await expect(SessionLog.create(store, 's1', { checkpointEvery: bad })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        key: 'checkpointEvery',
      });
    }
    expect(await store.head('s1')).toBeUndefined();
  });
});
