// The PostgreSQL server the PostgreSQL tests run against, from SHADOWLOG_TEST_POSTGRES_URL.
// Each test gets a schema of its own (shadowlog_test_<pid>_<random>), dropped afterwards.
//
// Without the variable the tests are skipped, with one line saying how to run them; in CI
// (CI set) a missing variable or a server that does not answer fails the run instead, since
// a skip in CI is a failure. A URL that is set but does not answer fails the run everywhere.

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { SessionBusyError } from '../../src/log/errors.js';
import type { LogStore, Ownership } from '../../src/store/log-store.js';
import { hidePassword } from '../../src/store/postgres/index.js';

export const POSTGRES_URL_VARIABLE = 'SHADOWLOG_TEST_POSTGRES_URL';
const EXAMPLE_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface PostgresTestServer {
  readonly url: string;
  /** A connection pool for raw SQL: checking tables, breaking rules, terminating backends. */
  readonly admin: Pool;
  /** A new, unused schema name; dropped by dropSchemas() or close(). */
  freshSchema(): string;
  dropSchemas(): Promise<void>;
  close(): Promise<void>;
}

function inCi(): boolean {
  const value = process.env.CI;
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/**
 * The server to test against, or undefined when the tests are to be skipped. Call once per
 * test file, at the top level; `announce` prints the skip line (give it to one file only, so
 * that a run prints the line once).
 */
export async function findPostgres(options: { announce: boolean }): Promise<PostgresTestServer | undefined> {
  const url = process.env[POSTGRES_URL_VARIABLE];
  if (url === undefined || url === '') {
    if (inCi()) {
      throw new Error(
        `${POSTGRES_URL_VARIABLE} is not set, and CI is: a skip in CI is a failure. Set it to the test server, e.g. ${POSTGRES_URL_VARIABLE}=${EXAMPLE_URL}`,
      );
    }
    if (options.announce) {
      console.warn(
        `PostgreSQL store tests skipped: set ${POSTGRES_URL_VARIABLE}=${EXAMPLE_URL} (or your own server) to run test/store/postgres-*.test.ts`,
      );
    }
    return undefined;
  }
  const admin = new Pool({ connectionString: url, max: 3, connectionTimeoutMillis: 5000, application_name: 'shadowlog tests (admin)' });
  admin.on('error', () => {});
  try {
    await admin.query('SELECT 1');
  } catch (error) {
    await admin.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${POSTGRES_URL_VARIABLE}=${hidePassword(url)} does not answer (${reason}); start the server or unset the variable`);
  }
  const created = new Set<string>();
  const dropSchemas = async () => {
    for (const schema of created) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      created.delete(schema);
    }
  };
  return {
    url,
    admin,
    freshSchema: () => {
      const schema = `shadowlog_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      created.add(schema);
      return schema;
    },
    dropSchemas,
    close: async () => {
      try {
        await dropSchemas();
      } finally {
        await admin.end();
      }
    },
  };
}

/** The server of a suite that is skipped without one: only its tests call this, and they run only with a server. */
export function serverOf(server: PostgresTestServer | undefined): PostgresTestServer {
  if (server === undefined) throw new Error(`${POSTGRES_URL_VARIABLE} is not set; this suite should have been skipped`);
  return server;
}

/** How long the server may take to notice that a killed owner's connection is gone. */
export const RELEASE_TIMEOUT_MS = 10_000;

/** Claims a session, retrying while it is busy, for at most RELEASE_TIMEOUT_MS. */
export async function claimWithin(store: LogStore, sessionId: string): Promise<{ ownership: Ownership; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    try {
      return { ownership: await store.acquireOwnership(sessionId), waitedMs: Date.now() - started };
    } catch (error) {
      if (!(error instanceof SessionBusyError) || Date.now() - started > RELEASE_TIMEOUT_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
