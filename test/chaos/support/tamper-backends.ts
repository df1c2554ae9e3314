// Stores with their append-only guard deliberately taken off, for the tamper suite: a way to
// read, overwrite, delete and put back one stored event body behind the store's back.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LogStore } from '../../../src/store/log-store.js';
import { openPostgresStore } from '../../../src/store/postgres/index.js';
import { openSqliteStore } from '../../../src/store/sqlite/index.js';
import type { PostgresTestServer } from '../../support/postgres.js';

export interface StoredRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly hash: string;
  readonly body: string;
}

export interface TamperBackend {
  readonly store: LogStore;
  /** The --store value that opens the same store from the CLI. */
  readonly storeSpec: string;
  row(sessionId: string, seq: number): Promise<StoredRow>;
  /** Overwrites the stored body (bypassing the append-only guard). */
  writeBody(sessionId: string, seq: number, body: Buffer): Promise<void>;
  deleteRow(sessionId: string, seq: number): Promise<void>;
  insertRow(row: StoredRow): Promise<void>;
  close(): Promise<void>;
}

export async function createSqliteTamperBackend(): Promise<TamperBackend> {
  const directory = mkdtempSync(join(tmpdir(), 'shadowlog-tamper-'));
  const path = join(directory, 'tamper.db');
  const store = await openSqliteStore(path);
  const raw = new Database(path);
  // The guard, bypassed on purpose: without these triggers rows can be changed and deleted.
  for (const trigger of ['events_no_update', 'events_no_delete', 'events_next_seq', 'events_first']) raw.exec(`DROP TRIGGER ${trigger}`);
  return {
    store,
    storeSpec: `sqlite:${path}`,
    async row(sessionId, seq) {
      const row = raw
        .prepare<[string, number], { session_id: string; seq: number; type: string; hash: string; body: string }>(
          'SELECT session_id, seq, type, hash, body FROM events WHERE session_id = ? AND seq = ?',
        )
        .get(sessionId, seq);
      if (row === undefined) throw new Error(`no stored row ${sessionId}/${seq}`);
      return { sessionId: row.session_id, seq: row.seq, type: row.type, hash: row.hash, body: row.body };
    },
    async writeBody(sessionId, seq, body) {
      // Bound as text from the raw bytes, so a byte that breaks UTF-8 is stored as it is.
      raw.prepare('UPDATE events SET body = CAST(? AS TEXT) WHERE session_id = ? AND seq = ?').run(body, sessionId, seq);
    },
    async deleteRow(sessionId, seq) {
      raw.prepare('DELETE FROM events WHERE session_id = ? AND seq = ?').run(sessionId, seq);
    },
    async insertRow(row) {
      raw
        .prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)')
        .run(row.sessionId, row.seq, row.type, row.hash, row.body);
    },
    async close() {
      raw.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

export async function createPostgresTamperBackend(pg: PostgresTestServer): Promise<TamperBackend> {
  const schema = pg.freshSchema();
  const store = await openPostgresStore(pg.url, { schema });
  const table = `"${schema}".events`;
  // The guard, bypassed on purpose, in this test's schema only.
  await pg.admin.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
  const url = new URL(pg.url);
  url.searchParams.set('schema', schema);
  return {
    store,
    storeSpec: url.toString(),
    async row(sessionId, seq) {
      const result = await pg.admin.query<{ session_id: string; seq: string; type: string; hash: string; body: string }>(
        `SELECT session_id, seq, type, hash, body FROM ${table} WHERE session_id = $1 AND seq = $2`,
        [sessionId, seq],
      );
      const row = result.rows[0];
      if (row === undefined) throw new Error(`no stored row ${sessionId}/${seq}`);
      return { sessionId: row.session_id, seq: Number(row.seq), type: row.type, hash: row.hash, body: row.body };
    },
    async writeBody(sessionId, seq, body) {
      // PostgreSQL text must be valid UTF-8: a byte that would break it is refused by the server,
      // so the suite only writes bytes that keep the body valid UTF-8 here.
      await pg.admin.query(`UPDATE ${table} SET body = $3 WHERE session_id = $1 AND seq = $2`, [sessionId, seq, body.toString('utf8')]);
    },
    async deleteRow(sessionId, seq) {
      await pg.admin.query(`DELETE FROM ${table} WHERE session_id = $1 AND seq = $2`, [sessionId, seq]);
    },
    async insertRow(row) {
      await pg.admin.query(`INSERT INTO ${table} (session_id, seq, type, hash, body) VALUES ($1, $2, $3, $4, $5)`, [
        row.sessionId,
        row.seq,
        row.type,
        row.hash,
        row.body,
      ]);
    },
    async close() {
      await store.close();
    },
  };
}
