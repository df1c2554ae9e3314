// The SQLite store checkpoints its write-ahead log on a thread of its own (wal-checkpointer.ts):
// appends no longer copy the log into the file inside their commits, the log stays bounded, what
// was written reads back whole after many checkpoints, close waits for one that runs, and a
// thread that cannot work hands checkpointing back to SQLite, saying why, without failing an
// append.

import { mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { nodeSha256Hex } from '../../src/store/node-sha256.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { CHECKPOINT_AFTER_BYTES, WAL_LIMIT_BYTES } from '../../src/store/sqlite/wal-checkpointer.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { drafts, sealLog } from '../support/events.js';

/** Generous: the child compiles its TypeScript and starts a thread. */
const CHILD_TIMEOUT_MS = 30_000;

/** The text of each user message. */
const BODY_BYTES = 64 * 1024;

/** A session of `count` events after its start, each about `bytes` long. */
function bigSession(count: number, bytes = BODY_BYTES): LogEvent[] {
  const filler = 'x'.repeat(bytes);
  return sealLog([drafts.start(), ...Array.from({ length: count }, (_, index) => drafts.user(`${index} ${filler}`))]);
}

async function readAll(store: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

describe('SqliteLogStore WAL checkpoints on a thread', () => {
  let directory: string;
  const opened: SqliteLogStore[] = [];
  const children: Child[] = [];

  async function open(path: string): Promise<SqliteLogStore> {
    const store = await openSqliteStore(path);
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-wal-'));
  });
  afterEach(async () => {
    await killChildren(children);
    for (const store of opened.splice(0).reverse()) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('takes checkpoints out of the commits, keeps the log bounded and reads back every event', async () => {
    const path = join(directory, 'log.db');
    const store = await open(path);
    // 96 MiB in batches of 1 MiB, back to back: the thread checkpoints beside a writer that never pauses.
    const events = bigSession(768, 2 * BODY_BYTES);
    await store.append('s1', events.slice(0, 1), { expectedSeq: 0 });
    for (let at = 1; at < events.length; at += 8) {
      await store.append('s1', events.slice(at, at + 8), { expectedSeq: at });
    }
    await store.idle();
    expect(store.backgroundCheckpointError).toBeUndefined();
    expect(store.backgroundCheckpoints).toBeGreaterThanOrEqual(1);
    // Off only for the commits the thread takes: between them, SQLite's own setting stands.
    const autocheckpoint = (store as unknown as { db: Database.Database }).db.pragma('wal_autocheckpoint', { simple: true });
    expect(autocheckpoint).toBe(1000);
    // Without checkpoints, or with a log never started over, the log would hold all 96 MiB.
    expect((await stat(`${path}-wal`)).size).toBeLessThan(WAL_LIMIT_BYTES + 4 * CHECKPOINT_AFTER_BYTES);
    expect(await readAll(store, 's1')).toEqual(events);
    await store.close();
    // What the thread copied into the file is what another connection reads, the chain whole.
    const reader = await openSqliteStore(path, { readOnly: true });
    opened.push(reader);
    expect(await readAll(reader, 's1')).toEqual(events);
    expect(await verifyLog(reader.read('s1'), { hasher: nodeSha256Hex })).toMatchObject({ ok: true, events: events.length });
  });

  it('closes while a checkpoint runs, losing nothing; the file opens again', async () => {
    const path = join(directory, 'log.db');
    const store = await open(path);
    const events = bigSession(200);
    await store.append('s1', events.slice(0, 1), { expectedSeq: 0 });
    // The first 4 MiB start the thread; once it is ready, the next 4 MiB ask it for a checkpoint.
    await store.append('s1', events.slice(1, 80), { expectedSeq: 1 });
    await store.idle();
    const before = store.backgroundCheckpoints;
    await store.append('s1', events.slice(80), { expectedSeq: 80 });
    // No idle(): close itself waits for the checkpoint in flight, then stops the thread.
    await store.close();
    expect(store.backgroundCheckpoints).toBe(before + 1);
    const again = await open(path);
    expect(await readAll(again, 's1')).toEqual(events);
    expect(await verifyLog(again.read('s1'), { hasher: nodeSha256Hex })).toMatchObject({ ok: true, events: events.length });
  });

  it('leaves small commits to SQLite’s own checkpoints, which keep the log at a few MiB', async () => {
    const path = join(directory, 'log.db');
    const store = await open(path);
    // 8,000 one-event commits of about 300 bytes and 1,000 of ten events: each writes a page or
    // more of log, 40 MiB or more of it without checkpoints.
    const events = sealLog([drafts.start(), ...Array.from({ length: 18_000 }, (_, index) => drafts.user(`small message ${index}`))]);
    for (const event of events.slice(0, 8001)) await store.append('s1', [event], { expectedSeq: event.seq });
    for (let at = 8001; at < events.length; at += 10) await store.append('s1', events.slice(at, at + 10), { expectedSeq: at });
    await store.idle();
    expect(store.backgroundCheckpoints).toBe(0);
    expect(store.backgroundCheckpointError).toBeUndefined();
    expect((await stat(`${path}-wal`)).size).toBeLessThan(2 * CHECKPOINT_AFTER_BYTES);
    expect(await readAll(store, 's1')).toEqual(events);
    // 9,000 fsynced commits: a few seconds alone, several times that on a loaded machine.
  }, 120_000);

  it('lets the process exit when a store with a running thread is never closed', async () => {
    const child = startChild('test/store/fixtures/append-without-close.ts', [join(directory, 'log.db')], CHILD_TIMEOUT_MS);
    children.push(child);
    await child.waitFor('appended');
    expect(await child.exited, child.output().stderr).toEqual({ code: 0, signal: null });
  });

  it('hands checkpointing back to SQLite, saying why, when its thread cannot open the file; appends go on', async () => {
    const first = join(directory, 'first');
    const store = await open(join(first, 'log.db'));
    const events = bigSession(160);
    await store.append('s1', events.slice(0, 1), { expectedSeq: 0 });
    // The store's connection keeps its open files; a new connection by the old path finds nothing.
    await rename(first, join(directory, 'moved'));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    for (let at = 1; at < events.length; at += 16) await store.append('s1', events.slice(at, at + 16), { expectedSeq: at });
    // idle() waits for the thread to be ready or to fail; the error is known from then on.
    await store.idle();
    expect(store.backgroundCheckpointError?.message).toMatch(
      /the checkpoint thread stopped: .*; SQLite checkpoints inside every commit again/,
    );
    expect(store.backgroundCheckpoints).toBe(0);
    // Told once, as a process warning, as well as kept.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(
      warnings.filter((warning) => (warning as Error & { code?: string }).code === 'SHADOWLOG_WAL_CHECKPOINT_THREAD_FAILED'),
    ).toHaveLength(1);
    const autocheckpoint = (store as unknown as { db: Database.Database }).db.pragma('wal_autocheckpoint', { simple: true });
    expect(autocheckpoint).toBe(1000);
    expect(await readAll(store, 's1')).toEqual(events);
  });
});
