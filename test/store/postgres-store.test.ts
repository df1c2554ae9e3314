// The PostgreSQL store: the shared contract against a real server, each test in a schema of its
// own with a second pool for the races, then what only this backend promises (schema versions,
// append-only triggers, connection failures, pooled connections). Needs
// SHADOWLOG_TEST_POSTGRES_URL; see test/support/postgres.ts.

import { hostname } from 'node:os';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { ConcurrencyError, ConfigError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { encodeFoldCheckpoint } from '../../src/log/fold-checkpoint.js';
import { followSession } from '../../src/store/follow.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';
import {
  hidePassword,
  MIGRATIONS,
  type Migration,
  migrate,
  openPostgresStore,
  PostgresConnectionError,
  type PostgresLogStore,
  PostgresSchemaVersionError,
  type PostgresStoreOptions,
  readSchemaVersion,
  SCHEMA_VERSION,
} from '../../src/store/postgres/index.js';
import { SessionLog } from '../../src/store/session-log.js';
import { describeCheckpointContract } from '../contract/checkpoint-contract.js';
import { describeLogStoreContract, type StoredRow } from '../contract/log-store-contract.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';
import { pausedBatches } from '../support/paused-batches.js';
import { claimWithin, findPostgres } from '../support/postgres.js';

/** A digest of the keyed form, for rows whose payload no reader proves. */
const KEYED_DIGEST = `hmac-sha256:${'0'.repeat(16)}:${'a'.repeat(64)}`;

const server = await findPostgres({ announce: true });
const CHILD_TIMEOUT_MS = 20_000;

describe.skipIf(server === undefined)('PostgresLogStore', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  describeCheckpointContract('postgres', async () => {
    const store = await openPostgresStore(pg.url, { schema: pg.freshSchema() });
    return { store, cleanup: () => store.close() };
  });

  describeLogStoreContract(
    'postgres',
    async () => {
      const schema = pg.freshSchema();
      const store = await openPostgresStore(pg.url, { schema });
      const seconds: PostgresLogStore[] = [];
      const children: Child[] = [];
      return {
        store,
        // Another pool on the same schema: the race test races two real connections.
        openSecond: async () => {
          const second = await openPostgresStore(pg.url, { schema });
          seconds.push(second);
          return second;
        },
        storedRows: async (sessionId) =>
          (
            await pg.admin.query<StoredRow>(
              `SELECT session_id AS "sessionId", seq::int, type, hash, body FROM "${schema}".events WHERE session_id = $1 ORDER BY seq`,
              [sessionId],
            )
          ).rows,
        damageBody: async (sessionId, seq, body) => {
          await pg.admin.query(`ALTER TABLE "${schema}".events DISABLE TRIGGER events_no_update`);
          await pg.admin.query(`UPDATE "${schema}".events SET body = $1 WHERE session_id = $2 AND seq = $3`, [body, sessionId, seq]);
        },
        startOwner: (sessionId, mode) => {
          const child = startChild(
            'test/store/fixtures/hold-ownership.ts',
            ['postgres', pg.url, schema, sessionId, mode],
            CHILD_TIMEOUT_MS,
          );
          children.push(child);
          return child;
        },
        // The server frees a killed owner's advisory lock once it sees the connection gone.
        claimOnceFree: async (claimant, sessionId) => (await claimWithin(claimant, sessionId)).ownership,
        ownerPattern: (pid) =>
          new RegExp(`^pid ${pid} on host ${hostname()} since \\d{4}-\\d\\d-\\d\\dT.*Z \\(PostgreSQL backend \\d+\\)$`),
        cleanup: async () => {
          await killChildren(children);
          for (const second of seconds) await second.close();
          await store.close();
          await pg.dropSchemas();
        },
      };
    },
    { storedForm: true, closes: true, processes: true },
  );

  describe('on its own', () => {
    const events = sealLog(sampleDrafts());
    const opened: PostgresLogStore[] = [];
    let schema: string;

    async function open(options: PostgresStoreOptions = {}): Promise<PostgresLogStore> {
      const store = await openPostgresStore(pg.url, { schema, ...options });
      opened.push(store);
      return store;
    }
    function fresh(): void {
      schema = pg.freshSchema();
    }
    async function readAll(store: PostgresLogStore, sessionId: string): Promise<LogEvent[]> {
      const out: LogEvent[] = [];
      for await (const page of store.read(sessionId)) out.push(...page);
      return out;
    }
    async function raw<R extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<R[]> {
      return (await pg.admin.query<R>(sql, values)).rows;
    }
    /** The schema migrated to `version` only, holding `events` of session s1 as a shadowlog of that version wrote them. */
    async function schemaAtVersion(version: number): Promise<void> {
      const client = await pg.admin.connect();
      try {
        expect(await migrate(client, schema, 'test', MIGRATIONS.slice(0, version))).toBe(version);
      } finally {
        client.release();
      }
      for (const event of events) {
        await raw(`INSERT INTO "${schema}".events VALUES ('s1', $1, $2, $3, $4)`, [
          event.seq,
          event.type,
          event.hash,
          canonicalJson(event),
        ]);
      }
    }

    beforeEach(() => {
      fresh();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await pg.dropSchemas();
    });

    it('creates its tables in the schema it is given, at schema version 8, and names it in its location', async () => {
      const store = await open();
      expect(store.location).toBe(`${pg.url.replace(/:[^/@:]*@/, '@')}?schema=${schema}`);
      expect(SCHEMA_VERSION).toBe(8);
      expect(await raw(`SELECT key, value FROM "${schema}".meta`)).toEqual([{ key: 'schema_version', value: '8' }]);
      const tables = await raw<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      );
      expect(tables.map((row) => row.table_name)).toEqual([
        'events',
        'fold_checkpoints',
        'followers',
        'meta',
        'owners',
        'search_rows',
        'search_shadowed',
        'session_forks',
      ]);
      // Every index of events leads with session_id, so the table can be distributed by it.
      const indexes = await raw<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'events'", [
        schema,
      ]);
      expect(indexes.length).toBeGreaterThan(0);
      for (const { indexdef } of indexes) expect(indexdef).toMatch(/USING btree \(session_id[,)]/);
    });

    it('takes the schema from the URL, and refuses a schema name that would need quoting', async () => {
      const store = await openPostgresStore(`${pg.url}?schema=${schema}`);
      opened.push(store);
      expect(store.location).toMatch(new RegExp(`\\?schema=${schema}$`));
      for (const bad of ['Upper', 'has space', 'x"; DROP SCHEMA public; --', 'pg_catalog', '1abc', '', 'x'.repeat(64)]) {
        await expect(openPostgresStore(pg.url, { schema: bad })).rejects.toBeInstanceOf(ConfigError);
      }
      await expect(openPostgresStore(`${pg.url}?schema=one`, { schema: 'two' })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
      await expect(openPostgresStore(pg.url, { maxConnections: 0 })).rejects.toMatchObject({
        code: 'INVALID_CONFIG',
        key: 'maxConnections',
      });
    });

    it('refuses a schema whose version is newer than it knows, saying what to do, and leaves it alone', async () => {
      await (await open()).close();
      await raw(`UPDATE "${schema}".meta SET value = '99' WHERE key = 'schema_version'`);
      const error = await openPostgresStore(pg.url, { schema }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PostgresSchemaVersionError);
      expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 99, expected: 8 });
      expect((error as Error).message).toMatch(/schema version 99.*up to 8.*upgrade shadowlog/);
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(99);
    });

    it('migrates one version at a time, running only the steps a schema has not had', async () => {
      expect(MIGRATIONS.map((migration) => migration.from)).toEqual(MIGRATIONS.map((_, index) => index));
      await (await open()).close();
      const applied: number[] = [];
      const recorded = (migration: Migration): Migration => ({
        ...migration,
        up: async (client, quoted) => {
          applied.push(migration.from);
          await migration.up(client, quoted);
        },
      });
      const later: Migration = {
        from: SCHEMA_VERSION,
        description: 'a later version',
        up: async (client, quoted) => {
          await client.query(`CREATE TABLE ${quoted}.later (x int)`);
        },
      };
      const next = [...MIGRATIONS, later].map(recorded);
      const client = await pg.admin.connect();
      try {
        expect(await migrate(client, schema, 'test', next)).toBe(9);
        expect(applied).toEqual([8]);
        expect(await migrate(client, schema, 'test', next)).toBe(9);
        expect(applied).toEqual([8]);
      } finally {
        client.release();
      }
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(9);
      // This library knows up to version 8, so the migrated schema is now too new for it.
      await expect(openPostgresStore(pg.url, { schema })).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW', found: 9 });
    });

    it('migrates a version 1 schema to the current version, keeping its events, and its followers are then woken by appends', async () => {
      // Version 1 as an older shadowlog left it: events written, no followers table, no notifying trigger.
      await schemaAtVersion(1);
      expect(await raw('SELECT to_regclass($1) AS found', [`"${schema}".followers`])).toEqual([{ found: null }]);
      const store = await open();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      expect(await readAll(store, 's1')).toEqual(events);
      const triggers = await raw<{ tgname: string }>(
        'SELECT tgname FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname',
        [`"${schema}".events`],
      );
      expect(triggers.map((row) => row.tgname)).toEqual([
        'events_check_seqs',
        'events_no_delete',
        'events_no_truncate',
        'events_no_update',
        'events_notify',
      ]);
      // Polling once an hour: only a notification brings the new event in time.
      const more = sealLog([...sampleDrafts(), drafts.user('after the migration')]);
      const controller = new AbortController();
      const seen: number[] = [];
      const following = (async () => {
        for await (const page of followSession(store, 's1', { signal: controller.signal, pollMs: 3_600_000 })) {
          seen.push(...page.map((event) => event.seq));
          if (seen.length === more.length) controller.abort();
        }
      })();
      while (seen.length < events.length) await new Promise((resolve) => setTimeout(resolve, 5));
      await store.append('s1', more.slice(events.length), { expectedSeq: events.length });
      await following;
      expect(seen).toEqual(more.map((event) => event.seq));
    });

    it('migrates a version 3 schema to the current version, keeping its events; a reader of version 3 finds no checkpoints', async () => {
      await schemaAtVersion(3);
      const reader = await openPostgresStore(pg.url, { schema, readOnly: true });
      opened.push(reader);
      expect(await readAll(reader, 's1')).toEqual(events);
      expect(await reader.listCheckpoints('s1')).toEqual([]);
      expect(await reader.readCheckpoint('s1', 2)).toBeUndefined();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(3);
      const writer = await open();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      expect(await readAll(writer, 's1')).toEqual(events);
      await writer.writeCheckpoint('s1', { seq: 2, digest: KEYED_DIGEST, payload: '{}' });
      expect((await writer.listCheckpoints('s1')).map((entry) => entry.seq)).toEqual([2]);
      await expect(reader.writeCheckpoint('s1', { seq: 2, digest: KEYED_DIGEST, payload: '{}' })).rejects.toMatchObject({
        code: 'STORE_READ_ONLY',
      });
    });

    it('migrates a version 5 schema to version 6: its checkpoints kept and now append-only, an unkeyed one listed but never proven', async () => {
      await schemaAtVersion(5);
      const walked = await SessionLog.open(await open({ readOnly: true }), 's1', { checkpoints: false });
      const payload = encodeFoldCheckpoint('s1', walked.fold.snapshot());
      await raw(`INSERT INTO "${schema}".fold_checkpoints VALUES ('s1', $1, $2, $3)`, [events.length, nodeSha256.hex(payload), payload]);
      const store = await open();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      const reopened = await SessionLog.open(store, 's1');
      expect(reopened.checkpointReport).toEqual({
        restoredFrom: undefined,
        ignored: [
          { seq: events.length, status: 'unproven', reason: expect.stringMatching(/^it was written before checkpoints were keyed/) },
        ],
      });
      expect(reopened.fold.toArray()).toEqual(walked.fold.toArray());
      const error = await raw(`UPDATE "${schema}".fold_checkpoints SET payload = '{}'`).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'SL002', message: expect.stringMatching(/^shadowlog: fold checkpoints are append-only/) });
    });

    it('refuses, in the database itself, to update, truncate, overwrite or delete a fold checkpoint, but for pruning an older one', async () => {
      const store = await open();
      await store.append('s1', events, { expectedSeq: 0 });
      await store.append('s2', events, { expectedSeq: 0 });
      for (const seq of [2, 4]) await store.writeCheckpoint('s1', { seq, digest: KEYED_DIGEST, payload: `{"seq":${seq}}` });
      await store.writeCheckpoint('s2', { seq: 3, digest: KEYED_DIGEST, payload: '{"seq":3}' });
      const s = `"${schema}".fold_checkpoints`;
      const attempts = [
        `UPDATE ${s} SET payload = '{}' WHERE session_id = 's1' AND seq = 2`,
        `UPDATE ${s} SET payload = '{}' WHERE false`,
        `INSERT INTO ${s} VALUES ('s1', 2, '${KEYED_DIGEST}', '{"forged":1}') ON CONFLICT (session_id, seq) DO UPDATE SET payload = EXCLUDED.payload`,
        `TRUNCATE ${s}`,
        `DELETE FROM ${s} WHERE session_id = 's1' AND seq = 4`,
        `DELETE FROM ${s} WHERE session_id = 's1'`,
        `DELETE FROM ${s}`,
        `DELETE FROM ${s} WHERE session_id = 's2'`,
      ];
      for (const sql of attempts) {
        const error = await raw(sql).catch((caught: unknown) => caught);
        expect(error, sql).toMatchObject({
          code: 'SL002',
          message: expect.stringMatching(/^shadowlog: fold checkpoints are append-only; /),
        });
      }
      // A plain insert over one is refused by the primary key.
      await expect(raw(`INSERT INTO ${s} VALUES ('s1', 2, '${KEYED_DIGEST}', '{"forged":1}')`)).rejects.toMatchObject({ code: '23505' });
      const rows = () => raw(`SELECT session_id, seq::int AS seq, payload FROM ${s} ORDER BY session_id, seq`);
      expect(await rows()).toEqual([
        { session_id: 's1', seq: 2, payload: '{"seq":2}' },
        { session_id: 's1', seq: 4, payload: '{"seq":4}' },
        { session_id: 's2', seq: 3, payload: '{"seq":3}' },
      ]);
      // Pruning: a checkpoint older than another of its session goes.
      await raw(`DELETE FROM ${s} WHERE session_id = 's1' AND seq = 2`);
      expect(await store.pruneCheckpoints('s1', 1)).toBe(0);
      expect(await rows()).toEqual([
        { session_id: 's1', seq: 4, payload: '{"seq":4}' },
        { session_id: 's2', seq: 3, payload: '{"seq":3}' },
      ]);
    });

    it('migrates a version 4 schema to version 5, whose session id check admits exactly the ids the old one did', async () => {
      const checkOf = async () =>
        raw<{ definition: string; validated: boolean }>(
          "SELECT pg_get_constraintdef(oid) AS definition, convalidated AS validated FROM pg_constraint WHERE conrelid = $1::regclass AND conname = 'events_session_id_check'",
          [`"${schema}".events`],
        );
      await schemaAtVersion(4);
      expect((await checkOf())[0]?.definition).toContain('{0,127}');
      // A table with the constraints of version 4's events, to try ids against the old check as installed.
      await raw(`CREATE TABLE "${schema}".version_4_checks (LIKE "${schema}".events INCLUDING CONSTRAINTS)`);
      const store = await open();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      // The table had rows, which passed the old check: the new one is not validated by a scan.
      const [check] = await checkOf();
      expect(check?.definition).not.toContain('{0,127}');
      expect(check?.validated).toBe(false);
      expect(await readAll(store, 's1')).toEqual(events);
      // The two expressions agree on the edge cases and on random strings over the id alphabet and beyond it.
      const edges = ['a', 'A', '0', 'a'.repeat(128), 'a'.repeat(129), '', '.a', '_a', '-a', 'a.b_c-d', 'a b', 'a\n', 'ä', 'a$', 'a/b'];
      const random = fc.sample(fc.string({ unit: fc.constantFrom('a', 'Z', '9', '.', '_', '-', ' ', 'é', '\n'), maxLength: 140 }), {
        numRuns: 300,
        seed: 18,
      });
      const lengths = [127, 128, 129].map((length) => `x${'-'.repeat(length - 1)}`);
      const ids = [...new Set([...edges, ...random, ...lengths])];
      // Each id against the installed checks: version 4's (the table copied above) and version 5's.
      await raw(`CREATE TABLE "${schema}".version_5_checks (LIKE "${schema}".events INCLUDING CONSTRAINTS)`);
      const admits = async (table: string, id: string) =>
        pg.admin.query(`INSERT INTO "${schema}".${table} VALUES ($1, 0, 'session/start', $2, '{}')`, [id, '0'.repeat(64)]).then(
          () => true,
          (error: unknown) => {
            expect(error).toMatchObject({ code: '23514', constraint: 'events_session_id_check' });
            return false;
          },
        );
      const verdicts: Array<{ id: string; old: boolean; current: boolean }> = [];
      for (const id of ids) verdicts.push({ id, old: await admits('version_4_checks', id), current: await admits('version_5_checks', id) });
      for (const verdict of verdicts)
        expect({ id: verdict.id, admitted: verdict.current }).toEqual({ id: verdict.id, admitted: verdict.old });
      expect(verdicts.filter((verdict) => verdict.old).length).toBeGreaterThan(10);
      expect(verdicts.filter((verdict) => !verdict.old).length).toBeGreaterThan(10);
      // And the database refuses a bad id itself, as before.
      await expect(
        pg.admin.query(`INSERT INTO "${schema}".events VALUES ($1, 0, 'session/start', $2, '{}')`, ['-bad', '0'.repeat(64)]),
      ).rejects.toMatchObject({ code: '23514', constraint: 'events_session_id_check' });
      // About 1,200 statements, one at a time: on a busy machine more than the default 30 s.
    }, 120_000);

    it('validates the session id check at once on a new schema, whose table is empty', async () => {
      await (await open()).close();
      expect(
        await raw(
          "SELECT convalidated AS validated FROM pg_constraint WHERE conrelid = $1::regclass AND conname = 'events_session_id_check'",
          [`"${schema}".events`],
        ),
      ).toEqual([{ validated: true }]);
    });

    it('migrates a version 2 schema to version 3, keeping its events: seqs are then checked once per statement', async () => {
      await schemaAtVersion(2);
      const triggersOf = async () =>
        (
          await raw<{ tgname: string; row_level: boolean }>(
            "SELECT tgname, (tgtype & 1) = 1 AS row_level FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal AND tgname LIKE 'events_%seq%'",
            [`"${schema}".events`],
          )
        ).map((row) => `${row.tgname} ${row.row_level ? 'per row' : 'per statement'}`);
      expect(await triggersOf()).toEqual(['events_next_seq per row']);
      const store = await open();
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      expect(await triggersOf()).toEqual(['events_check_seqs per statement']);
      expect(
        await raw('SELECT count(*)::int AS n FROM pg_proc WHERE proname = $1 AND pronamespace = $2::regnamespace', [
          'events_next_seq',
          `"${schema}"`,
        ]),
      ).toEqual([{ n: 0 }]);
      expect(await readAll(store, 's1')).toEqual(events);
      const more = sealLog([...sampleDrafts(), drafts.user('after the migration')]);
      const zeros = '0'.repeat(64);
      await expect(
        pg.admin.query(`INSERT INTO "${schema}".events VALUES ('s1', $1, 'user/message', $2, '{}')`, [events.length + 1, zeros]),
      ).rejects.toMatchObject({ code: 'SL001', detail: `session s1: expected seq ${events.length}, found ${events.length + 1}` });
      await store.append('s1', more.slice(events.length), { expectedSeq: events.length });
      expect(await readAll(store, 's1')).toEqual(more);
    });

    it('rolls a failed migration back whole', async () => {
      const broken: Migration = {
        from: 0,
        description: 'fails halfway',
        up: async (client, quoted) => {
          await MIGRATIONS[0]?.up(client, quoted);
          await client.query('SELECT 1 / 0');
        },
      };
      const client = await pg.admin.connect();
      try {
        await expect(migrate(client, schema, 'test', [broken])).rejects.toMatchObject({ code: '22012' });
      } finally {
        client.release();
      }
      expect(await raw('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema])).toEqual([]);
    });

    it('lets several stores create the same new schema at once, migrating it once', async () => {
      const stores = await Promise.all(Array.from({ length: 5 }, () => open()));
      expect(stores).toHaveLength(5);
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      await stores[0]?.append('s1', events, { expectedSeq: 0 });
      expect(await readAll(stores[4] as PostgresLogStore, 's1')).toEqual(events);
    });

    it('refuses, in the database itself, to update, delete, truncate, overwrite or skip an event', async () => {
      const store = await open();
      await store.append('s1', events, { expectedSeq: 0 });
      const s = `"${schema}".events`;
      const zeros = '0'.repeat(64);
      const attempts: Array<[string, unknown[], string]> = [
        [`UPDATE ${s} SET body = '{}' WHERE session_id = 's1' AND seq = 2`, [], 'SL002'],
        [`UPDATE ${s} SET body = '{}' WHERE false`, [], 'SL002'],
        [`DELETE FROM ${s} WHERE session_id = 's1'`, [], 'SL002'],
        [`TRUNCATE ${s}`, [], 'SL002'],
        [
          `INSERT INTO ${s} VALUES ('s1', 0, 'session/start', $1, '{}') ON CONFLICT (session_id, seq) DO UPDATE SET body = EXCLUDED.body`,
          [zeros],
          'SL002',
        ],
        [`INSERT INTO ${s} VALUES ('s1', $2, 'user/message', $1, '{}')`, [zeros, events.length + 1], 'SL001'],
        [`INSERT INTO ${s} VALUES ('fresh', 1, 'user/message', $1, '{}')`, [zeros], 'SL001'],
        [`INSERT INTO ${s} SELECT 'fresh', g, 'user/message', $1, '{}' FROM generate_series(0, 3) g WHERE g <> 2`, [zeros], 'SL001'],
        // Many rows in one statement: a hole in the middle, a start past the head, one good session beside a bad one.
        [
          `INSERT INTO ${s} SELECT 's1', g, 'user/message', $1, '{}' FROM generate_series($2::bigint, $2 + 9) g WHERE g <> $2 + 5`,
          [zeros, events.length],
          'SL001',
        ],
        [
          `INSERT INTO ${s} SELECT 's1', g, 'user/message', $1, '{}' FROM generate_series($2::bigint, $2 + 9) g`,
          [zeros, events.length + 1],
          'SL001',
        ],
        [
          `INSERT INTO ${s} SELECT 'fresh', g, 'user/message', $1, '{}' FROM generate_series(0, 4) g UNION ALL SELECT 's1', $2 + 1, 'user/message', $1, '{}'`,
          [zeros, events.length],
          'SL001',
        ],
      ];
      for (const [sql, values, state] of attempts) {
        const error = await pg.admin.query(sql, values).catch((caught: unknown) => caught);
        expect(error, sql).toMatchObject({ code: state, message: expect.stringMatching(/^shadowlog: .*(append-only|next seq)/) });
      }
      // The statement that failed names the first seq missing and the one found in its place.
      const hole = await pg.admin
        .query(`INSERT INTO ${s} SELECT 's1', g, 'user/message', $1, '{}' FROM generate_series($2::bigint, $2 + 9) g WHERE g <> $2 + 5`, [
          zeros,
          events.length,
        ])
        .catch((caught: unknown) => caught);
      expect(hole).toMatchObject({ detail: `session s1: expected seq ${events.length + 5}, found ${events.length + 6}` });
      // ON CONFLICT DO NOTHING over an event inserts nothing, so it changes nothing either.
      const ignored = await pg.admin.query(`INSERT INTO ${s} VALUES ('s1', 0, 'session/start', $1, '{}') ON CONFLICT DO NOTHING`, [zeros]);
      expect(ignored.rowCount).toBe(0);
      expect(await readAll(store, 's1')).toEqual(events);
      expect((await store.listSessions()).map((session) => session.id)).toEqual(['s1']);
    });

    it('lets raw SQL append only at the next seq, and reads such events back', async () => {
      const store = await open();
      await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      const next = events[2] as LogEvent;
      await raw(`INSERT INTO "${schema}".events VALUES ('s1', 2, $1, $2, $3)`, [next.type, next.hash, canonicalJson(next)]);
      expect(await readAll(store, 's1')).toEqual(events.slice(0, 3));
      // The rest in one statement, together with a whole second session.
      const rest = events.slice(3);
      const rows = [...rest.map((event) => ['s1', event]), ...events.map((event) => ['s2', event])] as Array<[string, LogEvent]>;
      await raw(`INSERT INTO "${schema}".events SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])`, [
        rows.map(([id]) => id),
        rows.map(([, event]) => event.seq),
        rows.map(([, event]) => event.type),
        rows.map(([, event]) => event.hash),
        rows.map(([, event]) => canonicalJson(event)),
      ]);
      expect(await readAll(store, 's1')).toEqual(events);
      expect(await readAll(store, 's2')).toEqual(events);
    });

    it('lets exactly one of many stores racing to create a session land, refusing the rest with ConcurrencyError', async () => {
      const stores = await Promise.all(Array.from({ length: 6 }, () => open({ maxConnections: 1 })));
      const logs = stores.map((_, index) => sealLog([drafts.start(), drafts.user(`writer ${index}`)]));
      const results = await Promise.allSettled(
        stores.map((store, index) => store.append('race', logs[index] as LogEvent[], { expectedSeq: 0 })),
      );
      const landed = results.flatMap((result, index) => (result.status === 'fulfilled' ? [index] : []));
      expect(landed).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'CONCURRENCY', expected: 0, actual: 2 });
      }
      expect(await readAll(stores[0] as PostgresLogStore, 'race')).toEqual(logs[landed[0] as number]);
    });

    /**
     * Waits until the backend of `applicationName` is idle inside its transaction: appendAll reads
     * the next batch while its last insert runs, so the batch being taken does not mean that the
     * insert has finished.
     */
    async function untilIdleInTransaction(applicationName: string): Promise<void> {
      for (let attempt = 0; attempt < 2000; attempt++) {
        const rows = await raw("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'", [
          applicationName,
        ]);
        if (rows.length > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`the backend of ${applicationName} never became idle in transaction`);
    }

    it('names the seq it expected when another writer lands between its head check and its first insert, with a batch queued behind it', async () => {
      const store = await open();
      const racer = await open();
      async function* source() {
        await racer.append('s1', events.slice(0, 1), { expectedSeq: 0 });
        yield events.slice(0, 3);
        yield events.slice(3);
      }
      const error = await store.appendAll('s1', source(), { expectedSeq: 0 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ code: 'CONCURRENCY', expected: 0, actual: 1 });
      expect(await readAll(store, 's1')).toEqual(events.slice(0, 1));
    });

    it('makes a writer of the session an open appendAll is writing wait for it, then refuses it as stale', async () => {
      const applicationName = `shadowlog test ${schema}`;
      const store = await open({ maxConnections: 2, applicationName });
      const second = await open();
      const paused = pausedBatches(events);
      const importing = store.appendAll('imported', paused.source, { expectedSeq: 0 });
      await paused.firstBatchTaken;
      // Its first batch is inserted (and its rows locked) before the other writer tries.
      await untilIdleInTransaction(applicationName);
      const late = second.append('imported', events.slice(0, 1), { expectedSeq: 0 }).catch((caught: unknown) => caught);
      paused.finish();
      expect(await importing).toBe(events.length);
      expect(await late).toMatchObject({ code: 'CONCURRENCY', expected: 0, actual: events.length });
    });

    it('after losing the connection in the middle of appendAll, says nothing was stored, and the next call works', async () => {
      const applicationName = `shadowlog test ${schema}`;
      const store = await open({ applicationName });
      const paused = pausedBatches(events);
      const importing = store.appendAll('s1', paused.source, { expectedSeq: 0 }).catch((caught: unknown) => caught);
      await paused.firstBatchTaken;
      // The first batch's insert may still be running (appendAll reads on while it does): the
      // connection is cut once it waits, idle inside the transaction, for the next batch. The
      // head check before it leaves the same state for a moment, so the kill itself is retried
      // until it finds the backend idle after the insert.
      let killed: Array<{ killed: boolean }> = [];
      for (let attempt = 0; attempt < 2000 && killed.length === 0; attempt++) {
        await untilIdleInTransaction(applicationName);
        killed = await raw<{ killed: boolean }>(
          "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'",
          [applicationName],
        );
      }
      expect(killed).toEqual([{ killed: true }]);
      paused.finish();
      const error = await importing;
      expect(error).toBeInstanceOf(PostgresConnectionError);
      expect(error).toMatchObject({ code: 'STORE_UNREACHABLE', problem: 'lost', appendOutcome: 'not-written' });
      expect((error as Error).message).toMatch(/^lost the connection to PostgreSQL at .+ while appending events: .*nothing was stored$/);
      expect(await store.head('s1')).toBeUndefined();
      await store.append('s1', events, { expectedSeq: 0 });
      expect(await readAll(store, 's1')).toEqual(events);
    });

    it('after losing the connection during append, says the outcome is unknown and that the head tells', async () => {
      const applicationName = `shadowlog test ${schema}`;
      const store = await open({ applicationName });
      await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      // Another transaction inserts seq 2 and keeps it open, so the append waits on the key.
      const other = await pg.admin.connect();
      try {
        await other.query('BEGIN');
        const next = events[2] as LogEvent;
        await other.query(`INSERT INTO "${schema}".events VALUES ('s1', 2, $1, $2, $3)`, [next.type, next.hash, canonicalJson(next)]);
        const appending = store.append('s1', events.slice(2), { expectedSeq: 2 }).catch((caught: unknown) => caught);
        for (let tries = 0; ; tries++) {
          const killed = await raw(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [applicationName],
          );
          if (killed.length > 0) break;
          if (tries > 200) throw new Error('the append never waited for the lock');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const error = await appending;
        expect(error).toBeInstanceOf(PostgresConnectionError);
        expect(error).toMatchObject({ problem: 'lost', appendOutcome: 'unknown' });
        expect((error as Error).message).toBe(
          `lost the connection to PostgreSQL at 127.0.0.1:5432 while appending events: terminating connection due to administrator command; the events may or may not have been stored: read the head of session s1 (nextSeq 2 means they were not, ${events.length} that they were)`.replace(
            '127.0.0.1:5432',
            (error as PostgresConnectionError).server,
          ),
        );
      } finally {
        await other.query('ROLLBACK');
        other.release();
      }
      expect((await store.head('s1'))?.nextSeq).toBe(2);
    });

    it('reconnects after its idle pooled connections were terminated by the server', async () => {
      const applicationName = `shadowlog test ${schema}`;
      const store = await open({ applicationName, maxConnections: 2 });
      await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      await Promise.all([store.head('s1'), store.head('s1')]);
      const killed = await raw('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
      expect(killed.length).toBeGreaterThan(0);
      expect(await readAll(store, 's1')).toEqual(events.slice(0, 2));
      await store.append('s1', events.slice(2), { expectedSeq: 2 });
      expect((await store.head('s1'))?.nextSeq).toBe(events.length);
    });

    it('opens no more pooled connections than maxConnections', async () => {
      const applicationName = `shadowlog test ${schema}`;
      const store = await open({ applicationName, maxConnections: 2 });
      await store.append('s1', events, { expectedSeq: 0 });
      let most = 0;
      const reads = Array.from({ length: 12 }, () => readAll(store, 's1'));
      const counting = (async () => {
        for (let round = 0; round < 10; round++) {
          const [row] = await raw<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [
            applicationName,
          ]);
          most = Math.max(most, Number(row?.count));
        }
      })();
      await Promise.all([...reads, counting]);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
    });

    describe('when it cannot connect', () => {
      async function failure(url: string, options: PostgresStoreOptions = {}): Promise<PostgresConnectionError> {
        const error = await openPostgresStore(url, options).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(PostgresConnectionError);
        const message = (error as Error).message;
        // One line, no stack trace, no password.
        expect(message).not.toMatch(/\n|\bat .*\(|secret/);
        return error as PostgresConnectionError;
      }
      const withPart = (change: (url: URL) => void): string => {
        const url = new URL(pg.url);
        change(url);
        return url.toString();
      };

      it('names a refused connection and asks whether the server runs', async () => {
        const error = await failure('postgres://postgres:secret@127.0.0.1:1/test');
        expect(error.message).toBe('cannot connect to PostgreSQL at 127.0.0.1:1: connection refused; is the server running?');
        expect(error).toMatchObject({ code: 'STORE_UNREACHABLE', problem: 'refused', server: '127.0.0.1:1' });
      });

      it('names a database that does not exist', async () => {
        const error = await failure(
          withPart((url) => {
            url.pathname = '/no_such_database_here';
          }),
        );
        expect(error.problem).toBe('database-missing');
        const base = new URL(pg.url);
        expect(error.message).toBe(
          `cannot connect to PostgreSQL at ${base.hostname}:${base.port || '5432'}: database "no_such_database_here" does not exist; create it or name another database in the URL`,
        );
      });

      it('names a user the server does not know', async () => {
        const error = await failure(
          withPart((url) => {
            url.username = 'no_such_role_here';
            url.password = 'secret';
          }),
        );
        expect(error.problem).toBe('authentication');
        expect(error.message).toMatch(/^cannot connect to PostgreSQL at .+: .*no_such_role_here.*; check the user name/);
      });

      it('names a host that does not resolve', async () => {
        const error = await failure('postgres://postgres@no-such-host.invalid:5432/test');
        expect(error.problem).toBe('host-not-found');
        expect(error.message).toBe(
          'cannot connect to PostgreSQL at no-such-host.invalid:5432: host no-such-host.invalid not found; check the host name in the URL',
        );
      });

      it('hides the password of a URL it shows', () => {
        expect(hidePassword('postgres://user:p%40ss%2Fword@db.example:5432/logs?sslmode=require')).toBe(
          'postgres://user:***@db.example:5432/logs?sslmode=require',
        );
        expect(hidePassword('postgres://user@db.example/logs')).toBe('postgres://user@db.example/logs');
        expect(hidePassword('postgres://user:se cret/x@host/db')).toBe('postgres://user:***@host/db');
      });

      it('refuses something that is not a PostgreSQL URL before connecting, hiding the password', async () => {
        for (const url of ['mysql://root:secret@localhost/db', 'not a url', 'postgres//x', '']) {
          const error = await failure(url);
          expect(error.problem).toBe('bad-url');
          expect(error.message).toMatch(
            /^expected a PostgreSQL URL like postgres:\/\/user:password@host:5432\/database, found ".*"; fix the URL$/,
          );
        }
        // From JavaScript, which the types do not stop: a typed error, not a TypeError from inside.
        for (const notText of [undefined, 42, { host: 'localhost' }]) {
          const error = await failure(notText as unknown as string);
          expect(error.problem).toBe('bad-url');
          expect(error.message).toMatch(/^expected a PostgreSQL URL like .+, found .+; fix the URL$/);
        }
      });
    });
  });
});
