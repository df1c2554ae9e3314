// Following a session on PostgreSQL (LISTEN/NOTIFY): the follower contract with polling slowed
// to an hour, so that only notifications can wake it in time; appends notify only while their
// session has a follower; the handshake that keeps a follower from missing an append that was
// in flight while it registered; the fallback to polling when the LISTEN connection dies.
// Needs SHADOWLOG_TEST_POSTGRES_URL; see test/support/postgres.ts.

import type { PoolClient } from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { followSession } from '../../src/store/follow.js';
import { resolveTarget } from '../../src/store/postgres/connection.js';
import {
  type EventsNotification,
  NOTIFY_CHANNEL,
  openPostgresStore,
  PostgresConnectionError,
  type PostgresLogStore,
} from '../../src/store/postgres/index.js';
import { watchSession } from '../../src/store/postgres/watch.js';
import { collect, describeFollowContract, followLog } from '../contract/follow-contract.js';
import { findPostgres } from '../support/postgres.js';

const server = await findPostgres({ announce: false });
const AN_HOUR = 3_600_000;

describe.skipIf(server === undefined)('following on PostgreSQL', () => {
  const pg = server as NonNullable<typeof server>;
  afterAll(async () => {
    await pg.close();
  });

  describeFollowContract('PostgreSQL, LISTEN/NOTIFY between two pools', async () => {
    const schema = pg.freshSchema();
    const follower = await openPostgresStore(pg.url, { schema });
    const writer = await openPostgresStore(pg.url, { schema });
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
    const events = followLog(12);
    const stores: PostgresLogStore[] = [];
    const listeners: PoolClient[] = [];
    let schema: string;

    beforeEach(() => {
      schema = pg.freshSchema();
    });
    afterEach(async () => {
      for (const listener of listeners.splice(0)) listener.release();
      for (const store of stores.splice(0)) await store.close();
      await pg.dropSchemas();
    });

    async function open(): Promise<PostgresLogStore> {
      const store = await openPostgresStore(pg.url, { schema });
      stores.push(store);
      return store;
    }
    async function followers(): Promise<Array<{ session_id: string; backend_pid: number }>> {
      return (await pg.admin.query(`SELECT session_id, backend_pid FROM "${schema}".followers`)).rows;
    }
    /** An admin connection that LISTENs on the channel and keeps what this schema's appends notify. */
    async function listen(): Promise<EventsNotification[]> {
      const client = await pg.admin.connect();
      listeners.push(client);
      const heard: EventsNotification[] = [];
      client.on('notification', (message) => {
        const notification = JSON.parse(message.payload ?? '{}') as EventsNotification;
        if (message.channel === NOTIFY_CHANNEL && notification.schema === schema) heard.push(notification);
      });
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      return heard;
    }
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

    it('notifies the appends of a session only while it has a follower, with the new head, once per statement', async () => {
      const store = await open();
      const heard = await listen();
      await store.append('s1', events.slice(0, 3), { expectedSeq: 0 });
      await store.append('other', events.slice(0, 2), { expectedSeq: 0 });
      await settle();
      expect(heard).toEqual([]);
      const run = collect(store, 's1', { pollMs: AN_HOUR });
      await run.reach(3);
      expect(await followers()).toEqual([{ session_id: 's1', backend_pid: expect.any(Number) }]);
      await store.append('s1', events.slice(3, 4), { expectedSeq: 3 });
      await store.append('s1', events.slice(4, 8), { expectedSeq: 4 });
      await store.append('other', events.slice(2, 3), { expectedSeq: 2 });
      await run.reach(8);
      await settle();
      expect(heard).toEqual([
        { schema, sessionId: 's1', nextSeq: 4 },
        { schema, sessionId: 's1', nextSeq: 8 },
      ]);
      run.controller.abort();
      await run.done;
      // The follower is gone, and so are its row and the notifications.
      expect(await followers()).toEqual([]);
      await store.append('s1', events.slice(8, 9), { expectedSeq: 8 });
      await settle();
      expect(heard).toHaveLength(2);
    });

    it('does not miss an append whose transaction was open while the follower registered', async () => {
      const writer = await open();
      const follower = await open();
      await writer.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      let finish: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        finish = resolve;
      });
      // Every statement of the writer's transaction has run its trigger (and found no follower)
      // when the follower starts; the transaction commits only after that. The follower's
      // registration must wait for it, or it would read the head before the commit and never
      // hear of these events.
      async function* slowBatches() {
        yield events.slice(2, 5);
        yield events.slice(5, 7);
        await held;
      }
      const appending = writer.appendAll('s1', slowBatches(), { expectedSeq: 2 });
      await settle();
      const run = collect(follower, 's1', { pollMs: AN_HOUR });
      await settle();
      finish();
      expect(await appending).toBe(5);
      await run.reach(7);
      run.controller.abort();
      await run.done;
      expect(run.seen).toEqual(events.slice(0, 7));
    });

    it('polls when its LISTEN connection is killed, saying why, and misses nothing', async () => {
      const writer = await open();
      const follower = await open();
      await writer.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      const lost: unknown[] = [];
      const run = collect(follower, 's1', { pollMs: 50, onWatchLost: (error) => lost.push(error) });
      await run.reach(2);
      const [row] = await followers();
      await pg.admin.query('SELECT pg_terminate_backend($1)', [row?.backend_pid]);
      await writer.append('s1', events.slice(2, 6), { expectedSeq: 2 });
      await run.reach(6);
      run.controller.abort();
      await run.done;
      expect(run.seen).toEqual(events.slice(0, 6));
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(PostgresConnectionError);
      expect((lost[0] as Error).message).toMatch(/^lost the connection to PostgreSQL at .* while following session s1: /);
    });

    it('checks its connection while nothing happens, and goes on hearing appends afterwards', async () => {
      const writer = await open();
      await writer.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      const ends = new Set<() => Promise<void>>();
      const controller = new AbortController();
      const watch = watchSession(resolveTarget(pg.url, { schema }), 's1', controller.signal, { open: ends, heartbeatMs: 50 });
      const wakes: number[] = [];
      const watching = (async () => {
        for await (const _ of watch) wakes.push(Date.now());
      })();
      while (wakes.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      // Several heartbeats go by.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(wakes).toHaveLength(1);
      await writer.append('s1', events.slice(2, 3), { expectedSeq: 2 });
      while (wakes.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      await watching;
      expect(ends.size).toBe(0);
      expect(await followers()).toEqual([]);
    });

    it('ends its watches when the store closes, leaving no follower behind', async () => {
      const writer = await open();
      const follower = await openPostgresStore(pg.url, { schema });
      await writer.append('s1', events.slice(0, 2), { expectedSeq: 0 });
      const seen: LogEvent[] = [];
      const following = (async () => {
        for await (const page of followSession(follower, 's1', { pollMs: AN_HOUR })) seen.push(...page);
      })();
      while (seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await followers()).toHaveLength(1);
      await follower.close();
      // The follower's next look at the store finds it closed: a typed error, not a hang.
      await expect(following).rejects.toMatchObject({ code: 'STORE_CLOSED' });
      expect(await followers()).toEqual([]);
    });
  });
});
