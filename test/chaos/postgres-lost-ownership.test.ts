// Lost PostgreSQL ownership (issue 9, item 5): the server ends the connection that holds an
// owner's advisory lock (here pg_terminate_backend, as an administrator, a failover or a
// pooler would) while the owner is in the middle of its session. The owner must stop at its
// next append with OwnershipLostError and write nothing, whether another process has claimed
// the session by then or not; a real second process takes the session over and carries on
// undisturbed. An idle_session_timeout must not end an ownership at all. Needs
// SHADOWLOG_TEST_POSTGRES_URL.

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { OwnershipLostError, openPostgresStore, type PostgresLogStore } from '../../src/store/postgres/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { sampleDrafts, sealLog } from '../support/events.js';
import { findPostgres } from '../support/postgres.js';
import { recordFigures } from './support/figures.js';
import { buildTakeoverAgent } from './support/takeover-scenario.js';

const CHILD = 'test/chaos/fixtures/postgres-take-over.ts';
const CHILD_TIMEOUT_MS = 30_000;
/** How long the server may take to end a terminated backend; it takes milliseconds. */
const BACKEND_END_TIMEOUT_MS = 10_000;
const ROUNDS = Number(process.env.SHADOWLOG_LOST_OWNERSHIP_ROUNDS ?? 24);
const VARIANTS = ['append at once', 'append after a takeover', 'appendAll', 'empty append'] as const;

const pg = await findPostgres({ announce: false });
if (pg === undefined) console.warn('lost ownership on PostgreSQL skipped: set SHADOWLOG_TEST_POSTGRES_URL to run it');

const figures = {
  lockBackendsKilled: 0,
  appendsRefused: 0,
  eventsWrittenAfterLoss: 0,
  takeoversByAnotherProcess: 0,
  byVariant: Object.fromEntries(VARIANTS.map((variant) => [variant, 0])) as Record<(typeof VARIANTS)[number], number>,
  idleTimeoutsSurvived: 0,
};

