// Part 2 of the PostgreSQL benchmark: 16 concurrent writers on 16 different sessions against 1
// writer, single-event appends. Every writer is its own SessionLog, and all of them share one
// PostgresLogStore whose pool has 16 connections (one process, as a server hosting many agents
// would run it). Each phase runs for a fixed time; its drafts are prepared beforehand, untimed.
// A bare `pg` loop (autocommit single-row inserts into the plain table, a pool of 16) runs the
// same phases, to show what the server itself allows on this machine.

import { Pool } from 'pg';
import type { EventDraft, LogEvent } from '../src/log/event.js';
import { resolveTarget } from '../src/store/postgres/connection.js';
import { openPostgresStore, type PostgresLogStore } from '../src/store/postgres/index.js';
import { SessionLog } from '../src/store/session-log.js';
import { BARE_TABLE } from './postgres-append.js';
import { backendCpuBetween, benchApplicationName, sampleBackendCpu } from './postgres-backend-cpu.js';
import { clock, elapsedMs, type Figures, formatCount, formatMicros, formatMs, formatRate, formatRatio, type Table } from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

export const WRITERS = 16;

export interface WritersPlan {
  /** How long each phase runs. */
  readonly phaseMs: number;
  /** Rounds of the four phases (bare and store, 1 and 16 writers), interleaved. */
  readonly rounds: number;
}

export const FULL_WRITERS: WritersPlan = { phaseMs: 3000, rounds: 3 };
export const QUICK_WRITERS: WritersPlan = { phaseMs: 400, rounds: 1 };

interface Server {
  readonly url: string;
  readonly schema: string;
  readonly admin: Pool;
}

/** One writer: `load` prepares its next `count` operations untimed (keeping any left over); `take` hands out the next one. */
interface Writer {
  load(count: number): void;
  take(): (() => Promise<unknown>) | undefined;
}

function storeWriter(log: SessionLog): Writer {
  const stream = new SealedSessionStream({ seed: hashSeed(log.sessionId) });
  stream.next(); // The log's own session/start stands for the stream's.
  let drafts: EventDraft[] = [];
  let next = 0;
  return {
    load: (count) => {
      // Drafts a phase left unused come first: the stream has moved past them.
      drafts = drafts.slice(next);
      next = 0;
      while (drafts.length < count) drafts.push(stream.nextDraft());
    },
    take: () => {
      const draft = drafts[next];
      if (draft === undefined) return undefined;
      next++;
      return () => log.append([draft]);
    },
  };
}

function bareWriter(pool: Pool, table: string, sessionId: string): Writer {
  const stream = new SealedSessionStream({ seed: hashSeed(sessionId) });
  const text = `INSERT INTO ${table} (session_id, seq, type, hash, body) VALUES ($1, $2, $3, $4, $5)`;
  let events: LogEvent[] = [];
  let next = 0;
  return {
    load: (count) => {
      events = events.slice(next);
      next = 0;
      if (events.length < count) events.push(...stream.take(count - events.length));
    },
    take: () => {
      const event = events[next];
      if (event === undefined) return undefined;
      next++;
      return () =>
        pool.query({ name: 'bench-writer-insert', text, values: [sessionId, event.seq, event.type, event.hash, JSON.stringify(event)] });
    },
  };
}

function hashSeed(text: string): number {
  let seed = 7;
  for (const char of text) seed = (seed * 31 + char.charCodeAt(0)) >>> 0;
  return seed;
}

interface Phase {
  events: number;
  ms: number;
  /** CPU time of this process (every thread) during the phase. */
  cpuMs: number;
  /** CPU time of the pool's backends on the server, when it can be read. */
  serverCpuMs: number | undefined;
  latencies: number[];
  /** Writers that used up their prepared operations before the phase ended. */
  exhausted: number;
}

/** Runs the writers at once for `phaseMs`; each waits for its append before the next. */
async function runPhase(writers: readonly Writer[], phaseMs: number, into: Phase): Promise<void> {
  const cpu = process.cpuUsage();
  const start = clock();
  let events = 0;
  let exhausted = 0;
  await Promise.all(
    writers.map(async (writer) => {
      while (elapsedMs(start) < phaseMs) {
        const operation = writer.take();
        if (operation === undefined) {
          exhausted++;
          return;
        }
        const began = clock();
        await operation();
        into.latencies.push(elapsedMs(began));
        events++;
      }
    }),
  );
  into.ms += elapsedMs(start);
  const used = process.cpuUsage(cpu);
  into.cpuMs += (used.user + used.system) / 1000;
  into.events += events;
  into.exhausted += exhausted;
}

