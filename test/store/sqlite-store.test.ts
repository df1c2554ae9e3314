// The SQLite store: the shared contract against a real file with a second connection, then
// what only this backend promises (schema versions, append-only triggers, canonical bodies of
// imported events, races between processes).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { importSession } from '../../src/store/jsonl.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import { SessionLog } from '../../src/store/session-log.js';
import {
  MIGRATIONS,
  type Migration,
  migrate,
  openSqliteStore,
  readSchemaVersion,
  SCHEMA_VERSION,
  SchemaVersionError,
  type SqliteLogStore,
  StoreError,
} from '../../src/store/sqlite/index.js';
import { describeCheckpointContract } from '../contract/checkpoint-contract.js';
import { describeLogStoreContract, type StoredRow } from '../contract/log-store-contract.js';
import { compactedSession, describeSearchContract } from '../contract/search-contract.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';
import { nodeScriptArgs } from '../support/node-script.js';

const CHILD_TIMEOUT_MS = 20_000;

describeLogStoreContract(
  'sqlite',
  async () => {
    const directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-'));
    const path = join(directory, 'log.db');
    const store = await openSqliteStore(path);
    const seconds: SqliteLogStore[] = [];
    const children: Child[] = [];
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
      // Another connection on the same file: the race test races two real connections.
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
      startOwner: (sessionId, mode) => {
        const child = startChild('test/store/fixtures/hold-ownership.ts', ['sqlite', path, sessionId, mode], CHILD_TIMEOUT_MS);
        children.push(child);
        return child;
      },
      // A dead owner's record is replaced at once: its pid no longer runs.
      claimOnceFree: (claimant, sessionId) => claimant.acquireOwnership(sessionId),
      ownerPattern: (pid) => new RegExp(`^pid ${pid} on host .+ since \\d{4}-`),
      cleanup: async () => {
        await killChildren(children);
        for (const second of seconds) await second.close();
        await store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
  },
  { storedForm: true, closes: true, processes: true },
);

describeSearchContract('sqlite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-'));
  const store = await openSqliteStore(join(directory, 'log.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});

describeCheckpointContract('sqlite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-'));
  const store = await openSqliteStore(join(directory, 'log.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});

async function readAll(store: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/** A digest of the keyed form, for rows whose payload no reader proves. */
const KEYED_DIGEST = `hmac-sha256:${'0'.repeat(16)}:${'a'.repeat(64)}`;

describe('SqliteLogStore', () => {
  const events = sealLog(sampleDrafts());
  let directory: string;
  let path: string;
  const opened: Array<{ close(): unknown }> = [];

  async function open(at = path): Promise<SqliteLogStore> {
    const store = await openSqliteStore(at);
    opened.push(store);
    return store;
  }
  function raw(options?: Database.Options): Database.Database {
    const db = new Database(path, options);
    opened.push(db);
    return db;
  }

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-'));
    path = join(directory, 'log.db');
  });
  afterEach(async () => {
    for (const handle of opened.splice(0).reverse()) await handle.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('creates the file and its directory (one level, like .shadowlog), in WAL mode, at schema version 5', async () => {
    path = join(directory, 'nested', 'log.db');
    const store = await open();
    expect(store.location).toBe(`sqlite:${path}`);
    const db = raw({ readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(SCHEMA_VERSION).toBe(5);
    expect(readSchemaVersion(db, path)).toBe(5);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('5');
  });

  it('refuses a file whose schema is newer than it knows, saying what to do, and leaves it alone', async () => {
    await (await open()).close();
    raw().prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    const error = await openSqliteStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaVersionError);
    expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 99, expected: 5 });
    expect((error as Error).message).toMatch(/schema version 99.*up to 5.*upgrade shadowlog/);
    expect(readSchemaVersion(raw({ readonly: true }), path)).toBe(99);
  });

  it('migrates one version at a time, running only the steps a file has not had', async () => {
    expect(MIGRATIONS.map((migration) => migration.from)).toEqual(MIGRATIONS.map((_, index) => index));
    await (await open()).close();
    const applied: number[] = [];
    const recorded = (migration: Migration): Migration => ({
      ...migration,
      up: (db) => {
        applied.push(migration.from);
        migration.up(db);
      },
    });
    const later: Migration = { from: 5, description: 'a later version', up: (db) => db.exec('CREATE TABLE later (x)') };
    const next = [...MIGRATIONS, later].map(recorded);
    const db = raw();
    expect(migrate(db, path, next)).toBe(6);
    expect(applied).toEqual([5]);
    expect(readSchemaVersion(db, path)).toBe(6);
    expect(migrate(db, path, next)).toBe(6);
    expect(applied).toEqual([5]);
    // This library knows up to version 5, so the migrated file is now too new for it.
    await expect(openSqliteStore(path)).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 6 });
  });

  it('migrates a version 1 file to the current version, its events untouched, and reads a version 1 file read-only, finding no checkpoints', async () => {
    // A file as the last shadowlog without checkpoints left it: version 1, one session.
    const fresh = raw();
    migrate(fresh, path, MIGRATIONS.slice(0, 1));
    const insert = fresh.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    for (const event of events) insert.run('s1', event.seq, event.type, event.hash, canonicalJson(event));
    fresh.close();
    const reader = await openSqliteStore(path, { readOnly: true });
    opened.push(reader);
    expect(await readAll(reader, 's1')).toEqual(events);
    expect(await reader.listCheckpoints('s1')).toEqual([]);
    expect(readSchemaVersion(raw({ readonly: true }), path)).toBe(1);
    const writer = await open();
    expect(readSchemaVersion(raw({ readonly: true }), path)).toBe(SCHEMA_VERSION);
    expect(await readAll(writer, 's1')).toEqual(events);
    await writer.writeCheckpoint('s1', { seq: 2, digest: KEYED_DIGEST, payload: '{}' });
    expect((await writer.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([2]);
  });

  it('migrates a version 2 file to version 3: its checkpoints kept and now append-only, an unkeyed one listed but never proven', async () => {
    // A file as the last shadowlog with unkeyed checkpoints left it: version 2, a session and a checkpoint of its head.
    const fresh = raw();
    migrate(fresh, path, MIGRATIONS.slice(0, 2));
    const insert = fresh.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    for (const event of events) insert.run('s1', event.seq, event.type, event.hash, canonicalJson(event));
    const walked = await SessionLog.open(await open(), 's1', { checkpoints: false });
    const payload = encodeFoldCheckpoint('s1', walked.fold.snapshot());
    fresh
      .prepare('INSERT INTO fold_checkpoints (session_id, seq, digest, payload) VALUES (?, ?, ?, ?)')
      .run('s1', events.length, nodeSha256.hex(payload), payload);
    expect(readSchemaVersion(fresh, path)).toBe(SCHEMA_VERSION);
    const reopened = await SessionLog.open(await open(), 's1');
    expect(reopened.checkpointReport).toEqual({
      restoredFrom: undefined,
      ignored: [{ seq: events.length, status: 'unproven', reason: expect.stringMatching(/^it was written before checkpoints were keyed/) }],
    });
    expect(reopened.fold.toArray()).toEqual(walked.fold.toArray());
    expect(() => fresh.prepare("UPDATE fold_checkpoints SET payload = '{}'").run()).toThrow(/fold checkpoints are append-only/);
  });

  it('migrates a version 3 file to version 4, indexing the events it holds for search; read-only before that, it is searched by a scan', async () => {
    // A file as the last shadowlog without search left it: version 3, a compacted session, written by that version's statements.
    const fresh = raw();
    migrate(fresh, path, MIGRATIONS.slice(0, 3));
    const insert = fresh.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    const compacted = compactedSession();
    for (const event of compacted) insert.run('s-old', event.seq, event.type, event.hash, canonicalJson(event));
    fresh.close();
    const reader = await openSqliteStore(path, { readOnly: true });
    opened.push(reader);
    const scanned = await reader.search({ text: 'src/csv.ts' });
    expect(scanned.method).toBe('scan');
    expect(readSchemaVersion(raw({ readonly: true }), path)).toBe(3);
    const writer = await open();
    expect(readSchemaVersion(raw({ readonly: true }), path)).toBe(SCHEMA_VERSION);
    const indexed = await writer.search({ text: 'src/csv.ts' });
    expect(indexed.method).toBe('index');
    expect(indexed.hits).toEqual(scanned.hits);
    expect(indexed.hits.map((hit) => [hit.seq, hit.place])).toEqual([
      [5, 'shadowed'],
      [6, 'shadowed'],
      [8, 'shadowed'],
      [9, 'surface'],
    ]);
    // Events appended after the migration are indexed with their append, after the old ones.
    await writer.append('s-new', sealLog([drafts.start(), drafts.user('open src/csv.ts again')]), { expectedSeq: 0 });
    expect((await writer.search({ text: 'src/csv.ts' })).hits.map((hit) => `${hit.sessionId}:${hit.seq}`).slice(-1)).toEqual(['s-new:1']);
    expect(() => raw().prepare('DELETE FROM search_rows').run()).toThrow(/search index is append-only/);
  });

  it('refuses, in the database itself, to update, overwrite or delete a fold checkpoint, but for pruning an older one', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    await store.append('s2', events, { expectedSeq: 0 });
    for (const seq of [2, 4]) await store.writeCheckpoint('s1', { seq, digest: KEYED_DIGEST, payload: `{"seq":${seq}}` });
    await store.writeCheckpoint('s2', { seq: 3, digest: KEYED_DIGEST, payload: '{"seq":3}' });
    const db = raw();
    const attempts = [
      "UPDATE fold_checkpoints SET payload = '{}' WHERE session_id = 's1' AND seq = 2",
      "UPDATE fold_checkpoints SET digest = digest WHERE session_id = 's2'",
      `INSERT OR REPLACE INTO fold_checkpoints (session_id, seq, digest, payload) VALUES ('s1', 2, '${KEYED_DIGEST}', '{"forged":1}')`,
      `INSERT INTO fold_checkpoints (session_id, seq, digest, payload) VALUES ('s1', 4, '${KEYED_DIGEST}', '{"forged":1}') ON CONFLICT DO UPDATE SET payload = excluded.payload`,
      "DELETE FROM fold_checkpoints WHERE session_id = 's1' AND seq = 4",
      "DELETE FROM fold_checkpoints WHERE session_id = 's1'",
      'DELETE FROM fold_checkpoints',
      "DELETE FROM fold_checkpoints WHERE session_id = 's2'",
    ];
    for (const sql of attempts) expect(() => db.prepare(sql).run(), sql).toThrow(/^shadowlog: fold checkpoints are append-only; /);
    const rows = () => db.prepare('SELECT session_id, seq, payload FROM fold_checkpoints ORDER BY session_id, seq').raw().all();
    expect(rows()).toEqual([
      ['s1', 2, '{"seq":2}'],
      ['s1', 4, '{"seq":4}'],
      ['s2', 3, '{"seq":3}'],
    ]);
    // Pruning: a checkpoint older than another of its session goes.
    expect(db.prepare("DELETE FROM fold_checkpoints WHERE session_id = 's1' AND seq = 2").run().changes).toBe(1);
    expect(await store.pruneCheckpoints('s1', 1)).toBe(0);
    expect(rows()).toEqual([
      ['s1', 4, '{"seq":4}'],
      ['s2', 3, '{"seq":3}'],
    ]);
  });

  it('refuses a file that is not a database with a StoreError that keeps the cause', async () => {
    await writeFile(path, 'this is not a database, it is a text file that is long enough to have a header');
    const error = await openSqliteStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'STORE_FAILURE', sqliteCode: 'SQLITE_NOTADB' });
    expect((error as Error).cause).toBeInstanceOf(Database.SqliteError);
  });

  it('stores canonical bodies however the events came: sealed here, imported from loosely written JSONL, or parsed', async () => {
    const store = await open();
    const canonical = events.map((event) => canonicalJson(event));
    // Another writer's export: keys in another order, whitespace, CRLF line ends.
    const loose = [
      JSON.stringify({ sessionId: 'imported', version: 1, format: 'shadowlog' }),
      ...events.map((event) => JSON.stringify(Object.fromEntries(Object.entries(event).reverse()), null, 1).replace(/\n/g, ' ')),
    ].join('\r\n');
    await importSession(
      store,
      (async function* () {
        yield Buffer.from(`${loose}\r\n`, 'utf8');
      })(),
    );
    const parsed = canonical.map((body) => JSON.parse(body) as LogEvent);
    await store.append('parsed', parsed.slice(0, 1), { expectedSeq: 0 });
    await store.append('parsed', parsed.slice(1), { expectedSeq: 1 });
    const bodies = raw({ readonly: true }).prepare('SELECT body FROM events WHERE session_id = ? ORDER BY seq').pluck();
    expect(bodies.all('imported')).toEqual(canonical);
    expect(bodies.all('parsed')).toEqual(canonical);
  });

  it('refuses, in the database itself, to update, delete, overwrite or skip an event', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    const db = raw();
    const body = canonicalJson(events[0]);
    const attempts = [
      "UPDATE events SET body = '{}' WHERE session_id = 's1' AND seq = 2",
      "DELETE FROM events WHERE session_id = 's1'",
      `INSERT OR REPLACE INTO events VALUES ('s1', 0, 'session/start', '${'0'.repeat(64)}', '${body}')`,
      `INSERT INTO events VALUES ('s1', ${events.length + 1}, 'user/message', '${'0'.repeat(64)}', '{}')`,
      `INSERT INTO events VALUES ('fresh', 1, 'user/message', '${'0'.repeat(64)}', '{}')`,
      "UPDATE sessions SET created_at = 'now'",
      'DELETE FROM sessions',
    ];
    for (const sql of attempts) {
      expect(() => db.prepare(sql).run(), sql).toThrow(/shadowlog: .*(append-only|next seq)/);
    }
    expect(await readAll(store, 's1')).toEqual(events);
    expect((await store.listSessions()).map((session) => session.id)).toEqual(['s1']);
  });

  it('holds every row of a long batch and of a raw multi-row insert to the next seq, in the database', async () => {
    const store = await open();
    const long = sealLog([
      ...sampleDrafts(),
      ...Array.from({ length: 27 - sampleDrafts().length }, (_, index) => drafts.user(`more ${index}`)),
    ]);
    expect(long).toHaveLength(27);
    await store.append('s1', long.slice(0, 2), { expectedSeq: 0 });
    await store.append('s1', long.slice(2), { expectedSeq: 2 });
    expect(await readAll(store, 's1')).toEqual(long);
    // Raw multi-row inserts: a hole in the middle and a start past the head are refused whole.
    const db = raw();
    const zeros = '0'.repeat(64);
    const rows = (seqs: number[]) => seqs.map((seq) => `('s1', ${seq}, 'user/message', '${zeros}', '{}')`).join(', ');
    for (const seqs of [
      [27, 28, 30, 31],
      [28, 29, 30],
    ]) {
      const sql = `INSERT INTO events VALUES ${rows(seqs)}`;
      expect(() => db.prepare(sql).run(), sql).toThrow(/shadowlog: .*next seq/);
    }
    expect(await readAll(store, 's1')).toEqual(long);
  });

  it('writes batches of any length through its multi-row inserts, and refuses a stale one whole', async () => {
    // Batches are written ten rows a statement and the rest one at a time: every length around
    // and across those boundaries lands whole, in order, with nothing lost or doubled.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 34 }), { minLength: 1, maxLength: 8 }), async (lengths) => {
        const file = join(directory, `batches-${lengths.join('-')}-${Math.random().toString(36).slice(2)}.db`);
        const store = await open(file);
        const total = lengths.reduce((sum, length) => sum + length, 0);
        const all = sealLog([drafts.start(), ...Array.from({ length: total }, (_, index) => drafts.user(`message ${index}`))]);
        await store.append('s1', all.slice(0, 1), { expectedSeq: 0 });
        let at = 1;
        for (const length of lengths) {
          await store.append('s1', all.slice(at, at + length), { expectedSeq: at });
          at += length;
        }
        expect(await readAll(store, 's1')).toEqual(all);
        // A batch of two statements' worth, a seq behind the head: nothing of it is written.
        const stale = sealLog([drafts.start(), ...Array.from({ length: total + 21 }, (_, index) => drafts.user(`other ${index}`))]).slice(
          total,
          total + 21,
        );
        await expect(store.append('s1', stale, { expectedSeq: total })).rejects.toMatchObject({ code: 'CONCURRENCY' });
        expect(await readAll(store, 's1')).toEqual(all);
      }),
      { numRuns: 25 },
    );
  });
});

