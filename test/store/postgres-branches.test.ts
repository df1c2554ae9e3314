// Branches in the PostgreSQL store (SPEC §14): the shared branch contract against a real server,
// the schema version 8 migration that brings the link table, and the database's own refusals.
// Needs SHADOWLOG_TEST_POSTGRES_URL; see test/support/postgres.ts.

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import {
  MIGRATIONS,
  migrate,
  openPostgresStore,
  type PostgresLogStore,
  readSchemaVersion,
  SCHEMA_VERSION,
} from '../../src/store/postgres/index.js';
import { SessionLog } from '../../src/store/session-log.js';
import { describeBranchContract } from '../contract/branch-contract.js';
import type { StoredRow } from '../contract/log-store-contract.js';
import { drafts, fixedNow, sampleDrafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: true });

describe.skipIf(server === undefined)('PostgresLogStore branches', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  describeBranchContract(
    'postgres',
    async () => {
      const schema = pg.freshSchema();
      const store = await openPostgresStore(pg.url, { schema });
      const seconds: PostgresLogStore[] = [];
      return {
        store,
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
        cleanup: async () => {
          for (const second of seconds) await second.close();
          await store.close();
          await pg.dropSchemas();
        },
      };
    },
    { storedForm: true, closes: true },
  );

  describe('on its own', () => {
    let schema: string;
    const opened: PostgresLogStore[] = [];
    beforeEach(() => {
      schema = pg.freshSchema();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await pg.dropSchemas();
    });

    it('migrates a version 7 schema to version 8, its sessions untouched, and forks one of them; a version 7 schema read-only lists no branches', async () => {
      const events = sealLog(sampleDrafts());
      const client = await pg.admin.connect();
      try {
        expect(await migrate(client, schema, 'test', MIGRATIONS.slice(0, 7))).toBe(7);
      } finally {
        client.release();
      }
      for (const event of events) {
        await pg.admin.query(`INSERT INTO "${schema}".events (session_id, seq, type, hash, body) VALUES ('s-old', $1, $2, $3, $4)`, [
          event.seq,
          event.type,
          event.hash,
          canonicalJson(event),
        ]);
      }
      const reader = await openPostgresStore(pg.url, { schema, readOnly: true });
      opened.push(reader);
      expect(await reader.listSessions()).toMatchObject([{ id: 's-old', events: 7 }]);
      expect(await reader.readForkLink('s-old')).toBeUndefined();
      const writer = await openPostgresStore(pg.url, { schema });
      opened.push(writer);
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      const branch = await SessionLog.fork(writer, 's-old', { checkpoints: false, now: fixedNow, at: 3, id: 's-branch' });
      await branch.append([drafts.assistant('Another answer.')]);
      expect((await writer.listSessions()).map(({ id, events: count, parent }) => ({ id, count, parent }))).toEqual([
        { id: 's-branch', count: 6, parent: { sessionId: 's-old', forkSeq: 3 } },
        { id: 's-old', count: 7, parent: undefined },
      ]);
    });

    it('refuses, in the database itself, a link to an event the parent does not hold, a link changed or deleted, and a branch event inside its prefix', async () => {
      const store = await openPostgresStore(pg.url, { schema });
      opened.push(store);
      const parent = await SessionLog.create(store, 'p', { checkpoints: false, now: fixedNow, harnessVersion: 'test' });
      await parent.append(sampleDrafts().slice(1));
      await SessionLog.fork(store, 'p', { checkpoints: false, now: fixedNow, at: 3, id: 'b' });
      const s = `"${schema}"`;
      await expect(pg.admin.query(`INSERT INTO ${s}.session_forks VALUES ('x', 'p', 3, $1)`, ['0'.repeat(64)])).rejects.toThrow(
        /links to an event its parent holds/,
      );
      await expect(pg.admin.query(`UPDATE ${s}.session_forks SET fork_seq = 2 WHERE session_id = 'b'`)).rejects.toThrow(/append-only/);
      await expect(pg.admin.query(`DELETE FROM ${s}.session_forks WHERE session_id = 'b'`)).rejects.toThrow(/append-only/);
      await expect(pg.admin.query(`INSERT INTO ${s}.events VALUES ('b', 2, 'user/message', 'h', '{}')`)).rejects.toThrow(/next seq/);
      expect((await pg.admin.query(`SELECT seq::int FROM ${s}.events WHERE session_id = 'b'`)).rows).toEqual([{ seq: 4 }]);
    });
  });
});