describe.skipIf(pg === undefined)('an owner whose PostgreSQL lock connection the server ended', () => {
  const server = pg as NonNullable<typeof pg>;
  const children: Child[] = [];
  const stores: PostgresLogStore[] = [];

  afterEach(async () => {
    await killChildren(children);
    for (const store of stores.splice(0)) await store.close();
    await server.dropSchemas();
  });
  afterAll(async () => {
    await server.close();
    recordFigures('postgres-lost-ownership', figures);
  });

  async function open(schema: string, url = server.url, applicationName?: string): Promise<PostgresLogStore> {
    const store = await openPostgresStore(url, applicationName === undefined ? { schema } : { schema, applicationName });
    stores.push(store);
    return store;
  }

  async function readAll(store: PostgresLogStore, sessionId: string): Promise<LogEvent[]> {
    const out: LogEvent[] = [];
    for await (const page of store.read(sessionId)) out.push(...page);
    return out;
  }

  /** The server process that holds the session's lock, as its owners row names it. */
  async function lockBackend(schema: string, sessionId: string): Promise<number> {
    const { rows } = await server.admin.query<{ backend_pid: number }>(`SELECT backend_pid FROM "${schema}".owners WHERE session_id = $1`, [
      sessionId,
    ]);
    const pid = rows[0]?.backend_pid;
    if (pid === undefined) throw new Error(`session ${sessionId} has no owners row`);
    return pid;
  }

  async function killLockBackend(schema: string, sessionId: string): Promise<number> {
    const pid = await lockBackend(schema, sessionId);
    const { rows } = await server.admin.query<{ killed: boolean }>('SELECT pg_terminate_backend($1) AS killed', [pid]);
    expect(rows).toEqual([{ killed: true }]);
    figures.lockBackendsKilled++;
    return pid;
  }

  /** Waits until backend `pid` is gone from pg_stat_activity (so its locks are free). */
  async function backendEnded(pid: number): Promise<void> {
    const started = Date.now();
    while ((await server.admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rows.length > 0) {
      if (Date.now() - started > BACKEND_END_TIMEOUT_MS) throw new Error(`backend ${pid} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  function refused(error: unknown, sessionId: string): void {
    expect(error).toBeInstanceOf(OwnershipLostError);
    expect(error).toMatchObject({ code: 'OWNERSHIP_LOST', sessionId, appendOutcome: 'not-written' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `no longer owns session ${sessionId}: the connection that held its lock \\(PostgreSQL backend \\d+ at [^)]+\\) was closed .*another process may own it now; nothing was written\\. Stop writing to it, and open the session again`,
      ),
    );
    figures.appendsRefused++;
  }

  it('stops mid-turn with OwnershipLostError, and a second process takes the session over undisturbed', async () => {
    const schema = server.freshSchema();
    const store = await open(schema);
    let sabotage = false;
    // Inside the tool of turn 2: the lock backend is killed, and another process takes the
    // session over before the tool returns, so the first owner's next append comes after both.
    const harness = buildTakeoverAgent(store, async () => {
      if (!sabotage) return;
      await backendEnded(await killLockBackend(schema, 's1'));
      const child = startChild(CHILD, [`${server.url}?schema=${schema}`, 's1'], CHILD_TIMEOUT_MS);
      children.push(child);
      await child.waitFor('took-over');
      figures.takeoversByAnotherProcess++;
    });
    const session = await harness.createSession('s1');
    expect((await session.send('Look.')).reason).toBe('completed');
    sabotage = true;
    const mine = (await store.head('s1'))?.nextSeq ?? 0;

    refused(await session.send('Look again.').catch((caught: unknown) => caught), 's1');
    const [child] = children as [Child];
    const events = await readAll(store, 's1');
    // The first owner's turn 2 stops after its assistant message (turn/start, user, request,
    // assistant); the child's reopening comes next and closes that turn for it.
    const cut = mine + 4;
    expect(events.slice(mine, cut).map((event) => event.type)).toEqual([
      'turn/start',
      'user/message',
      'model/request',
      'assistant/message',
    ]);
    expect(events[cut]).toMatchObject({ type: 'session/end-seed', data: { reason: 'taken over: the first owner lost its lock' } });
    expect(events[cut + 1]).toMatchObject({ type: 'tool/result', data: { callId: 'look-2', error: {} } });
    expect(events[cut + 2]).toMatchObject({ type: 'turn/end', data: { turn: 2, reason: 'interrupted' } });
    expect(events.filter((event) => event.type === 'turn/end' && event.data.reason === 'error')).toEqual([]);
    expect(child.output().stdout).toContain('turn 3 completed\n');

    // The first owner stays refused, and writes nothing, while the second goes on.
    refused(await session.send('And again.').catch((caught: unknown) => caught), 's1');
    expect(await readAll(store, 's1')).toEqual(events);
    child.process.stdin.end();
    expect(await child.exited).toMatchObject({ code: 0 });
    expect(child.output().stdout).toContain('turn 4 completed\ndone\n');
    await session.close();
    const final = await readAll(store, 's1');
    expect(final.slice(0, events.length)).toEqual(events);
    expect(final.length).toBeGreaterThan(events.length);
    const report = await verifyLog(store.read('s1'), { registry: createCliRegistry() });
    expect(report).toMatchObject({ ok: true, firstBadSeq: null });
  });

  it(`refuses every kind of append after the loss, claimed by another owner or not (${ROUNDS} rounds)`, async () => {
    const schema = server.freshSchema();
    const store = await open(schema);
    const other = await open(schema);
    const events = sealLog(sampleDrafts());
    const batches = async function* (list: readonly LogEvent[]) {
      yield list;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const variant = VARIANTS[round % VARIANTS.length] as (typeof VARIANTS)[number];
      const sessionId = `round-${round}`;
      const ownership = await store.acquireOwnership(sessionId);
      await store.append(sessionId, events.slice(0, 3), { expectedSeq: 0 });
      const pid = await killLockBackend(schema, sessionId);
      let expectedSeq = 3;
      if (variant === 'append after a takeover') {
        // The next owner claims and writes; the first one's expected seq then is right, so only
        // the ownership check can stop it.
        await backendEnded(pid);
        const taken = await other.acquireOwnership(sessionId);
        await other.append(sessionId, events.slice(3, 5), { expectedSeq: 3 });
        await taken.release();
        expectedSeq = 5;
      }
      const before = await other.head(sessionId);
      const rest = events.slice(expectedSeq);
      const attempt = () =>
        variant === 'appendAll'
          ? store.appendAll(sessionId, batches(rest), { expectedSeq })
          : store.append(sessionId, variant === 'empty append' ? [] : rest, { expectedSeq });
      // Right after the kill (the owner may not have heard of it yet), and once more after.
      refused(await attempt().catch((caught: unknown) => caught), sessionId);
      refused(await attempt().catch((caught: unknown) => caught), sessionId);
      const after = await other.head(sessionId);
      expect(after).toEqual(before);
      figures.eventsWrittenAfterLoss += (after?.nextSeq ?? 0) - (before?.nextSeq ?? 0);
      figures.byVariant[variant]++;
      await ownership.release();
    }
  });

  it('is not ended by an idle_session_timeout of the server, while its idle pooled connections are', async () => {
    const schema = server.freshSchema();
    const applicationName = `shadowlog idle test ${schema}`;
    // The setting comes with every connection of this store, as a role or database default would.
    const url = `${server.url}?options=${encodeURIComponent('-c idle_session_timeout=200')}`;
    const store = await open(schema, url, applicationName);
    const ownership = await store.acquireOwnership('s1');
    const lock = await lockBackend(schema, 's1');
    // A pooled connection used after the claim, then left idle: once the server has ended it,
    // the lock connection, idle for longer, would have been ended before it.
    await store.head('s1');
    const { rows } = await server.admin.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND pid <> $2',
      [applicationName, lock],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) await backendEnded(row.pid);
    const alive = await server.admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [lock]);
    expect(alive.rows).toHaveLength(1);
    await store.append('s1', sealLog(sampleDrafts()), { expectedSeq: 0 });
    expect((await store.head('s1'))?.nextSeq).toBe(sampleDrafts().length);
    figures.idleTimeoutsSurvived++;
    await ownership.release();
  });
});
