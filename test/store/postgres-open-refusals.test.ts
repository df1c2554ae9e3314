// What opening a PostgreSQL store refuses up front, with one typed line instead of a stack
// trace or a failure halfway through a session (issue 9, items 12 and 13): SSL asked of a
// server that has none, and a database whose encoding is not UTF8 (a writer is refused; a
// reader may still read what such a database holds). Real databases in the test server,
// created for the test and dropped after it. Needs SHADOWLOG_TEST_POSTGRES_URL.

import { Client } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import {
  migrate,
  openPostgresStore,
  PostgresConnectionError,
  PostgresEncodingError,
  type PostgresLogStore,
} from '../../src/store/postgres/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { drafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });
const sslOn = server === undefined ? false : (await server.admin.query<{ ssl: string }>('SHOW ssl')).rows[0]?.ssl === 'on';
if (sslOn) console.warn('the SSL refusal test is skipped: the test server accepts SSL');

describe.skipIf(server === undefined)('opening a PostgreSQL store', () => {
  const pg = server as NonNullable<typeof server>;
  const databases: string[] = [];
  afterAll(async () => {
    try {
      for (const database of databases) await pg.admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    } finally {
      await pg.close();
    }
  });

  const serverName = () => {
    const url = new URL(pg.url);
    return `${url.hostname}:${url.port || '5432'}`;
  };

  function withParameter(name: string, value: string, url = pg.url): string {
    const parsed = new URL(url);
    parsed.searchParams.set(name, value);
    return parsed.toString();
  }

  /** A new database in `encoding` (with the C locale, which suits every encoding); dropped after the file. */
  async function createDatabase(encoding: string): Promise<string> {
    const database = `shadowlog_test_${process.pid}_${encoding.toLowerCase()}`;
    databases.push(database);
    await pg.admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await pg.admin.query(`CREATE DATABASE "${database}" WITH ENCODING '${encoding}' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
    const url = new URL(pg.url);
    url.pathname = `/${database}`;
    return url.toString();
  }

  async function onDatabase<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  describe.skipIf(sslOn)('with SSL the server does not offer', () => {
    it('refuses with one typed line naming where SSL was asked for and what to do', async () => {
      for (const [parameter, value] of [
        ['sslmode', 'require'],
        ['sslmode', 'verify-full'],
        ['ssl', 'true'],
      ] as const) {
        const error = await openPostgresStore(withParameter(parameter, value), { schema: pg.freshSchema() }).catch(
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(PostgresConnectionError);
        expect(error).toMatchObject({ code: 'STORE_UNREACHABLE', problem: 'ssl', server: serverName() });
        expect((error as Error).message).toBe(
          `cannot connect to PostgreSQL at ${serverName()}: the server does not accept SSL connections, and the connection asks for SSL (${parameter}=${value} in the URL); ` +
            'turn SSL on in the server, or connect without it (sslmode=disable) where the network can be trusted',
        );
      }
    });

    it('names an SSL file of the URL that cannot be read', async () => {
      const url = `${withParameter('sslmode', 'verify-full')}&sslrootcert=${encodeURIComponent('/no/such/dir/root.crt')}`;
      const error = await openPostgresStore(url, { schema: pg.freshSchema() }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PostgresConnectionError);
      expect(error).toMatchObject({ code: 'STORE_UNREACHABLE', problem: 'ssl' });
      expect((error as Error).message).toBe(
        `cannot connect to PostgreSQL at ${serverName()}: cannot read "/no/such/dir/root.crt", an SSL file the URL names (no such file); fix its path in sslrootcert, sslcert or sslkey`,
      );
    });

    it('is one line on the command line, not a stack trace', async () => {
      const workspace = createCliWorkspace();
      try {
        const result = await workspace.run(['--store', withParameter('sslmode', 'require'), 'sessions']);
        expect(result.code).toBe(1);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(
          /^shadowlog: STORE_UNREACHABLE: cannot connect to PostgreSQL at .+: the server does not accept SSL connections.*\n$/,
        );
        expect(result.stderr.split('\n')).toHaveLength(2);
      } finally {
        workspace.cleanup();
      }
    });
  });

  describe('in a database that is not UTF8', () => {
    for (const encoding of ['SQL_ASCII', 'LATIN1']) {
      it(`refuses a writer on ${encoding} before writing anything, naming the encoding and the fix`, async () => {
        const url = await createDatabase(encoding);
        const database = new URL(url).pathname.slice(1);
        const error = await openPostgresStore(url, { schema: 'shadowlog' }).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(PostgresEncodingError);
        expect(error).toMatchObject({ code: 'DATABASE_ENCODING', encoding, database, server: serverName() });
        expect((error as Error).message).toBe(
          `database "${database}" on PostgreSQL at ${serverName()} has encoding ${encoding}, expected UTF8: shadowlog stores UTF-8 text, ` +
            `and ${encoding} would ${encoding === 'SQL_ASCII' ? 'not check it' : 'refuse characters it lacks'} in the middle of a session; ` +
            `create a UTF8 database (CREATE DATABASE name ENCODING 'UTF8' TEMPLATE template0) and name it in the URL` +
            ' (a store already there can still be opened with readOnly, to copy its sessions out)',
        );
        const schemas = await onDatabase(
          url,
          async (client) => (await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'shadowlog'")).rows,
        );
        expect(schemas).toEqual([]);
      });
    }

    it('lets a reader read a store that is already there, so that its sessions can be copied out', async () => {
      const url = await createDatabase('LATIN1');
      const events: LogEvent[] = sealLog([drafts.start(), drafts.system(), drafts.user('Déjà vu: ½ of the crème brûlée.')]);
      // As an older shadowlog left it: created before writers were refused here.
      await onDatabase(url, async (client) => {
        await migrate(client, 'shadowlog', 'test');
        for (const event of events) {
          await client.query(`INSERT INTO shadowlog.events VALUES ('s1', $1, $2, $3, $4)`, [
            event.seq,
            event.type,
            event.hash,
            canonicalJson(event),
          ]);
        }
      });
      let reader: PostgresLogStore | undefined;
      try {
        reader = await openPostgresStore(url, { schema: 'shadowlog', readOnly: true });
        const read: LogEvent[] = [];
        for await (const page of reader.read('s1')) read.push(...page);
        expect(read).toEqual(events);
      } finally {
        await reader?.close();
      }
      await expect(openPostgresStore(url, { schema: 'shadowlog' })).rejects.toBeInstanceOf(PostgresEncodingError);
    });

    it('is one line on the command line', async () => {
      const url = await createDatabase('SQL_ASCII');
      const workspace = createCliWorkspace();
      try {
        const result = await workspace.run(['--store', url, 'demo', '--session', 'refused']);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(
          /^shadowlog: DATABASE_ENCODING: database ".+" on PostgreSQL at .+ has encoding SQL_ASCII, expected UTF8: .*\n$/,
        );
        expect(result.stderr.split('\n')).toHaveLength(2);
      } finally {
        workspace.cleanup();
      }
    });
  });
});
