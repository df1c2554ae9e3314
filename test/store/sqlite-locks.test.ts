// The SQLite store beside a long writer in another process (issue 9, item 6): opening and reading
// take no write lock, a write waits for the lock (past the old 5 s busy timeout, told once) rather
// than failing, gives up only after lockTimeoutMs, and appendAll reads its whole stream first.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import {
  type LockWait,
  openSqliteStore,
  type SqliteLogStore,
  type SqliteStoreOptions,
  StoreLockTimeoutError,
} from '../../src/store/sqlite/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';

const HOLDER = 'test/store/fixtures/sqlite-hold-write-lock.ts';
const CHILD_TIMEOUT_MS = 20_000;
/** The busy timeout the store used to fail at: a write must still be waiting after it. */
const OLD_BUSY_TIMEOUT_MS = 5_000;

describe('SqliteLogStore beside a long writer in another process', () => {
  const events = sealLog(sampleDrafts());
  const longer = sealLog([...sampleDrafts(), drafts.user('And one more thing.')]);
  const children: Child[] = [];
  const stores: SqliteLogStore[] = [];
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-locks-'));
    path = join(directory, 'log.db');
    const store = await openSqliteStore(path);
    await store.append('s1', events, { expectedSeq: 0 });
    await store.close();
  });
  afterEach(async () => {
    await killChildren(children);
    for (const store of stores.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function open(options?: SqliteStoreOptions): Promise<SqliteLogStore> {
    const store = await openSqliteStore(path, options);
    stores.push(store);
    return store;
  }

  /** Another process holding the file's write lock, with an uncommitted event in session `held`. */
  async function holdWriteLock(): Promise<{ release(how?: 'commit' | 'rollback'): Promise<void> }> {
    const child = startChild(HOLDER, [path, 'held'], CHILD_TIMEOUT_MS);
    children.push(child);
    await child.waitFor('locked');
    return {
      release: async (how = 'commit') => {
        child.process.stdin.write(`${how}\n`);
        await child.waitFor('released');
      },
    };
  }

  async function readAll(store: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read(sessionId)) out.push(...page);
    return out;
  }

  it('opens for writing and for reading, lists, reads and verifies while another process holds the write lock', async () => {
    const writer = await holdWriteLock();
    // No lock to wait for: a store that needed one would fail at once with lockTimeoutMs 0.
    const stores = [await open({ lockTimeoutMs: 0 }), await open({ readOnly: true, lockTimeoutMs: 0 })];
    for (const store of stores) {
      expect((await store.listSessions()).map((session) => session.id)).toEqual(['s1']);
      expect(await readAll(store, 's1')).toEqual(events);
      expect(await store.readEvent('s1', 2)).toEqual(events[2]);
      expect((await verifyLog(store.read('s1'))).ok).toBe(true);
      expect(await store.head('held')).toBeUndefined();
    }
    await writer.release('commit');
    for (const store of stores) expect((await store.listSessions()).map((session) => session.id)).toEqual(['held', 's1']);
  });

  it(`makes a write wait for the lock past ${OLD_BUSY_TIMEOUT_MS} ms, says so once per write, and lands it when the lock is free`, async () => {
    const noticeMs = OLD_BUSY_TIMEOUT_MS + 1_000;
    const notices: LockWait[] = [];
    let allNoticed = () => {};
    const noticed = new Promise<string>((resolve) => {
      allNoticed = () => resolve('still waiting');
    });
    const store = await open({
      lockNoticeMs: noticeMs,
      onLockWait: (wait) => {
        notices.push(wait);
        if (notices.length === 4) allNoticed();
      },
    });
    const writer = await holdWriteLock();
    async function* stream() {
      yield events.slice(0, 3);
      yield events.slice(3);
    }
    const writes = [
      store.append('s1', longer.slice(events.length), { expectedSeq: events.length }),
      store.append('batch', events, { expectedSeq: 0 }),
      store.appendAll('streamed', stream(), { expectedSeq: 0 }),
      store.acquireOwnership('claimed'),
    ];
    const first = await Promise.race([
      noticed,
      ...writes.map((write) =>
        write.then(
          () => 'landed while locked',
          (error: unknown) => error,
        ),
      ),
    ]);
    expect(first).toBe('still waiting');
    expect(notices.map((notice) => notice.action).sort()).toEqual([
      'appending events',
      'appending events',
      'appending events',
      'claiming the session',
    ]);
    for (const notice of notices) {
      expect(notice).toMatchObject({ location: store.location, timeoutMs: 600_000 });
      expect(notice.waitedMs).toBeGreaterThanOrEqual(noticeMs);
      expect(notice.message).toMatch(
        /has waited \d+ s for the write lock, which another connection holds .*; still waiting, for up to 10 min in all$/,
      );
    }
    await writer.release('commit');
    const [, , streamed, ownership] = await Promise.all(writes);
    expect(streamed).toBe(events.length);
    expect(await readAll(store, 's1')).toEqual(longer);
    expect(await readAll(store, 'batch')).toEqual(events);
    expect(await readAll(store, 'streamed')).toEqual(events);
    expect((await store.head('held'))?.nextSeq).toBe(1);
    await (ownership as { release(): Promise<void> }).release();
    expect(notices).toHaveLength(4);
  });

  it('gives up with StoreLockTimeoutError after lockTimeoutMs, having written nothing, and writes once the lock is free', async () => {
    const store = await open({ lockTimeoutMs: 300 });
    const writer = await holdWriteLock();
    const next = longer.slice(events.length);
    const error = await store.append('s1', next, { expectedSeq: events.length }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreLockTimeoutError);
    expect(error).toMatchObject({ code: 'STORE_LOCK_TIMEOUT', action: 'appending events', timeoutMs: 300, location: store.location });
    expect((error as Error).message).toMatch(/waited \d+ ms for the write lock.*gave up \(lockTimeoutMs is 300\); nothing was written/);
    await expect(store.acquireOwnership('s1')).rejects.toMatchObject({ code: 'STORE_LOCK_TIMEOUT', action: 'claiming the session' });
    await writer.release('rollback');
    expect((await store.head('s1'))?.nextSeq).toBe(events.length);
    await store.append('s1', next, { expectedSeq: events.length });
    await (await store.acquireOwnership('s1')).release();
    expect(await readAll(store, 's1')).toEqual(longer);
  });

  it('has appendAll read and check its whole stream before it takes the write lock', async () => {
    const store = await open();
    const writer = await holdWriteLock();
    let streamRead = () => {};
    const read = new Promise<string>((resolve) => {
      streamRead = () => resolve('stream read');
    });
    async function* stream() {
      for (let from = 0; from < events.length; from += 2) yield events.slice(from, from + 2);
      streamRead();
    }
    const importing = store.appendAll('imported', stream(), { expectedSeq: 0 });
    expect(
      await Promise.race([
        read,
        importing.then(
          () => 'landed while locked',
          (error: unknown) => error,
        ),
      ]),
    ).toBe('stream read');
    // A stream that breaks the rules is refused while the other process still holds the lock.
    async function* outOfOrder() {
      yield events.slice(0, 2);
      yield events.slice(3);
    }
    await expect(store.appendAll('refused', outOfOrder(), { expectedSeq: 0 })).rejects.toBeInstanceOf(CorruptLogError);
    await writer.release('commit');
    expect(await importing).toBe(events.length);
    expect(await readAll(store, 'imported')).toEqual(events);
    expect(await store.head('refused')).toBeUndefined();
  });

  it('lets several processes create one new file at once, each waiting for the others, and then race appends on it', async () => {
    const fresh = join(directory, 'nested', 'fresh.db');
    const writers = Array.from({ length: 6 }, (_, index) => {
      const child = startChild('test/store/fixtures/race-appends.ts', [fresh, 'race', `writer-${index}`, '20'], CHILD_TIMEOUT_MS);
      children.push(child);
      return child;
    });
    await Promise.all(writers.map((writer) => writer.waitFor('ready')));
    for (const writer of writers) writer.process.stdin.write('go\n');
    for (const writer of writers) {
      expect(await writer.exited, writer.output().stderr).toEqual({ code: 0, signal: null });
      expect(writer.output().stderr).toBe('');
    }
    const store = await openSqliteStore(fresh, { readOnly: true });
    stores.push(store);
    const stored = await readAll(store, 'race');
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index));
    expect(stored).toHaveLength(6 * 20);
  });

  it('makes an open that must write the schema wait for the lock too, and says so', async () => {
    // A file from before the application_id mark: opening it for writing marks it.
    const raw = new Database(path);
    raw.pragma('application_id = 0');
    raw.close();
    const writer = await holdWriteLock();
    const notices: LockWait[] = [];
    let noticed = () => {};
    const told = new Promise<string>((resolve) => {
      noticed = () => resolve('told');
    });
    const opening = open({
      lockNoticeMs: 0,
      onLockWait: (wait) => {
        notices.push(wait);
        noticed();
      },
    });
    expect(
      await Promise.race([
        told,
        opening.then(
          () => 'opened while locked',
          (error: unknown) => error,
        ),
      ]),
    ).toBe('told');
    expect(notices.map((notice) => notice.action)).toEqual(['creating the schema']);
    await writer.release('commit');
    const store = await opening;
    expect(await readAll(store, 's1')).toEqual(events);
  });
});
