// Part 1 of the PostgreSQL benchmark: appends to the PostgreSQL store, as a ratio to a bare `pg`
// insert loop doing the same work in the same run. The bare loop writes the same rows
// (session_id, seq, type, hash, body) into a plain table of the store's shape (primary key
// (session_id, seq), no triggers) in the same schema, through a pool with the store's settings:
// one autocommit INSERT per single event (one transaction each), one multi-row INSERT per batch.
// The store is measured on pre-sealed events (store.append) and on drafts (SessionLog.append).

import { Pool } from 'pg';
import type { EventDraft, LogEvent } from '../src/log/event.js';
import { resolveTarget } from '../src/store/postgres/connection.js';
import { openPostgresStore } from '../src/store/postgres/index.js';
import { SessionLog } from '../src/store/session-log.js';
import { backendCpuBetween, benchApplicationName, sampleBackendCpu } from './postgres-backend-cpu.js';
import { clock, elapsedMs, type Figures, formatCount, formatMicros, formatMs, formatRate, type Table } from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

export const BATCH_SIZE = 1000;
/** The store's default pool size; the bare loops get the same. */
const MAX_CONNECTIONS = 4;
export const BARE_TABLE = 'bare_events';

export interface AppendPlan {
  /** Aim for about this much bare-loop time per measurement; counts are calibrated to it. */
  readonly targetMs: number;
  readonly minSingles: number;
  readonly maxSingles: number;
  readonly minBatches: number;
  readonly maxBatches: number;
}

export const FULL_APPEND: AppendPlan = { targetMs: 2500, minSingles: 1000, maxSingles: 10_000, minBatches: 20, maxBatches: 120 };
export const QUICK_APPEND: AppendPlan = { targetMs: 300, minSingles: 100, maxSingles: 1000, minBatches: 3, maxBatches: 12 };

interface Server {
  readonly url: string;
  readonly schema: string;
  readonly admin: Pool;
}

/** One way of appending: `prepare` readies the next operation untimed; the returned function is timed. */
interface Variant {
  readonly label: string;
  /** A variant that only explains where a gap comes from. */
  readonly diagnostic: boolean;
  readonly prepare: () => () => Promise<unknown>;
  readonly close: () => Promise<void>;
  /** The number of events the variant stored, read back at the end as a check. */
  readonly countStored: () => Promise<number>;
  /** Its connections' application_name, to find their backends. */
  readonly applicationName: string;
  ms: number;
  /** CPU time of this process (every thread) during the timed operations. */
  cpuMs: number;
}

/** A pool with the settings the store gives its own (pg Pool, same client config and size; its own application_name). */
function barePool(server: Server, applicationName: string): Pool {
  const target = resolveTarget(server.url, { schema: server.schema, maxConnections: MAX_CONNECTIONS, applicationName });
  const pool = new Pool({ ...target.clientConfig, max: target.maxConnections });
  pool.on('error', () => {});
  return pool;
}

export async function createBareTable(server: Server): Promise<void> {
  await server.admin.query(`CREATE TABLE "${server.schema}".${BARE_TABLE} (
    session_id text NOT NULL,
    seq bigint NOT NULL,
    type text NOT NULL,
    hash text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (session_id, seq)
  )`);
}

interface BareOptions {
  readonly label: string;
  readonly sessionId: string;
  /** Insert into the store's events table (its triggers run) instead of the plain one. */
  readonly storeTable?: boolean;
  /** The store's statement form for a batch (unnest of arrays, the bodies one a line) instead of a multi-row VALUES. */
  readonly unnest?: boolean;
}

function valuesSql(table: string, rows: number): string {
  const tuples: string[] = [];
  for (let row = 0; row < rows; row++) {
    const base = row * 5;
    tuples.push(`($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5})`);
  }
  return `INSERT INTO ${table} (session_id, seq, type, hash, body) VALUES ${tuples.join(', ')}`;
}

/** The store's statement form (statements.ts): seqs from the first, types and hashes as arrays, the bodies one a line. */
function unnestSql(table: string): string {
  return `INSERT INTO ${table} (session_id, seq, type, hash, body)
    SELECT $1, $2::bigint + batch.n - 1, batch.type, batch.hash, batch.body
    FROM unnest($3::text[], $4::text[], string_to_array($5, E'\\n')) WITH ORDINALITY AS batch (type, hash, body, n)`;
}

