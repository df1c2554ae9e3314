// A PostgreSQL store opened for reading (issue 9, item 7): a schema that holds no store is a
// StoreNotFoundError and is not created; an existing store is read without a change to the
// database, even when the server refuses every write; an older schema is read as it is; and
// following still works, by notification where the schema has them, else by polling. Needs
// SHADOWLOG_TEST_POSTGRES_URL.

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { ConfigError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { followSession } from '../../src/store/follow.js';
import {
  MIGRATIONS,
  migrate,
  openPostgresStore,
  type PostgresLogStore,
  PostgresSchemaVersionError,
  type PostgresStoreOptions,
  readSchemaVersion,
  StoreNotFoundError,
  StoreReadOnlyError,
} from '../../src/store/postgres/index.js';
import { collect, describeFollowContract, followLog } from '../contract/follow-contract.js';
import { drafts, sampleDrafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });
const AN_HOUR = 3_600_000;

describe.skipIf(server === undefined)('PostgresLogStore opened read-only', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  describeFollowContract('PostgreSQL, a read-only follower woken by LISTEN/NOTIFY', async () => {
    const schema = pg.freshSchema();
    const writer = await openPostgresStore(pg.url, { schema });
    const follower = await openPostgresStore(pg.url, { schema, readOnly: true });
    return {
      follower,
      writer,
      pollMs: AN_HOUR,
      cleanup: async () => {
        await follower.close();
        await writer.close();
        await pg.dropSchemas();
      },
    };
  });

  describe('on its own', () => {
    const events = sealLog(sampleDrafts());
    const opened: PostgresLogStore[] = [];
    let schema: string;

    async function open(options: PostgresStoreOptions = {}, url = pg.url): Promise<PostgresLogStore> {
      const store = await openPostgresStore(url, { schema, ...options });
      opened.push(store);
      return store;
    }
    async function readAll(store: PostgresLogStore, sessionId = 's1'): Promise<LogEvent[]> {
      const out: LogEvent[] = [];
      for await (const page of store.read(sessionId)) out.push(...page);
      return out;
    }
    async function raw<R extends Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<R[]> {
      return (await pg.admin.query<R>(sql, values)).rows;
    }
    /** What the schema holds: its relations, functions and triggers, and the meta rows. */
    async function snapshot(): Promise<unknown> {
      const relations = await raw('SELECT relname, relkind FROM pg_class WHERE relnamespace = $1::regnamespace ORDER BY relname', [schema]);
      const functions = await raw('SELECT proname FROM pg_proc WHERE pronamespace = $1::regnamespace ORDER BY proname', [schema]);
      const triggers = await raw(
        'SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace ORDER BY tgname',
        [schema],
      );
      const meta = await raw(`SELECT key, value FROM "${schema}".meta ORDER BY key`);
      return { relations, functions, triggers, meta };
    }
    async function schemaExists(): Promise<boolean> {
      return (await raw('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).length > 0;
    }

    beforeEach(() => {
      schema = pg.freshSchema();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await pg.dropSchemas();
    });

    it('refuses a schema that does not exist with StoreNotFoundError naming it and the server, and creates nothing', async () => {
      const withPassword = new URL(pg.url);
      withPassword.password = 'secret';
      const error = await openPostgresStore(withPassword.toString(), { schema, readOnly: true }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreNotFoundError);
      expect(error).toMatchObject({ code: 'STORE_NOT_FOUND' });
      const server = `${withPassword.hostname}:${withPassword.port || '5432'}`;
      const database = withPassword.pathname.slice(1);
      expect((error as Error).message).toBe(
        `postgres://${withPassword.username}@${server}/${database}?schema=${schema}: database "${database}" has no schema "${schema}"; ` +
          'check the schema name (?schema= in the URL) and the database, or create the store first (open it without readOnly, or run a command that writes)',
      );
      expect(await schemaExists()).toBe(false);
    });

    it('refuses a schema without shadowlog tables, and adds none', async () => {
      await raw(`CREATE SCHEMA "${schema}"`);
      await raw(`CREATE TABLE "${schema}".other_application (id integer)`);
      const error = await openPostgresStore(pg.url, { schema, readOnly: true }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreNotFoundError);
      expect((error as Error).message).toMatch(
        new RegExp(`: schema "${schema}" of database ".+" holds no shadowlog store \\(it has no shadowlog tables\\); `),
      );
      const tables = await raw<{ relname: string }>(
        "SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r'",
        [schema],
      );
      expect(tables.map((row) => row.relname)).toEqual(['other_application']);
    });

    it('reads a store while the server refuses every write, and refuses to append or take ownership', async () => {
      const writer = await open();
      await writer.append('s1', events, { expectedSeq: 0 });
      const before = await snapshot();
      // Every transaction of the reader's connections is read-only: any write at open would fail.
      const readOnlyServer = `${pg.url}?options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
      const reader = await open({ readOnly: true }, readOnlyServer);
      expect(reader.readOnly).toBe(true);
      expect(await readAll(reader)).toEqual(events);
      expect(await reader.head('s1')).toEqual(await writer.head('s1'));
      expect(await reader.readEvent('s1', 3)).toEqual(events[3]);
      expect((await reader.listSessions()).map((session) => session.id)).toEqual(['s1']);
      const more = sealLog([...sampleDrafts(), drafts.user('one more')]).slice(events.length);
      const refusals = [
        () => reader.append('s1', more, { expectedSeq: events.length }),
        () => reader.append('s1', [], { expectedSeq: events.length }),
        () => reader.appendAll('s2', (async function* () {})(), { expectedSeq: 0 }),
        () => reader.acquireOwnership('s1'),
      ];
      for (const refusal of refusals) {
        const error = await refusal().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreReadOnlyError);
        expect(error).toMatchObject({ code: 'STORE_READ_ONLY' });
        expect((error as Error).message).toMatch(
          / was opened read-only, so (appending events|claiming a session) is refused and nothing was written; open the store without readOnly to write to it$/,
        );
      }
      expect(await snapshot()).toEqual(before);
      expect(await raw(`SELECT count(*)::int AS owners FROM "${schema}".owners`)).toEqual([{ owners: 0 }]);
      expect(await readAll(writer)).toEqual(events);
    });

    it('follows by polling when the server refuses the follower registration, saying why', async () => {
      const writer = await open();
      const log = followLog(8);
      await writer.append('s1', log.slice(0, 4), { expectedSeq: 0 });
      const readOnlyServer = `${pg.url}?options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
      const reader = await open({ readOnly: true }, readOnlyServer);
      const lost: unknown[] = [];
      const run = collect(reader, 's1', { pollMs: 20, onWatchLost: (error) => lost.push(error) });
      await run.reach(4);
      await writer.append('s1', log.slice(4), { expectedSeq: 4 });
      await run.reach(log.length);
      run.controller.abort();
      await run.done;
      expect(run.seen).toEqual(log);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ code: 'STORE_FAILURE', sqlState: '25006' });
      expect(await raw(`SELECT count(*)::int AS followers FROM "${schema}".followers`)).toEqual([{ followers: 0 }]);
    });

    it('reads a version 1 schema as it is, without migrating it, and follows it by polling', async () => {
      const client = await pg.admin.connect();
      try {
        expect(await migrate(client, schema, 'test', MIGRATIONS.slice(0, 1))).toBe(1);
      } finally {
        client.release();
      }
      for (const event of events.slice(0, 4)) {
        await raw(`INSERT INTO "${schema}".events VALUES ('s1', $1, $2, $3, $4)`, [
          event.seq,
          event.type,
          event.hash,
          canonicalJson(event),
        ]);
      }
      const before = await snapshot();
      const reader = await open({ readOnly: true });
      expect(await readAll(reader)).toEqual(events.slice(0, 4));
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(1);
      const lost: unknown[] = [];
      const run = collect(reader, 's1', { pollMs: 20, onWatchLost: (error) => lost.push(error) });
      await run.reach(4);
      for (const event of events.slice(4)) {
        await raw(`INSERT INTO "${schema}".events VALUES ('s1', $1, $2, $3, $4)`, [
          event.seq,
          event.type,
          event.hash,
          canonicalJson(event),
        ]);
      }
      await run.reach(events.length);
      run.controller.abort();
      await run.done;
      expect(run.seen).toEqual(events);
      expect(lost).toHaveLength(1);
      expect((lost[0] as Error).message).toMatch(
        /: schema version 1 predates notifications of appends \(version 2\), and a read-only store does not migrate it; open it once without readOnly to migrate it$/,
      );
      expect(await snapshot()).toEqual(before);
    });

    it('refuses a schema newer than it knows, as a writer does, and a readOnly that is not a boolean', async () => {
      await (await open()).close();
      await raw(`UPDATE "${schema}".meta SET value = '99' WHERE key = 'schema_version'`);
      await expect(openPostgresStore(pg.url, { schema, readOnly: true })).rejects.toBeInstanceOf(PostgresSchemaVersionError);
      const notBoolean = { schema, readOnly: 'yes' } as unknown as PostgresStoreOptions;
      await expect(openPostgresStore(pg.url, notBoolean)).rejects.toBeInstanceOf(ConfigError);
    });

    it('ends its follower registration when it stops, leaving no followers row', async () => {
      const writer = await open();
      await writer.append('s1', events, { expectedSeq: 0 });
      const reader = await open({ readOnly: true });
      const controller = new AbortController();
      for await (const _ of followSession(reader, 's1', { signal: controller.signal, pollMs: AN_HOUR })) {
        expect(await raw(`SELECT count(*)::int AS followers FROM "${schema}".followers`)).toEqual([{ followers: 1 }]);
        break;
      }
      expect(await raw(`SELECT count(*)::int AS followers FROM "${schema}".followers`)).toEqual([{ followers: 0 }]);
    });
  });
});
