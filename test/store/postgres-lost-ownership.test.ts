// An owner's append in flight when its PostgreSQL lock connection is lost: the OwnershipLostError
// says whether the events landed, from the session itself once the server process of that
// connection has ended (test/chaos/postgres-lost-ownership.test.ts covers appends after the
// loss). A loopback proxy between the store and the server breaks the connection after the
// server has committed, which nothing on the server side can do. Needs SHADOWLOG_TEST_POSTGRES_URL.

import { createServer, type Server, Socket } from 'node:net';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import { OwnershipLostError, openPostgresStore, type PostgresLogStore } from '../../src/store/postgres/index.js';
import { sampleDrafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });

/** What the proxy does to the connection that next sends an INSERT, once the server answers it. */
type Cut = 'close both sides' | 'close the client side only';

interface CuttingProxy {
  /** The server's URL, through the proxy. */
  readonly url: string;
  cutNextInsert(cut: Cut): void;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `target`, which can break one connection after the server answered an INSERT. */
async function startCuttingProxy(target: string): Promise<CuttingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let armed: Cut | undefined;
  const proxy: Server = createServer((client) => {
    const serverSide = new Socket();
    serverSide.connect(Number(upstream.port || 5432), upstream.hostname);
    for (const socket of [client, serverSide]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    let cut: Cut | undefined;
    client.on('data', (chunk: Buffer) => {
      if (armed !== undefined && chunk.includes('INSERT INTO')) {
        cut = armed;
        armed = undefined;
      }
      serverSide.write(chunk);
    });
    serverSide.on('data', (chunk: Buffer) => {
      if (cut === undefined) {
        client.write(chunk);
        return;
      }
      // The server answers only after the Sync, that is after the insert committed.
      client.destroy();
      if (cut === 'close both sides') serverSide.end();
    });
    client.on('close', () => {
      if (cut === undefined) serverSide.end();
    });
    serverSide.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  const through = new URL(target);
  through.hostname = '127.0.0.1';
  through.port = String(address.port);
  return {
    url: through.toString(),
    cutNextInsert: (cut) => {
      armed = cut;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe.skipIf(server === undefined)('PostgresLogStore: an owner append cut off by the loss of its lock connection', () => {
  const pg = server as NonNullable<typeof server>;
  const events = sealLog(sampleDrafts());
  const stores: PostgresLogStore[] = [];
  const proxies: CuttingProxy[] = [];
  let schema: string;

  beforeEach(() => {
    schema = pg.freshSchema();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const proxy of proxies.splice(0)) await proxy.close();
    await pg.dropSchemas();
  });
  afterAll(async () => {
    await pg.close();
  });

  async function open(url = pg.url): Promise<PostgresLogStore> {
    const store = await openPostgresStore(url, { schema });
    stores.push(store);
    return store;
  }

  async function throughProxy(): Promise<{ proxy: CuttingProxy; store: PostgresLogStore }> {
    const proxy = await startCuttingProxy(pg.url);
    proxies.push(proxy);
    return { proxy, store: await open(proxy.url) };
  }

  async function readAll(store: PostgresLogStore): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read('s1')) out.push(...page);
    return out;
  }

  it('says nothing was written when the lock backend is killed while the append waits, and refuses the next', async () => {
    const store = await open();
    const ownership = await store.acquireOwnership('s1');
    await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
    // Another transaction inserts seq 2 and keeps it open, so the owner's append waits on the key.
    const other = await pg.admin.connect();
    try {
      await other.query('BEGIN');
      const next = events[2] as LogEvent;
      await other.query(`INSERT INTO "${schema}".events VALUES ('s1', 2, $1, $2, $3)`, [next.type, next.hash, canonicalJson(next)]);
      const appending = store.append('s1', events.slice(2), { expectedSeq: 2 }).catch((caught: unknown) => caught);
      const { rows } = await pg.admin.query<{ backend_pid: number }>(`SELECT backend_pid FROM "${schema}".owners WHERE session_id = 's1'`);
      const lock = rows[0]?.backend_pid;
      for (let tries = 0; ; tries++) {
        const waiting = await pg.admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [lock]);
        if (waiting.rows.length > 0) break;
        if (tries > 500) throw new Error('the append never waited for the lock');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await pg.admin.query('SELECT pg_terminate_backend($1)', [lock]);
      const error = await appending;
      expect(error).toBeInstanceOf(OwnershipLostError);
      expect(error).toMatchObject({ code: 'OWNERSHIP_LOST', sessionId: 's1', appendOutcome: 'not-written' });
      expect((error as Error).message).toContain(
        `was closed ("terminating connection due to administrator command"), so another process may own it now; nothing was written.`,
      );
    } finally {
      await other.query('ROLLBACK');
      other.release();
    }
    expect((await store.head('s1'))?.nextSeq).toBe(2);
    await expect(store.append('s1', events.slice(2), { expectedSeq: 2 })).rejects.toMatchObject({ appendOutcome: 'not-written' });
    expect((await store.head('s1'))?.nextSeq).toBe(2);
    await ownership.release();
  });

  it('says the events were written when the connection broke after the server had committed them', async () => {
    const { proxy, store } = await throughProxy();
    const ownership = await store.acquireOwnership('s1');
    proxy.cutNextInsert('close both sides');
    const error = await store.append('s1', events, { expectedSeq: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OwnershipLostError);
    expect(error).toMatchObject({ appendOutcome: 'written' });
    expect((error as Error).message).toContain(
      `; the ${events.length} events from seq 0 had been stored before the connection closed, and nothing more will be.`,
    );
    expect(await readAll(store)).toEqual(events);
    await ownership.release();
  });

  it('says the outcome is unknown while the server process of the broken connection lives on', async () => {
    const { proxy, store } = await throughProxy();
    const ownership = await store.acquireOwnership('s1');
    proxy.cutNextInsert('close the client side only');
    const error = await store.append('s1', events, { expectedSeq: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OwnershipLostError);
    expect(error).toMatchObject({ appendOutcome: 'unknown' });
    expect((error as Error).message).toContain(
      `; the ${events.length} events from seq 0 may or may not have been stored: read the head of session s1 (nextSeq 0 means they were not, ${events.length} that they were).`,
    );
    await ownership.release();
  });

  it('can claim the session again after the loss, and the lost ownership, released late, leaves the new one alone', async () => {
    const store = await open();
    const killLockBackend = async () => {
      const { rows } = await pg.admin.query<{ backend_pid: number }>(`SELECT backend_pid FROM "${schema}".owners WHERE session_id = 's1'`);
      await pg.admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.backend_pid]);
    };
    const lost = await store.acquireOwnership('s1');
    await store.append('s1', events.slice(0, 2), { expectedSeq: 0 });
    await killLockBackend();
    await expect(store.append('s1', events.slice(2, 4), { expectedSeq: 2 })).rejects.toBeInstanceOf(OwnershipLostError);
    let again: Awaited<ReturnType<PostgresLogStore['acquireOwnership']>> | undefined;
    for (let tries = 0; again === undefined; tries++) {
      again = await store.acquireOwnership('s1').catch((error: unknown) => {
        if (tries > 500) throw error;
        return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10));
      });
    }
    await lost.release();
    await store.append('s1', events.slice(2, 4), { expectedSeq: 2 });
    // The new ownership still holds the session, and its appends still go through its own lock connection.
    await expect((await open()).acquireOwnership('s1')).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    await killLockBackend();
    await expect(store.append('s1', events.slice(4), { expectedSeq: 4 })).rejects.toBeInstanceOf(OwnershipLostError);
    expect(await readAll(store)).toEqual(events.slice(0, 4));
    await again.release();
  });
});