export interface WritersConfig {
  readonly label: string;
  readonly kind: 'bare' | 'store';
  readonly writers: number;
  readonly events: number;
  readonly ms: number;
  readonly eventsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU time of this process per event appended. */
  readonly nodeCpuMsPerEvent: number;
  /** Share of the phase's wall time this process kept a CPU busy (up to the number of CPUs). */
  readonly nodeCpuShare: number;
  /** CPU time of the pool's backends on the server per event, when it can be read. */
  readonly backendCpuMsPerEvent: number | undefined;
  readonly backendCpuShare: number | undefined;
  readonly exhausted: number;
}

export interface WritersResult {
  readonly plan: WritersPlan;
  readonly configs: readonly WritersConfig[];
}

function emptyPhase(): Phase {
  return { events: 0, ms: 0, cpuMs: 0, serverCpuMs: 0, latencies: [], exhausted: 0 };
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number;
}

export async function measureWriters(server: Server, plan: WritersPlan, progress: (message: string) => void): Promise<WritersResult> {
  const storeName = benchApplicationName('writers-store');
  const bareName = benchApplicationName('writers-bare');
  const store: PostgresLogStore = await openPostgresStore(server.url, {
    schema: server.schema,
    maxConnections: WRITERS,
    applicationName: storeName,
  });
  const target = resolveTarget(server.url, { schema: server.schema, maxConnections: WRITERS, applicationName: bareName });
  const pool = new Pool({ ...target.clientConfig, max: target.maxConnections });
  const table = `"${server.schema}".${BARE_TABLE}`;
  pool.on('error', () => {});
  try {
    const logs: SessionLog[] = [];
    for (let index = 0; index <= WRITERS; index++) {
      logs.push(await SessionLog.create(store, `writers-${index === WRITERS ? 'solo' : index}`, { harnessVersion: 'bench' }));
    }
    const storeOne = [storeWriter(logs[WRITERS] as SessionLog)];
    const storeMany = logs.slice(0, WRITERS).map(storeWriter);
    const bareOne = [bareWriter(pool, table, 'writers-solo')];
    const bareMany = Array.from({ length: WRITERS }, (_, index) => bareWriter(pool, table, `writers-${index}`));
    const configs = [
      { label: 'bare pg loop, 1 writer', kind: 'bare' as const, writers: bareOne },
      { label: 'store, 1 writer', kind: 'store' as const, writers: storeOne },
      { label: `bare pg loop, ${WRITERS} writers`, kind: 'bare' as const, writers: bareMany },
      { label: `store, ${WRITERS} writers`, kind: 'store' as const, writers: storeMany },
    ].map((config) => ({ ...config, phase: emptyPhase(), perWriterRate: 0 }));

    // Warm up each configuration (connections, prepared statements), then learn how many
    // operations a writer gets through in a phase, to prepare enough of them.
    progress('postgres: warming up the writers');
    for (const config of configs) {
      for (const writer of config.writers) writer.load(20);
      await runPhase(config.writers, 10_000, emptyPhase());
      const probe = emptyPhase();
      for (const writer of config.writers) writer.load(config.writers.length === 1 ? 400 : 60);
      await runPhase(config.writers, 10_000, probe);
      config.perWriterRate = probe.events / config.writers.length / probe.ms;
    }

    for (let round = 0; round < plan.rounds; round++) {
      progress(`postgres: writers round ${round + 1} of ${plan.rounds}, ${formatMs(plan.phaseMs)} per phase`);
      // Rotate the order, so that no configuration always follows the same one.
      for (let turn = 0; turn < configs.length; turn++) {
        const config = configs[(turn + round) % configs.length] as (typeof configs)[number];
        // Three times what the fastest rate seen so far needs, so that no writer runs dry.
        const count = Math.ceil(3 * config.perWriterRate * plan.phaseMs) + 20;
        for (const writer of config.writers) writer.load(count);
        const before = { events: config.phase.events, ms: config.phase.ms };
        const applicationName = config.kind === 'store' ? storeName : bareName;
        const serverBefore = await sampleBackendCpu(server.admin, applicationName);
        await runPhase(config.writers, plan.phaseMs, config.phase);
        const serverCpu = backendCpuBetween(serverBefore, await sampleBackendCpu(server.admin, applicationName));
        const sum = config.phase.serverCpuMs;
        config.phase.serverCpuMs = serverCpu === undefined || sum === undefined ? undefined : sum + serverCpu;
        const rate = (config.phase.events - before.events) / config.writers.length / (config.phase.ms - before.ms);
        config.perWriterRate = Math.max(config.perWriterRate, rate);
      }
    }
    const results: WritersConfig[] = configs.map(({ label, kind, writers, phase }) => {
      const sorted = [...phase.latencies].sort((a, b) => a - b);
      return {
        label,
        kind,
        writers: writers.length,
        events: phase.events,
        ms: phase.ms,
        eventsPerSecond: (phase.events * 1000) / phase.ms,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        nodeCpuMsPerEvent: phase.cpuMs / phase.events,
        nodeCpuShare: phase.cpuMs / phase.ms,
        backendCpuMsPerEvent: phase.serverCpuMs === undefined ? undefined : phase.serverCpuMs / phase.events,
        backendCpuShare: phase.serverCpuMs === undefined ? undefined : phase.serverCpuMs / phase.ms,
        exhausted: phase.exhausted,
      };
    });
    for (let index = 0; index < WRITERS; index++) {
      const head = await store.head(`writers-${index}`);
      if (head === undefined || head.nextSeq < 2) throw new Error(`postgres benchmark: writer ${index} stored nothing`);
    }
    return { plan, configs: results };
  } finally {
    await pool.end().catch(() => {});
    await store.close();
  }
}

