// Session ownership in the PostgreSQL store (SPEC §8), beyond the shared contract (a live owner
// in another process holds the session, a killed one or one that released holds nothing): an
// owner whose connection the server ended holds nothing, a busy claim names the holder, lock
// keys. Needs SHADOWLOG_TEST_POSTGRES_URL.

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionBusyError } from '../../src/log/errors.js';
import { advisoryLockKey, openPostgresStore, type PostgresLogStore } from '../../src/store/postgres/index.js';
import { claimWithin, findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

describe.skipIf(server === undefined)('PostgresLogStore ownership', () => {
  const pg = server as NonNullable<typeof server>;
  const stores: PostgresLogStore[] = [];
  let schema: string;

  beforeEach(() => {
    schema = pg.freshSchema();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await pg.dropSchemas();
  });
  afterAll(async () => {
    await pg.close();
  });

  async function open(): Promise<PostgresLogStore> {
    const store = await openPostgresStore(pg.url, { schema });
    stores.push(store);
    return store;
  }

  it('is free once the server ends the owner connection, without the owner releasing it', async () => {
    const applicationName = `shadowlog owner test ${schema}`;
    const owner = await openPostgresStore(pg.url, { schema, applicationName });
    stores.push(owner);
    const held = await owner.acquireOwnership('s1');
    const store = await open();
    await expect(store.acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
    await pg.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    const { ownership } = await claimWithin(store, 's1');
    await ownership.release();
    // The first owner's release, after its connection died, does nothing and does not throw.
    await held.release();
  });

  it('refuses a second claim from the same process, through the same store or another', async () => {
    const first = await open();
    const ownership = await first.acquireOwnership('s1');
    const busy = await first.acquireOwnership('s1').catch((caught: unknown) => caught);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect((busy as SessionBusyError).owner).toBe(ownership.owner);
    await expect((await open()).acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
    // Other sessions are not affected.
    await (await first.acquireOwnership('s2')).release();
    await ownership.release();
    await ownership.release();
    await (await first.acquireOwnership('s1')).release();
  });

  it('names a holder that took the lock without an owner record by its backend and application', async () => {
    const store = await open();
    const raw = await pg.admin.connect();
    try {
      await raw.query("SET application_name = 'someone by hand'");
      await raw.query('SELECT pg_advisory_lock($1::bigint)', [advisoryLockKey('owner', schema, 's1')]);
      const error = await store.acquireOwnership('s1').catch((caught: unknown) => caught);
      expect((error as SessionBusyError).owner).toMatch(/^PostgreSQL backend \d+, application "someone by hand", client /);
    } finally {
      await raw.query('SELECT pg_advisory_unlock_all()');
      await raw.query('RESET application_name');
      raw.release();
    }
    await (await store.acquireOwnership('s1')).release();
  });

  it('names the other session when two sessions share a lock key', async () => {
    const store = await open();
    const key = advisoryLockKey('owner', schema, 's1');
    const raw = await pg.admin.connect();
    try {
      // As if session "other" hashed to the key of s1: it holds the lock and owns a record with that key.
      await raw.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      await raw.query(
        `INSERT INTO "${schema}".owners (session_id, lock_key, token, backend_pid, pid, host, acquired_at)
         VALUES ('other', $1, 't', pg_backend_pid(), 4242, 'elsewhere.example', '2026-01-01T00:00:00Z')`,
        [key],
      );
      const error = await store.acquireOwnership('s1').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionBusyError);
      expect((error as SessionBusyError).owner).toMatch(
        /^pid 4242 on host elsewhere\.example since 2026-01-01T00:00:00\.000Z \(PostgreSQL backend \d+\), the owner of session other, whose lock key is the same as this one's$/,
      );
    } finally {
      await raw.query('SELECT pg_advisory_unlock_all()');
      raw.release();
    }
  });

  it('leaves no row in owners once the store that took the ownerships has closed', async () => {
    const store = await open();
    await Promise.all([store.acquireOwnership('s1'), store.acquireOwnership('s2')]);
    await store.close();
    const [row] = (await pg.admin.query<{ count: string }>(`SELECT count(*) FROM "${schema}".owners`)).rows;
    expect(Number(row?.count)).toBe(0);
  });

  it('derives lock keys per schema and session as signed 64-bit integers', () => {
    const key = advisoryLockKey('owner', 'shadowlog', 's1');
    expect(key).toMatch(/^-?\d+$/);
    const value = BigInt(key);
    expect(value >= -(2n ** 63n) && value < 2n ** 63n).toBe(true);
    expect(advisoryLockKey('owner', 'shadowlog', 's1')).toBe(key);
    expect(advisoryLockKey('owner', 'other_schema', 's1')).not.toBe(key);
    expect(advisoryLockKey('owner', 'shadowlog', 's2')).not.toBe(key);
    expect(advisoryLockKey('migrate', 'shadowlog', 's1')).not.toBe(key);
    // NUL-separated, so the parts cannot run together.
    expect(advisoryLockKey('owner', 'a', 'bc')).not.toBe(advisoryLockKey('owner', 'ab', 'c'));
  });
});
