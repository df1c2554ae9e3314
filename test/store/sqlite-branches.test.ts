// Branches in the SQLite store (SPEC §14): the shared branch contract against a real file, the
// schema version 5 migration that brings the link table, and the database's own refusals.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import { SessionLog } from '../../src/store/session-log.js';
import { MIGRATIONS, migrate, openSqliteStore, readSchemaVersion, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { describeBranchContract } from '../contract/branch-contract.js';
import type { StoredRow } from '../contract/log-store-contract.js';
import { drafts, fixedNow, sampleDrafts, sealLog } from '../support/events.js';

async function readAll(store: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

describeBranchContract(
  'sqlite',
  async () => {
    const directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-branches-'));
    const path = join(directory, 'log.db');
    const store = await openSqliteStore(path);
    const seconds: SqliteLogStore[] = [];
    const withRaw = <T>(work: (db: Database.Database) => T): T => {
      const db = new Database(path);
      try {
        return work(db);
      } finally {
        db.close();
      }
    };
    return {
      store,
      openSecond: async () => {
        const second = await openSqliteStore(path);
        seconds.push(second);
        return second;
      },
      storedRows: async (sessionId) =>
        withRaw(
          (db) =>
            db
              .prepare('SELECT session_id AS sessionId, seq, type, hash, body FROM events WHERE session_id = ? ORDER BY seq')
              .all(sessionId) as StoredRow[],
        ),
      damageBody: async (sessionId, seq, body) =>
        withRaw((db) => {
          db.exec('DROP TRIGGER events_no_update');
          db.prepare('UPDATE events SET body = ? WHERE session_id = ? AND seq = ?').run(body, sessionId, seq);
        }),
      cleanup: async () => {
        for (const second of seconds) await second.close();
        await store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  },
  { storedForm: true, closes: true },
);

describe('SQLite store: branch links', () => {
  let directory: string;
  let path: string;
  const opened: SqliteLogStore[] = [];
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-branches-'));
    path = join(directory, 'log.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('migrates a version 4 file to version 5, its sessions untouched, and forks one of them; a version 4 file read-only lists no branches', async () => {
    const events = sealLog(sampleDrafts());
    const fresh = new Database(path);
    migrate(fresh, path, MIGRATIONS.slice(0, 4));
    const insert = fresh.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    for (const event of events) insert.run('s-old', event.seq, event.type, event.hash, canonicalJson(event));
    fresh.close();
    const reader = await openSqliteStore(path, { readOnly: true });
    opened.push(reader);
    expect(await reader.listSessions()).toMatchObject([{ id: 's-old', events: 7 }]);
    expect(await reader.readForkLink('s-old')).toBeUndefined();
    const writer = await openSqliteStore(path);
    opened.push(writer);
    expect(readSchemaVersion(new Database(path, { readonly: true }), path)).toBe(5);
    expect(await readAll(writer, 's-old')).toEqual(events);
    const branch = await SessionLog.fork(writer, 's-old', { checkpoints: false, now: fixedNow, at: 3, id: 's-branch' });
    await branch.append([drafts.assistant('Another answer.')]);
    expect((await writer.listSessions()).map(({ id, events: count, parent }) => ({ id, count, parent }))).toEqual([
      { id: 's-branch', count: 6, parent: { sessionId: 's-old', forkSeq: 3 } },
      { id: 's-old', count: 7, parent: undefined },
    ]);
  });

  it('refuses, in the database itself, a link to an event the parent does not hold, a link changed or deleted, and a branch event past its fork seq', async () => {
    const store = await openSqliteStore(path);
    opened.push(store);
    const parent = await SessionLog.create(store, 'p', { checkpoints: false, now: fixedNow, harnessVersion: 'test' });
    await parent.append(sampleDrafts().slice(1));
    await SessionLog.fork(store, 'p', { checkpoints: false, now: fixedNow, at: 3, id: 'b' });
    const db = new Database(path);
    try {
      expect(() => db.prepare("INSERT INTO session_forks VALUES ('x', 'p', 3, ?)").run('0'.repeat(64))).toThrow(
        /links to an event its parent holds/,
      );
      expect(() => db.prepare("INSERT INTO session_forks VALUES ('x', 'nobody', 3, ?)").run('0'.repeat(64))).toThrow(/links to an event/);
      expect(() => db.prepare("UPDATE session_forks SET fork_seq = 2 WHERE session_id = 'b'").run()).toThrow(/append-only/);
      expect(() => db.prepare("DELETE FROM session_forks WHERE session_id = 'b'").run()).toThrow(/append-only/);
      // The branch's next event is 5; its parent's prefix cannot be written into it.
      expect(() => db.prepare("INSERT INTO events VALUES ('b', 2, 'user/message', 'h', '{}')").run()).toThrow(/next seq/);
      expect(db.prepare("SELECT seq FROM events WHERE session_id = 'b'").pluck().all()).toEqual([4]);
    } finally {
      db.close();
    }
  });
});
