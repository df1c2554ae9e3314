// Stores for the fold checkpoint chaos tests (checkpoint-forgery, checkpoint-fallback): a real
// SQLite file or PostgreSQL schema, reached as the user reaches it (the CLI's --store, the
// library) and as whoever can write it reaches it (raw SQL on the checkpoint table, the
// append-only triggers dropped when one owns the store). And the harness `shadowlog compact`
// mounts, whose checkpoints hold the state compact restores.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createCompaction } from '../../../src/compaction/compaction-capability.js';
import type { LogEvent } from '../../../src/log/event.js';
import { ScriptedModel } from '../../../src/providers/scripted-model.js';
import { createHarness, type Harness } from '../../../src/spine/harness.js';
import type { CheckpointStore, LogStore } from '../../../src/store/log-store.js';
import { openPostgresStore } from '../../../src/store/postgres/index.js';
import { openSqliteStore } from '../../../src/store/sqlite/index.js';
import type { PostgresTestServer } from '../../support/postgres.js';

export type Store = LogStore & CheckpointStore;

/** A store as the attacker and the user reach it: the CLI's --store, the library, and raw SQL on the checkpoint table. */
export interface Backend {
  readonly storeArg: string;
  open(): Promise<Store>;
  /** Rewrites a checkpoint row as whoever owns the store can: the append-only triggers dropped first, when there are any. */
  rewrite(sessionId: string, seq: number, row: { digest: string; payload: string }): Promise<void>;
  /** Inserts a checkpoint row, as any role that may insert into the table can. */
  insert(sessionId: string, seq: number, row: { digest: string; payload: string }): Promise<void>;
  /** Runs one statement on the checkpoint table (`{table}` stands for it): the error it raised, if any. */
  attempt(sql: string): Promise<unknown>;
  close(): Promise<void>;
}

const TRIGGERS = ['fold_checkpoints_no_update', 'fold_checkpoints_no_overwrite', 'fold_checkpoints_prune_only'];

export function sqliteBackend(file: string): Backend {
  const stores: Store[] = [];
  const withRaw = <T>(work: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  return {
    storeArg: `sqlite:${file}`,
    open: async () => {
      const store = await openSqliteStore(file);
      stores.push(store);
      return store;
    },
    rewrite: async (sessionId, seq, row) =>
      withRaw((db) => {
        for (const trigger of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
        db.prepare('UPDATE fold_checkpoints SET digest = ?, payload = ? WHERE session_id = ? AND seq = ?').run(
          row.digest,
          row.payload,
          sessionId,
          seq,
        );
      }),
    insert: async (sessionId, seq, row) =>
      withRaw((db) => {
        db.prepare('INSERT INTO fold_checkpoints (session_id, seq, digest, payload) VALUES (?, ?, ?, ?)').run(
          sessionId,
          seq,
          row.digest,
          row.payload,
        );
      }),
    attempt: async (sql) =>
      withRaw((db) => {
        try {
          db.prepare(sql.replaceAll('{table}', 'fold_checkpoints')).run();
          return undefined;
        } catch (error) {
          return error;
        }
      }),
    close: async () => {
      for (const store of stores.splice(0)) await store.close();
    },
  };
}

export function postgresBackend(server: PostgresTestServer): Backend {
  const schema = server.freshSchema();
  const url = new URL(server.url);
  url.searchParams.set('schema', schema);
  const table = `"${schema}".fold_checkpoints`;
  const stores: Store[] = [];
  return {
    storeArg: url.toString(),
    open: async () => {
      const store = await openPostgresStore(server.url, { schema });
      stores.push(store);
      return store;
    },
    rewrite: async (sessionId, seq, row) => {
      for (const trigger of TRIGGERS) await server.admin.query(`DROP TRIGGER IF EXISTS ${trigger} ON ${table}`);
      await server.admin.query(`UPDATE ${table} SET digest = $1, payload = $2 WHERE session_id = $3 AND seq = $4`, [
        row.digest,
        row.payload,
        sessionId,
        seq,
      ]);
    },
    insert: async (sessionId, seq, row) => {
      await server.admin.query(`INSERT INTO ${table} (session_id, seq, digest, payload) VALUES ($1, $2, $3, $4)`, [
        sessionId,
        seq,
        row.digest,
        row.payload,
      ]);
    },
    attempt: async (sql) =>
      server.admin.query(sql.replaceAll('{table}', table)).then(
        () => undefined,
        (error: unknown) => error,
      ),
    close: async () => {
      for (const store of stores.splice(0)) await store.close();
    },
  };
}

/** A harness as `shadowlog compact` mounts one: compaction alone, so its checkpoints hold the state compact restores. */
export function compactingHarness(store: Store): Harness {
  const model = new ScriptedModel({ limits: { contextWindow: 200_000, defaultMaxOutputTokens: 8_192 }, replies: [] });
  return createHarness({ store, model, capabilities: [createCompaction()] });
}

export async function eventsOf(store: Store, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

let stores = 0;

/** A new store per call (a forger who owns one drops its triggers): an SQLite file in `cwd`, and a PostgreSQL schema when a server answers. */
export function checkpointBackends(pg: PostgresTestServer | undefined, prefix: string): Array<[string, (cwd: string) => Backend]> {
  const backends: Array<[string, (cwd: string) => Backend]> = [['SQLite', (cwd) => sqliteBackend(join(cwd, `${prefix}-${++stores}.db`))]];
  if (pg !== undefined) backends.push(['PostgreSQL', () => postgresBackend(pg)]);
  return backends;
}