/** The bare loop: pg's Pool.query with named (prepared) statements, JSON.stringify of each event. */
function bareVariant(server: Server, batchSize: number, options: BareOptions): Variant {
  const table = `"${server.schema}".${options.storeTable === true ? 'events' : BARE_TABLE}`;
  const applicationName = benchApplicationName(options.sessionId);
  const pool = barePool(server, applicationName);
  const key = `${options.storeTable === true ? 'store' : 'plain'}-${options.unnest === true ? 'unnest' : 'values'}-${batchSize}`;
  const text = batchSize === 1 ? valuesSql(table, 1) : options.unnest === true ? unnestSql(table) : valuesSql(table, batchSize);
  const statement = { name: `bench-${key}`, text };
  const sessionId = options.sessionId;
  const values = (events: readonly LogEvent[]): unknown[] => {
    if (options.unnest === true && batchSize > 1) {
      return [
        sessionId,
        (events[0] as LogEvent).seq,
        events.map((event) => event.type),
        events.map((event) => event.hash),
        // JSON.stringify, like canonical JSON, writes no raw line break.
        events.map((event) => JSON.stringify(event)).join('\n'),
      ];
    }
    const flat: unknown[] = [];
    for (const event of events) flat.push(sessionId, event.seq, event.type, event.hash, JSON.stringify(event));
    return flat;
  };
  const stream = new SealedSessionStream();
  return {
    label: options.label,
    diagnostic: options.storeTable === true || options.unnest === true,
    applicationName,
    prepare: () => {
      const events = stream.take(batchSize);
      return () => pool.query({ ...statement, values: values(events) });
    },
    close: () => pool.end(),
    countStored: async () => {
      const result = await server.admin.query<{ count: string }>(`SELECT count(*) FROM ${table} WHERE session_id = $1`, [sessionId]);
      return Number(result.rows[0]?.count ?? 0);
    },
    ms: 0,
    cpuMs: 0,
  };
}

async function storeVariant(server: Server, batchSize: number, sessionId: string): Promise<Variant> {
  const applicationName = benchApplicationName(sessionId);
  const store = await openPostgresStore(server.url, { schema: server.schema, maxConnections: MAX_CONNECTIONS, applicationName });
  const stream = new SealedSessionStream();
  return {
    label: 'store.append of pre-sealed events',
    diagnostic: false,
    applicationName,
    prepare: () => {
      const events = stream.take(batchSize);
      const expectedSeq = (events[0] as LogEvent).seq;
      return () => store.append(sessionId, events, { expectedSeq });
    },
    close: () => store.close(),
    countStored: async () => (await store.head(sessionId))?.nextSeq ?? 0,
    ms: 0,
    cpuMs: 0,
  };
}

async function sessionLogVariant(server: Server, batchSize: number, sessionId: string): Promise<Variant> {
  const applicationName = benchApplicationName(sessionId);
  const store = await openPostgresStore(server.url, { schema: server.schema, maxConnections: MAX_CONNECTIONS, applicationName });
  // A second copy of the stream supplies drafts that are legal where the log stands.
  const stream = new SealedSessionStream();
  const log = await SessionLog.create(store, sessionId, { harnessVersion: 'bench' });
  stream.next(); // The log's own session/start stands for the stream's.
  return {
    label: 'SessionLog.append of drafts (validate + seal)',
    diagnostic: false,
    applicationName,
    prepare: () => {
      const drafts: EventDraft[] = [];
      for (let index = 0; index < batchSize; index++) drafts.push(stream.nextDraft());
      return () => log.append(drafts);
    },
    close: () => store.close(),
    countStored: async () => ((await store.head(sessionId))?.nextSeq ?? 0) - 1,
    ms: 0,
    cpuMs: 0,
  };
}

/** Runs `count` operations of the variant, adding the time of each operation only. */
async function runOperations(variant: Variant, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const operation = variant.prepare();
    const cpu = process.cpuUsage();
    const start = clock();
    await operation();
    variant.ms += elapsedMs(start);
    const used = process.cpuUsage(cpu);
    variant.cpuMs += (used.user + used.system) / 1000;
  }
}

/** How many operations of the bare loop take about `targetMs`, from a short probe. */
async function calibrate(server: Server, batchSize: number, plan: AppendPlan): Promise<number> {
  const single = batchSize === 1;
  const probe = bareVariant(server, batchSize, { label: 'probe', sessionId: `probe-${single ? 'single' : 'batch'}` });
  try {
    await runOperations(probe, 1); // connect and prepare, untimed
    probe.ms = 0;
    probe.cpuMs = 0;
    const probeCount = single ? 200 : 3;
    await runOperations(probe, probeCount);
    const wanted = Math.round(plan.targetMs / (probe.ms / probeCount));
    return single
      ? Math.min(plan.maxSingles, Math.max(plan.minSingles, wanted))
      : Math.min(plan.maxBatches, Math.max(plan.minBatches, wanted));
  } finally {
    await probe.close();
  }
}

export interface CaseVariant {
  readonly label: string;
  readonly diagnostic: boolean;
  readonly ms: number;
  /** This process's CPU time during the timed calls. */
  readonly cpuMs: number;
  /** The CPU time of the variant's backends on the server, when it can be read. */
  readonly serverCpuMs: number | undefined;
}

export interface AppendCase {
  readonly batchSize: number;
  readonly operations: number;
  readonly variants: readonly CaseVariant[];
}

