// Another application's SQLite file (issue 9, item 8): shadowlog marks its databases with its
// application_id, refuses a non-empty database that is not one before writing anything, and
// keeps opening the stores written before the mark existed.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import {
  APPLICATION_ID,
  MIGRATIONS,
  NotShadowlogDatabaseError,
  openSqliteStore,
  type SqliteLogStore,
} from '../../src/store/sqlite/index.js';
import { sampleDrafts, sealLog } from '../support/events.js';

const MODES = [
  { name: 'for writing', options: {} },
  { name: 'for reading only', options: { readOnly: true } },
];

describe('SqliteLogStore and SQLite files that are not its own', () => {
  const events = sealLog(sampleDrafts());
  let directory: string;
  let path: string;

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'shadowlog-sqlite-foreign-'));
    path = join(directory, 'app.db');
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  function withRaw<T>(work: (db: Database.Database) => T, options?: Database.Options): T {
    const db = new Database(path, options);
    try {
      return work(db);
    } finally {
      db.close();
    }
  }

  /** The file's bytes and the directory's names, to compare after a refused open. */
  function snapshot(): { bytes: Buffer; names: string[] } {
    return { bytes: readFileSync(path), names: readdirSync(directory).sort() };
  }

  async function readAll(store: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read(sessionId)) out.push(...page);
    return out;
  }

  describe.each(['delete', 'wal'])("another application's database in %s journal mode", (journalMode) => {
    beforeEach(() => {
      withRaw((db) => {
        db.pragma(`journal_mode = ${journalMode}`);
        db.exec(`
          CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
          CREATE TABLE orders (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customers (id), total REAL);
          CREATE INDEX orders_by_customer ON orders (customer);
          INSERT INTO customers (name) VALUES ('Ada'), ('Grace');
          INSERT INTO orders (customer, total) VALUES (1, 12.5), (2, 99);
        `);
      });
    });

    it.each(MODES)('is refused $name, naming its tables, and left byte for byte as it was', async ({ options }) => {
      const before = snapshot();
      const error = await openSqliteStore(path, options).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotShadowlogDatabaseError);
      expect(error).toMatchObject({
        code: 'NOT_SHADOWLOG_DATABASE',
        location: `sqlite:${path}`,
        found: { applicationId: 0, userVersion: 0, tables: ['customers', 'orders'] },
      });
      expect((error as Error).message).toContain('is not a shadowlog database: it holds 2 tables customers, orders; nothing was changed');
      const after = snapshot();
      expect(after.names).toEqual(before.names);
      expect(after.bytes.equals(before.bytes)).toBe(true);
      expect(withRaw((db) => db.pragma('journal_mode', { simple: true }), { readonly: true })).toBe(journalMode);
    });
  });

  it.each(MODES)(
    'refuses $name a database another application marked with its application_id, though it has no tables',
    async ({ options }) => {
      withRaw((db) => db.pragma('application_id = 0x1234abcd'));
      const before = snapshot();
      const error = await openSqliteStore(path, options).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'NOT_SHADOWLOG_DATABASE', found: { applicationId: 0x1234abcd, tables: [] } });
      expect((error as Error).message).toContain('it holds no tables, application_id 305441741 (0x1234abcd)');
      expect(snapshot().bytes.equals(before.bytes)).toBe(true);
    },
  );

  it.each(MODES)('refuses $name a database whose own meta table merely looks like shadowlog’s', async ({ options }) => {
    withRaw((db) => db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema_version', '1')"));
    const before = snapshot();
    await expect(openSqliteStore(path, options)).rejects.toMatchObject({ code: 'NOT_SHADOWLOG_DATABASE', found: { tables: ['meta'] } });
    expect(snapshot().bytes.equals(before.bytes)).toBe(true);
  });

  it('marks the stores it creates, and an empty file it is given, with its application_id', async () => {
    await (await openSqliteStore(path)).close();
    expect(withRaw((db) => db.pragma('application_id', { simple: true }), { readonly: true })).toBe(APPLICATION_ID);
    const empty = join(directory, 'empty.db');
    writeFileSync(empty, '');
    const store = await openSqliteStore(empty);
    await store.append('s1', events, { expectedSeq: 0 });
    await store.close();
    const db = new Database(empty, { readonly: true });
    expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    db.close();
  });

  it('keeps opening a store written before the mark: read-only leaves it as it is, writing marks it', async () => {
    // Built the way the schema-1 code built a file, which set no application_id.
    withRaw((db) => {
      db.pragma('journal_mode = WAL');
      MIGRATIONS[0]?.up(db);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '1')").run();
      const insert = db.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
      for (const event of events) insert.run('old', event.seq, event.type, event.hash, canonicalJson(event));
    });
    const before = readFileSync(path);
    expect(before.readInt32BE(68)).toBe(0);
    const reader = await openSqliteStore(path, { readOnly: true });
    expect(await readAll(reader, 'old')).toEqual(events);
    await reader.close();
    expect(readFileSync(path).equals(before)).toBe(true);
    const writer = await openSqliteStore(path);
    expect(await readAll(writer, 'old')).toEqual(events);
    await writer.close();
    expect(withRaw((db) => db.pragma('application_id', { simple: true }), { readonly: true })).toBe(APPLICATION_ID);
  });
});