function find(result: WritersResult, kind: 'bare' | 'store', writers: number): WritersConfig {
  const found = result.configs.find((config) => config.kind === kind && config.writers === writers);
  if (found === undefined) throw new Error(`postgres benchmark: no ${kind} result for ${writers} writers`);
  return found;
}

export function writersTable(result: WritersResult): Table {
  return {
    title: `Concurrent writers: ${WRITERS} sessions at once vs 1, single-event appends (${result.plan.rounds} × ${formatMs(result.plan.phaseMs)} per configuration)`,
    columns: [
      'configuration',
      'events',
      'aggregate events/s',
      '× the 1-writer rate',
      'p50 append',
      'p99 append',
      'p99 × the 1-writer p99',
      'Node CPU per event',
      'Node CPU busy',
      'backend CPU per event',
      'backends busy',
    ],
    rows: result.configs.map((config) => {
      const one = find(result, config.kind, 1);
      return [
        config.label,
        formatCount(config.events),
        formatRate(config.eventsPerSecond),
        config.writers === 1 ? '1.00×' : formatRatio(config.eventsPerSecond / one.eventsPerSecond),
        formatMs(config.p50Ms),
        formatMs(config.p99Ms),
        config.writers === 1 ? '1.00×' : formatRatio(config.p99Ms / one.p99Ms),
        formatMicros(config.nodeCpuMsPerEvent),
        `${(100 * config.nodeCpuShare).toFixed(0)}%`,
        config.backendCpuMsPerEvent === undefined ? 'n/a' : formatMicros(config.backendCpuMsPerEvent),
        config.backendCpuShare === undefined ? 'n/a' : `${(100 * config.backendCpuShare).toFixed(0)}%`,
      ];
    }),
  };
}

export function writersFigures(result: WritersResult): Figures {
  const storeOne = find(result, 'store', 1);
  const storeMany = find(result, 'store', WRITERS);
  const bareMany = find(result, 'bare', WRITERS);
  return {
    writers: WRITERS,
    phaseMs: result.plan.phaseMs,
    rounds: result.plan.rounds,
    configs: result.configs.map((config) => ({
      ...config,
      backendCpuMsPerEvent: config.backendCpuMsPerEvent ?? null,
      backendCpuShare: config.backendCpuShare ?? null,
    })),
    storeThroughputRatio: storeMany.eventsPerSecond / storeOne.eventsPerSecond,
    storeP99Ratio: storeMany.p99Ms / storeOne.p99Ms,
    storeToBareAt16: storeMany.eventsPerSecond / bareMany.eventsPerSecond,
  };
}

/** Notes for the table, including any writer that ran out of prepared events. */
export function writersNotes(result: WritersResult): string[] {
  const notes = [
    `Writers: one PostgresLogStore opened with maxConnections ${WRITERS}, shared by ${WRITERS} SessionLogs (sessions writers-0 … writers-${WRITERS - 1}) in one Node process; the single writer is its own session (writers-solo) on the same store. Each writer appends one draft at a time (SessionLog.append: validate, seal, store.append) and waits for it; no ownership is claimed (appends do not need it). The bare rows do the same with autocommit single-row INSERTs of pre-sealed events into the plain table, through a pool of ${WRITERS}.`,
    'Aggregate events/s = events appended by all writers / the phase’s wall time; latency is per append call, from the call to its promise settling, pooled over all writers and rounds. Node CPU is this process’s user + system time (every thread) during the phases, per event and as a share of wall time (100% = one CPU busy); backend CPU the same for the pool’s server backends (read from /proc, n/a when the server is not local), which leaves out the WAL writer and the fsync waits.',
  ];
  const exhausted = result.configs.filter((config) => config.exhausted > 0);
  if (exhausted.length > 0) {
    notes.push(
      `Some writers ran out of prepared events before their phase ended (${exhausted.map((config) => `${config.label}: ${config.exhausted}`).join(', ')}), so those phases ended with fewer writers.`,
    );
  }
  return notes;
}