async function runCase(server: Server, batchSize: number, operations: number): Promise<AppendCase> {
  const name = batchSize === 1 ? 'single' : 'batch';
  const sessionId = (variant: string) => `${name}-${variant}`;
  const variants: Variant[] = [];
  const serverCpu: (number | undefined)[] = [];
  try {
    variants.push(bareVariant(server, batchSize, { label: 'bare pg insert loop (plain table)', sessionId: sessionId('bare') }));
    // The store creates its table on open; the diagnostic below writes into it.
    variants.push(await storeVariant(server, batchSize, sessionId('store')));
    variants.push(await sessionLogVariant(server, batchSize, sessionId('session-log')));
    variants.push(
      bareVariant(server, batchSize, {
        label: '  diagnostic: bare loop into the store’s table + triggers',
        sessionId: sessionId('bare-store-table'),
        storeTable: true,
      }),
    );
    if (batchSize > 1) {
      variants.push(
        bareVariant(server, batchSize, {
          label: '  diagnostic: bare loop with the store’s unnest statement (plain table)',
          sessionId: sessionId('bare-unnest'),
          unnest: true,
        }),
        bareVariant(server, batchSize, {
          label: '  diagnostic: both: the store’s statement into its table',
          sessionId: sessionId('bare-unnest-store-table'),
          storeTable: true,
          unnest: true,
        }),
      );
    }
    // One untimed operation each: connections opened, statements prepared.
    for (const variant of variants) {
      await runOperations(variant, 1);
      variant.ms = 0;
      variant.cpuMs = 0;
    }
    const before = await Promise.all(variants.map((variant) => sampleBackendCpu(server.admin, variant.applicationName)));
    // Round robin, one operation of each variant in turn: a noisy spell (fsync, checkpoints,
    // autovacuum) then hits every variant alike.
    for (let index = 0; index < operations; index++) {
      for (const variant of variants) await runOperations(variant, 1);
    }
    for (const [index, variant] of variants.entries()) {
      serverCpu.push(backendCpuBetween(before[index], await sampleBackendCpu(server.admin, variant.applicationName)));
    }
    for (const variant of variants) {
      const stored = await variant.countStored();
      if (stored !== (operations + 1) * batchSize) {
        throw new Error(`postgres benchmark: ${variant.label.trim()} stored ${stored} events, expected ${(operations + 1) * batchSize}`);
      }
    }
  } finally {
    for (const variant of variants) await variant.close();
  }
  return {
    batchSize,
    operations,
    variants: variants.map(({ label, diagnostic, ms, cpuMs }, index) => ({ label, diagnostic, ms, cpuMs, serverCpuMs: serverCpu[index] })),
  };
}

export interface AppendResult {
  readonly single: AppendCase;
  readonly batch: AppendCase;
}

export async function measureAppends(server: Server, plan: AppendPlan, progress: (message: string) => void): Promise<AppendResult> {
  await createBareTable(server);
  progress('postgres: calibrating append counts on the bare loop');
  const singles = await calibrate(server, 1, plan);
  const batches = await calibrate(server, BATCH_SIZE, plan);
  progress(`postgres: ${formatCount(singles)} single-event appends per variant`);
  const single = await runCase(server, 1, singles);
  progress(`postgres: ${formatCount(batches)} batches of ${formatCount(BATCH_SIZE)} per variant`);
  const batch = await runCase(server, BATCH_SIZE, batches);
  return { single, batch };
}

export function appendTable(result: AppendCase): Table {
  const bareMs = (result.variants[0] as { ms: number }).ms;
  const events = result.operations * result.batchSize;
  const single = result.batchSize === 1;
  const per = (ms: number) => (single ? formatMicros(ms / result.operations) : formatMs(ms / result.operations));
  return {
    title: single
      ? `PostgreSQL single-event appends (${formatCount(result.operations)} appends per variant, one transaction each)`
      : `PostgreSQL batch appends (${formatCount(result.operations)} batches of ${formatCount(result.batchSize)} events per variant, one transaction each)`,
    columns: ['variant', 'time', single ? 'per append' : 'per batch', 'Node CPU', 'backend CPU', 'events/s', 'throughput vs bare'],
    rows: result.variants.map(({ label, ms, cpuMs, serverCpuMs }, index) => [
      label,
      formatMs(ms),
      per(ms),
      per(cpuMs),
      serverCpuMs === undefined ? 'n/a' : per(serverCpuMs),
      formatRate((events * 1000) / ms),
      index === 0 ? '1.000× (baseline)' : `${(bareMs / ms).toFixed(3)}×`,
    ]),
  };
}

export function appendFigures(result: AppendCase): Figures {
  const bareMs = (result.variants[0] as { ms: number }).ms;
  return {
    batchSize: result.batchSize,
    operations: result.operations,
    events: result.operations * result.batchSize,
    variants: result.variants.map(({ label, diagnostic, ms, cpuMs, serverCpuMs }) => ({
      label: label.trim(),
      diagnostic,
      ms,
      nodeCpuMs: cpuMs,
      backendCpuMs: serverCpuMs ?? null,
      ratioToBare: bareMs / ms,
    })),
  };
}
