// Search on the PostgreSQL store: the shared search contract against a real server, the migration
// from schema version 6 that indexes the events already stored, and the trigram index the planner
// uses. Needs SHADOWLOG_TEST_POSTGRES_URL; see test/support/postgres.ts.

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import {
  MIGRATIONS,
  migrate,
  openPostgresStore,
  type PostgresLogStore,
  readSchemaVersion,
  SCHEMA_VERSION,
} from '../../src/store/postgres/index.js';
import { compactedSession, describeSearchContract } from '../contract/search-contract.js';
import { drafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

describe.skipIf(server === undefined)('PostgresLogStore search', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  describeSearchContract('postgres', async () => {
    const store = await openPostgresStore(pg.url, { schema: pg.freshSchema() });
    return { store, cleanup: () => store.close() };
  });

  describe('schema', () => {
    const opened: PostgresLogStore[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await pg.dropSchemas();
    });

    it('migrates a version 6 schema to version 7, indexing the events it holds; read-only before that, it is searched by a scan', async () => {
      const schema = pg.freshSchema();
      const client = await pg.admin.connect();
      try {
        expect(await migrate(client, schema, 'test', MIGRATIONS.slice(0, 6))).toBe(6);
      } finally {
        client.release();
      }
      // Written as version 6's statements wrote events: no search rows.
      for (const event of compactedSession()) {
        await pg.admin.query(`INSERT INTO "${schema}".events VALUES ('s-old', $1, $2, $3, $4)`, [
          event.seq,
          event.type,
          event.hash,
          canonicalJson(event),
        ]);
      }
      const reader = await openPostgresStore(pg.url, { schema, readOnly: true });
      opened.push(reader);
      const scanned = await reader.search({ text: 'src/csv.ts' });
      expect(scanned.method).toBe('scan');
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(6);
      const writer = await openPostgresStore(pg.url, { schema });
      opened.push(writer);
      expect(await readSchemaVersion(pg.admin, schema, 'test')).toBe(SCHEMA_VERSION);
      const indexed = await writer.search({ text: 'src/csv.ts' });
      expect(indexed.method).toBe('index');
      expect(indexed.hits).toEqual(scanned.hits);
      expect(indexed.hits.map((hit) => [hit.seq, hit.place])).toEqual([
        [5, 'shadowed'],
        [6, 'shadowed'],
        [8, 'shadowed'],
        [9, 'surface'],
      ]);
      await writer.append('s-new', sealLog([drafts.start(), drafts.user('open src/csv.ts again')]), { expectedSeq: 0 });
      expect((await writer.search({ text: 'src/csv.ts' })).hits.map((hit) => `${hit.sessionId}:${hit.seq}`).at(-1)).toBe('s-new:1');
      const refused = await pg.admin.query(`DELETE FROM "${schema}".search_rows`).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'SL002', message: expect.stringMatching(/search index is append-only/) });
    });

    it('answers a text search from the trigram index', async () => {
      const schema = pg.freshSchema();
      const store = await openPostgresStore(pg.url, { schema });
      opened.push(store);
      const indexes = await pg.admin.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'search_rows' ORDER BY indexname",
        [schema],
      );
      expect(indexes.rows.map((row) => row.indexdef).join('\n')).toMatch(/USING gin \(text \S*gin_trgm_ops\)/);
      const client = await pg.admin.connect();
      try {
        await client.query('SET enable_seqscan = off');
        const plan = await client.query(`EXPLAIN SELECT id FROM "${schema}".search_rows WHERE text ILIKE '%src/csv.ts%'`);
        expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/search_rows_text/);
      } finally {
        client.release();
      }
    });
  });
});
