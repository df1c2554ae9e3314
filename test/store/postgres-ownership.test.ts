// Session ownership in the PostgreSQL store (SPEC §8), across real processes and connections: a
// live owner holds the session, one killed with SIGKILL (or whose connection the server ended)
// holds nothing, and a busy claim names the holder. Needs SHADOWLOG_TEST_POSTGRES_URL.

import { hostname } from 'node:os';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionBusyError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import type { Ownership } from '../../src/store/log-store.js';
import { advisoryLockKey, openPostgresStore, type PostgresLogStore } from '../../src/store/postgres/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { sampleDrafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });
const CHILD_TIMEOUT_MS = 20_000;
/** How long the server may take to notice that a killed owner's connection is gone. */
const RELEASE_TIMEOUT_MS = 10_000;

describe.skipIf(server === undefined)('PostgresLogStore ownership', () => {
  const pg = server as NonNullable<typeof server>;
  const events = sealLog(sampleDrafts());
  const children: Child[] = [];
  const stores: PostgresLogStore[] = [];
  let schema: string;

  beforeEach(() => {
    schema = pg.freshSchema();
  });
  afterEach(async () => {
    await killChildren(children);
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

  function startOwner(mode: 'hold' | 'release'): Child {
    const handle = startChild('test/store/fixtures/postgres-hold-ownership.ts', [pg.url, schema, 's1', mode], CHILD_TIMEOUT_MS);
    children.push(handle);
    return handle;
  }

  async function readAll(store: PostgresLogStore): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read('s1')) out.push(...page);
    return out;
  }

  /** Claims the session, retrying while it is busy, for at most `RELEASE_TIMEOUT_MS`. */
  async function claimWithin(store: PostgresLogStore): Promise<{ ownership: Ownership; waitedMs: number }> {
    const started = Date.now();
    for (;;) {
      try {
        return { ownership: await store.acquireOwnership('s1'), waitedMs: Date.now() - started };
      } catch (error) {
        if (!(error instanceof SessionBusyError) || Date.now() - started > RELEASE_TIMEOUT_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  it('is held by a live owner in another process, which a SIGKILL frees once the server sees its connection gone', async () => {
    const store = await open();
    await store.append('s1', events, { expectedSeq: 0 });
    const child = startOwner('hold');
    await child.waitFor('owned');
    const error = await store.acquireOwnership('s1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SessionBusyError);
    expect((error as SessionBusyError).owner).toMatch(
      new RegExp(`^pid ${child.process.pid} on host ${hostname()} since \\d{4}-\\d\\d-\\d\\dT.*Z \\(PostgreSQL backend \\d+\\)$`),
    );
    // Readers need no ownership, and writers are not blocked by it (the expected seq guards them).
    expect(await readAll(store)).toEqual(events);
    child.process.kill('SIGKILL');
    expect(await child.exited).toMatchObject({ signal: 'SIGKILL' });
    const { ownership } = await claimWithin(store);
    expect(ownership.owner).toMatch(new RegExp(`^pid ${process.pid} on host `));
    await ownership.release();
  });

  it('is free after an owner in another process released it', async () => {
    const store = await open();
    const child = startOwner('release');
    await child.waitFor('released');
    expect(await child.exited).toMatchObject({ code: 0 });
    await (await store.acquireOwnership('s1')).release();
  });

  it('is free once the server ends the owner connection, without the owner releasing it', async () => {
    const applicationName = `shadowlog owner test ${schema}`;
    const owner = await openPostgresStore(pg.url, { schema, applicationName });
    stores.push(owner);
    const held = await owner.acquireOwnership('s1');
    const store = await open();
    await expect(store.acquireOwnership('s1')).rejects.toBeInstanceOf(SessionBusyError);
    await pg.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
    const { ownership } = await claimWithin(store);
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

  it('releases the ownerships taken through it when it closes, and release() after that does nothing', async () => {
    const store = await open();
    await store.acquireOwnership('s1');
    const ownership = await store.acquireOwnership('s2');
    await store.close();
    await ownership.release();
    const other = await open();
    await (await other.acquireOwnership('s1')).release();
    await (await other.acquireOwnership('s2')).release();
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
