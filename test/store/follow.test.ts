// followSession on the embedded stores (polled), and the fallback from a store's watch to polling.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import { followSession } from '../../src/store/follow.js';
import type { LogStore } from '../../src/store/log-store.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { collect, describeFollowContract, followLog } from '../contract/follow-contract.js';

describeFollowContract('memory (polled)', async () => {
  const store = new MemoryLogStore();
  return { follower: store, writer: store, pollMs: 10, cleanup: async () => {} };
});

describeFollowContract('SQLite, two handles on one file (polled)', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'shadowlog-follow-'));
  const path = join(directory, 'log.db');
  const follower = await openSqliteStore(path);
  const writer = await openSqliteStore(path);
  return {
    follower,
    writer,
    pollMs: 20,
    cleanup: async () => {
      await follower.close();
      await writer.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});

/** A memory store whose watch wakes on each append, and can be told to fail. */
function watchedStore() {
  const store = new MemoryLogStore();
  const wakers = new Set<() => void>();
  let failNext: Error | undefined;
  const append: LogStore['append'] = async (...args) => {
    await MemoryLogStore.prototype.append.apply(store, args);
    for (const wake of wakers) wake();
  };
  async function* watch(_sessionId: string, signal: AbortSignal): AsyncGenerator<void> {
    let pending = true;
    let resolve: (() => void) | undefined;
    const wake = () => {
      pending = true;
      resolve?.();
    };
    wakers.add(wake);
    signal.addEventListener('abort', wake);
    try {
      for (;;) {
        if (signal.aborted) return;
        if (failNext !== undefined) throw failNext;
        if (pending) {
          pending = false;
          yield;
          continue;
        }
        await new Promise<void>((done) => {
          resolve = done;
        });
      }
    } finally {
      wakers.delete(wake);
    }
  }
  const watched: LogStore = Object.assign(Object.create(store) as LogStore, { append, watch });
  return {
    store: watched,
    fail: (error: Error) => {
      failNext = error;
      for (const wake of wakers) wake();
    },
    watchers: () => wakers.size,
  };
}

describe('followSession with a store that watches', () => {
  it('is woken by the watch, not by polling', async () => {
    const { store, watchers } = watchedStore();
    const events = followLog(6);
    await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
    // Polling once an hour: only the watch can bring the rest in time.
    const run = collect(store, 's1', { pollMs: 3_600_000 });
    await run.reach(2);
    expect(watchers()).toBe(1);
    await store.append('s1', events.slice(2), { expectedSeq: 2 });
    expect(await run.reach(6)).toBeLessThan(500);
    run.controller.abort();
    await run.done;
    expect(watchers()).toBe(0);
  });

  it('polls when its watch fails, saying so once, and still misses nothing', async () => {
    const { store, fail } = watchedStore();
    const events = followLog(8);
    await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
    const lost: unknown[] = [];
    const run = collect(store, 's1', { pollMs: 10, onWatchLost: (error) => lost.push(error) });
    await run.reach(3);
    fail(new Error('the watch connection dropped'));
    await store.append('s1', events.slice(3, 5), { expectedSeq: 3 });
    await run.reach(5);
    await store.append('s1', events.slice(5), { expectedSeq: 5 });
    await run.reach(8);
    run.controller.abort();
    await run.done;
    expect(lost).toEqual([new Error('the watch connection dropped')]);
    expect(run.seen).toEqual(events);
  });

  it('polls instead when told not to watch', async () => {
    const { store, watchers } = watchedStore();
    await store.append('s1', followLog(3), { expectedSeq: 0 });
    const run = collect(store, 's1', { pollMs: 10, watch: false });
    await run.reach(3);
    expect(watchers()).toBe(0);
    run.controller.abort();
    await run.done;
  });

  it('refuses a bad fromSeq or pollMs before reading anything', async () => {
    const store = new MemoryLogStore();
    for (const options of [{ fromSeq: -1 }, { fromSeq: 1.5 }, { pollMs: 0 }]) {
      await expect(followSession(store, 's1', options).next()).rejects.toBeInstanceOf(ConfigError);
    }
  });
});
