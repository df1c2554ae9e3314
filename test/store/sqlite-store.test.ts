// The SQLite store: the shared contract against a real file with a second connection, then
// what only this backend promises (schema versions, append-only triggers, closing, races
// between processes).

import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { ConcurrencyError, ConfigError, CorruptLogError, ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { importSession } from '../../src/store/jsonl.js';
import {
  MIGRATIONS,
  type Migration,
  migrate,
  openSqliteStore,
  readSchemaVersion,
  SCHEMA_VERSION,
  SchemaVersionError,
  type SqliteLogStore,
  StoreClosedError,
  StoreError,
} from '../../src/store/sqlite/index.js';
import { describeLogStoreContract } from '../contract/log-store-contract.js';
import { sampleDrafts, sealLog } from '../support/events.js';
import { pausedBatches } from '../support/paused-batches.js';

describeLogStoreContract('sqlite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-'));
  const path = join(directory, 'log.db');
  const store = await openSqliteStore(path);
  const seconds: SqliteLogStore[] = [];
  return {
    store,
    // Another connection on the same file: the race test races two real connections.
    openSecond: async () => {
      const second = await openSqliteStore(path);
      seconds.push(second);
      return second;
    },
    cleanup: async () => {
      for (const second of seconds) await second.close();
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

  it('creates the file and its parent directories, in WAL mode, at schema version 1', async () => {
    path = join(directory, 'nested', 'deeper', 'log.db');
    const store = await open();
    expect(store.location).toBe(`sqlite:${path}`);
    const db = raw({ readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(SCHEMA_VERSION).toBe(1);
    expect(readSchemaVersion(db, path)).toBe(1);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe('1');
  });

  it('refuses a file whose schema is newer than it knows, saying what to do, and leaves it alone', async () => {
    await (await open()).close();
    raw().prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    const error = await openSqliteStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SchemaVersionError);
    expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 99, expected: 1 });
    expect((error as Error).message).toMatch(/schema version 99.*up to 1.*upgrade shadowlog/);
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
    const later: Migration = { from: 1, description: 'a later version', up: (db) => db.exec('CREATE TABLE later (x)') };
    const next = [...MIGRATIONS, later].map(recorded);
    const db = raw();
    expect(migrate(db, path, next)).toBe(2);
    expect(applied).toEqual([1]);
    expect(readSchemaVersion(db, path)).toBe(2);
    expect(migrate(db, path, next)).toBe(2);
    expect(applied).toEqual([1]);
    // This library knows version 1 only, so the migrated file is now too new for it.
    await expect(openSqliteStore(path)).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 2 });
  });

  it('refuses a file that is not a database with a StoreError that keeps the cause', async () => {
    await writeFile(path, 'this is not a database, it is a text file that is long enough to have a header');
    const error = await openSqliteStore(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'STORE_FAILURE', sqliteCode: 'SQLITE_NOTADB' });
    expect((error as Error).cause).toBeInstanceOf(Database.SqliteError);
  });

  it('stores each event as the canonical JSON of the whole event, hash included', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    const rows = raw({ readonly: true }).prepare('SELECT session_id, seq, type, hash, body FROM events ORDER BY seq').all();
    expect(rows).toEqual(
      events.map((event) => ({ session_id: 's1', seq: event.seq, type: event.type, hash: event.hash, body: canonicalJson(event) })),
    );
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

  it('reports a damaged stored event as a CorruptLogError naming its seq', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    const db = raw();
    db.exec('DROP TRIGGER events_no_update');
    db.prepare("UPDATE events SET body = 'not json' WHERE seq = 2").run();
    await expect(store.readEvent('s1', 2)).rejects.toMatchObject({ code: 'CORRUPT_LOG', seq: 2 });
    await expect(readAll(store, 's1')).rejects.toBeInstanceOf(CorruptLogError);
  });

  it('refuses a read range that makes no sense', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    for (const range of [{ pageSize: 0 }, { fromSeq: -1 }, { toSeq: 1.5 }]) {
      await expect(store.read('s1', range)[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(ConfigError);
    }
  });

  it('lists sessions in code-unit order, with their first and last event times', async () => {
    const store = await open();
    const timed = sealLog(sampleDrafts().map((draft, index) => ({ ...draft, time: `2026-02-01T00:00:0${index}.000Z` })));
    await store.append('a-lower', timed, { expectedSeq: 0 });
    await store.append('B-upper', timed.slice(0, 2), { expectedSeq: 0 });
    expect(await store.listSessions()).toEqual([
      { id: 'B-upper', events: 2, createdAt: '2026-02-01T00:00:00.000Z', updatedAt: '2026-02-01T00:00:01.000Z' },
      { id: 'a-lower', events: timed.length, createdAt: '2026-02-01T00:00:00.000Z', updatedAt: timed.at(-1)?.time },
    ]);
  });

  it('refuses a single event that does not take the next seq with ConcurrencyError, naming the seq it found', async () => {
    const store = await open();
    await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
    for (const seq of [1, 5]) {
      const error = await store.append('s1', events.slice(seq, seq + 1), { expectedSeq: seq }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ sessionId: 's1', expected: seq, actual: 3 });
    }
    await store.append('s1', events.slice(3, 4), { expectedSeq: 3 });
    expect((await store.head('s1'))?.nextSeq).toBe(4);
  });

  it('appendAll refuses a stale expected seq and a batch out of order, storing nothing of it', async () => {
    const store = await open();
    await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
    async function* from(batches: LogEvent[][]) {
      yield* batches;
    }
    await expect(store.appendAll('s1', from([events.slice(0, 2)]), { expectedSeq: 0 })).rejects.toBeInstanceOf(ConcurrencyError);
    const outOfOrder = [events.slice(2, 4), events.slice(5)];
    await expect(store.appendAll('s1', from(outOfOrder), { expectedSeq: 2 })).rejects.toBeInstanceOf(ShadowlogError);
    expect((await store.head('s1'))?.nextSeq).toBe(2);
    expect(await store.appendAll('s1', from([events.slice(2, 4), events.slice(4)]), { expectedSeq: 2 })).toBe(events.length - 2);
    expect(await readAll(store, 's1')).toEqual(events);
  });

  it('lets other calls on the same store and other connections go on while appendAll reads its stream, showing none of it until it commits', async () => {
    const store = await open();
    const second = await open();
    const paused = pausedBatches(events);
    const importing = store.appendAll('imported', paused.source, { expectedSeq: 0 });
    await paused.firstBatchTaken;
    // Not joined to the import: it lands on its own, and the other connection sees it at once.
    await store.append('other', events.slice(0, 1), { expectedSeq: 0 });
    expect((await second.head('other'))?.nextSeq).toBe(1);
    expect(await store.head('imported')).toBeUndefined();
    expect(await second.head('imported')).toBeUndefined();
    expect((await second.listSessions()).map((session) => session.id)).toEqual(['other']);
    paused.finish();
    expect(await importing).toBe(events.length);
    expect(await store.head('imported')).toEqual({ nextSeq: events.length, lastHash: events.at(-1)?.hash });
    expect(await readAll(second, 'imported')).toEqual(events);
    // An import that fails after other calls went on takes none of them with it.
    const failing = pausedBatches([...events.slice(0, 3), events[5] as LogEvent]);
    const refused = store.appendAll('refused', failing.source, { expectedSeq: 0 }).catch((caught: unknown) => caught);
    await failing.firstBatchTaken;
    await store.append('other', events.slice(1, 2), { expectedSeq: 1 });
    failing.finish();
    expect(await refused).toBeInstanceOf(ShadowlogError);
    expect(await second.head('refused')).toBeUndefined();
    expect((await second.head('other'))?.nextSeq).toBe(2);
  });

  it('refuses every use after close with StoreClosedError, and closes twice without complaint', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    await store.close();
    await store.close();
    const calls = [
      () => store.append('s1', events.slice(0, 1), { expectedSeq: 0 }),
      () => store.head('s1'),
      () => store.readEvent('s1', 0),
      () => store.listSessions(),
      () => store.acquireOwnership('s1'),
      () => store.read('s1')[Symbol.asyncIterator]().next(),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it('releases the claims made through it when it closes', async () => {
    const store = await open();
    await store.acquireOwnership('s1');
    const ownership = await store.acquireOwnership('s2');
    await store.close();
    await ownership.release();
    const other = await open();
    await (await other.acquireOwnership('s1')).release();
    await (await other.acquireOwnership('s2')).release();
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
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/store/fixtures/race-appends.ts', path, 'race', writer, String(count)]);
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
