// Session ownership in the SQLite store (SPEC §8), across real processes, beyond the shared
// contract (a live owner holds the session, a killed one or one that released holds nothing):
// an owner that exited without releasing, dead pids, and records that cannot be checked, which
// count as alive.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionBusyError } from '../../src/log/errors.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { readProcessStatus } from '../../src/store/sqlite/ownership.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';

const CHILD_TIMEOUT_MS = 20_000;
const hasProc = existsSync('/proc/self/stat');

describe('SqliteLogStore ownership', () => {
  const children: Child[] = [];
  const stores: SqliteLogStore[] = [];
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-owners-'));
    path = join(directory, 'log.db');
  });
  afterEach(async () => {
    await killChildren(children);
    for (const store of stores.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function open(): Promise<SqliteLogStore> {
    const store = await openSqliteStore(path);
    stores.push(store);
    return store;
  }

  function startOwner(mode: 'hold' | 'release' | 'exit'): Child {
    const handle = startChild('test/store/fixtures/hold-ownership.ts', ['sqlite', path, 's1', mode], CHILD_TIMEOUT_MS);
    children.push(handle);
    return handle;
  }

  function deadPid(): number {
    const finished = spawnSync(process.execPath, ['-e', '']);
    return finished.pid as number;
  }

  it('is free after an owner in another process exited without releasing it', async () => {
    const store = await open();
    const child = startOwner('exit');
    await child.waitFor('owned');
    expect(await child.exited).toMatchObject({ code: 0 });
    await (await store.acquireOwnership('s1')).release();
  });

  it('refuses a second claim from the same process, even through another connection', async () => {
    const ownership = await (await open()).acquireOwnership('s1');
    await expect((await open()).acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
    await ownership.release();
  });

  it('replaces the record of an owner whose pid is dead', async () => {
    const store = await open();
    insertOwner({ pid: deadPid() });
    await (await store.acquireOwnership('s1')).release();
  });

  it.runIf(hasProc)('replaces the record of an owner whose pid now names another process', async () => {
    const store = await open();
    // Our own pid, but another start time: the pid was reused after its owner died.
    insertOwner({ pid: process.pid, processStart: 'another-boot/12345' });
    await (await store.acquireOwnership('s1')).release();
  });

  it('treats an owner on another host as alive, and names the host', async () => {
    const store = await open();
    insertOwner({ pid: deadPid(), host: 'elsewhere.example' });
    await expect(store.acquireOwnership('s1')).rejects.toThrow(/pid \d+ on host elsewhere\.example since 2026-01-01T00:00:00\.000Z/);
  });

  it('leaves a later owner alone when an earlier one releases', async () => {
    const first = await open();
    const earlier = await first.acquireOwnership('s1');
    // As if the earlier owner's process had died: its pid no longer runs.
    withRaw((db) => db.prepare('UPDATE owners SET pid = ? WHERE session_id = ?').run(deadPid(), 's1'));
    const later = await (await open()).acquireOwnership('s1');
    await earlier.release();
    await expect((await open()).acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
    await later.release();
  });

  it.runIf(hasProc)('reads the state and start time of a process from /proc', () => {
    const status = readProcessStatus(process.pid);
    expect(status?.state).toMatch(/^[RS]$/);
    expect(status?.start).toMatch(/\d+$/);
    expect(readProcessStatus(deadPid())).toBeUndefined();
  });

  function insertOwner(fields: { pid: number; host?: string; processStart?: string }): void {
    withRaw((db) =>
      db
        .prepare('INSERT INTO owners (session_id, token, pid, host, process_start, acquired_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run('s1', 'someone-else', fields.pid, fields.host ?? hostname(), fields.processStart ?? null, '2026-01-01T00:00:00.000Z'),
    );
  }

  function withRaw(work: (db: Database.Database) => unknown): void {
    const db = new Database(path);
    try {
      work(db);
    } finally {
      db.close();
    }
  }
});