describe('SqliteLogStore between processes', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  let directory: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-race-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
    await rm(directory, { recursive: true, force: true });
  });

  function startWriter(path: string, writer: string, count: number) {
    const child = spawn(process.execPath, [...nodeScriptArgs('test/store/fixtures/race-appends.ts'), path, 'race', writer, String(count)]);
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      child.once('exit', (code) => resolve({ code, stdout, stderr }));
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => stdout.includes('ready\n') && resolve());
      void exited.then((result) => reject(new Error(`writer ${writer} exited before it was ready: ${result.stderr}`)));
    });
    return { child, ready, exited };
  }

  it('lets two processes hammer one session and ends with a dense log, refusing only with ConcurrencyError', async () => {
    const path = join(directory, 'log.db');
    const store = await openSqliteStore(path);
    try {
      await store.append('race', events(), { expectedSeq: 0 });
      const count = 150;
      const writers = [startWriter(path, 'left', count), startWriter(path, 'right', count)];
      await Promise.all(writers.map((writer) => writer.ready));
      for (const writer of writers) writer.child.stdin.write('go\n');
      const results = await Promise.all(writers.map((writer) => writer.exited));
      for (const result of results) {
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        expect(JSON.parse(result.stdout.split('\n').at(-2) ?? '')).toMatchObject({ landed: count });
      }
      const stored: LogEvent[] = [];
      for await (const page of store.read('race')) stored.push(...page);
      expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index));
      expect(stored).toHaveLength(events().length + 2 * count);
    } finally {
      await store.close();
    }
  }, 60_000);

  function events(): LogEvent[] {
    return sealLog(sampleDrafts());
  }
});
