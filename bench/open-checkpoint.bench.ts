// Opening a long SQLite session from a fold checkpoint: a 1,000,000-event session whose surface
// is as large as a 10,000-event one's (both compacted at the same rate, so most of the long one
// is shadowed) should open in about the time the short one does, not in 100 times that. The
// baseline is the short session opened as before checkpoints (reading its whole log); the long
// one is opened from a checkpoint at its head, from one checkpointEvery - 1 events before its
// head (the most a writer leaves unfolded with the default interval), and by reading its whole
// log (what opening it cost before). On SQLite, and on PostgreSQL when a server answers.

import { join } from 'node:path';
import type { LogStore } from '../src/store/log-store.js';
import { openPostgresStore } from '../src/store/postgres/index.js';
import { DEFAULT_CHECKPOINT_EVERY, SessionLog } from '../src/store/session-log.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import {
  type Built,
  buildCompactedSession,
  FULL,
  medianOf,
  OPEN_COLUMNS,
  openRow,
  QUICK,
  SESSION,
  type Sizes,
} from './compacted-sessions.js';
import { benchServerUrl, createBenchSchema, probeServer } from './postgres-server.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  formatCount,
  formatMs,
} from './support.js';

/** One timed open; checks that it read what it should. */
async function timeOpen(store: LogStore, built: Built, checkpoints: boolean, expectFrom: number | undefined): Promise<number> {
  const start = clock();
  const log = await SessionLog.open(store, built.sessionId, { checkpoints });
  const ms = elapsedMs(start);
  if (log.nextSeq !== built.events || log.fold.size !== built.surfaceNodes) {
    throw new Error(
      `open-checkpoint: opened ${log.nextSeq} events and ${log.fold.size} nodes, expected ${built.events} and ${built.surfaceNodes}`,
    );
  }
  if (log.checkpointReport.restoredFrom !== expectFrom || log.checkpointReport.ignored.length > 0) {
    throw new Error(`open-checkpoint: opened from ${String(log.checkpointReport.restoredFrom)}, expected ${String(expectFrom)}`);
  }
  return ms;
}

interface StoreFigures {
  readonly store: string;
  readonly small: Built;
  readonly large: Built;
  readonly baselineMs: number;
  readonly shortFromHeadMs: number;
  readonly longFromHeadMs: number;
  readonly longFromBehindMs: number;
  readonly behindEvents: number;
  readonly longWholeMs: number;
  readonly checkpointLength: number;
  readonly checkpointWriteMs: number;
}

/** Builds both sessions in `store` and times the opens; `name` labels the progress lines. */
async function measure(store: LogStore, name: string, sizes: Sizes, context: BenchContext): Promise<StoreFigures> {
  context.progress(`open-checkpoint (${name}): building a ${formatCount(sizes.small)}-event session`);
  const small = await buildCompactedSession(store, 'short', sizes.small);
  context.progress(`open-checkpoint (${name}): building a ${formatCount(sizes.large)}-event session`);
  const large = await buildCompactedSession(store, 'long', sizes.large);

  context.progress(`open-checkpoint (${name}): timing the baseline (the short session, whole log)`);
  const baselineMs = await medianOf(sizes.repeats, () => timeOpen(store, small, false, undefined));

  // The checkpoint a writer with the default interval may have left furthest behind its head.
  const behindEvents = Math.min(DEFAULT_CHECKPOINT_EVERY - 1, large.events - 1);
  context.progress(`open-checkpoint (${name}): a checkpoint ${formatCount(behindEvents)} events before the head of the long session`);
  const walked = await SessionLog.open(store, large.sessionId, { checkpoints: false, toSeq: large.events - behindEvents });
  await walked.writeCheckpoint();
  const longFromBehindMs = await medianOf(sizes.repeats, () => timeOpen(store, large, true, large.events - behindEvents));

  await walked.catchUp();
  const start = clock();
  const headEntry = await walked.writeCheckpoint();
  const checkpointWriteMs = elapsedMs(start);
  const longFromHeadMs = await medianOf(sizes.repeats, () => timeOpen(store, large, true, large.events));

  const shortLog = await SessionLog.open(store, small.sessionId, { checkpoints: false });
  await shortLog.writeCheckpoint();
  const shortFromHeadMs = await medianOf(sizes.repeats, () => timeOpen(store, small, true, small.events));

  context.progress(`open-checkpoint (${name}): timing the long session read whole (twice)`);
  const longWholeMs = await medianOf(2, () => timeOpen(store, large, false, undefined));
  return {
    store: name,
    small,
    large,
    baselineMs,
    shortFromHeadMs,
    longFromHeadMs,
    longFromBehindMs,
    behindEvents,
    longWholeMs,
    checkpointLength: headEntry.length,
    checkpointWriteMs,
  };
}

function tableOf(figures: StoreFigures) {
  const { small, large, baselineMs } = figures;
  const row = (label: string, built: Built, ms: number) => openRow(label, built, ms, baselineMs);
  return {
    title: `Opening a session (SessionLog.open), ${figures.store}; target: the long one from a checkpoint ≤ 2× the short one`,
    columns: OPEN_COLUMNS,
    rows: [
      row('short session, whole log (baseline)', small, baselineMs),
      row('short session, checkpoint at its head', small, figures.shortFromHeadMs),
      row('long session, checkpoint at its head', large, figures.longFromHeadMs),
      row(`long session, checkpoint ${formatCount(figures.behindEvents)} events back`, large, figures.longFromBehindMs),
      row('long session, whole log (before checkpoints)', large, figures.longWholeMs),
    ],
  };
}

/** The same on PostgreSQL, when a server answers (SHADOWLOG_BENCH_POSTGRES_URL or the test one); else why not. */
async function measurePostgres(sizes: Sizes, context: BenchContext): Promise<StoreFigures | string> {
  const server = benchServerUrl();
  const skipped = await probeServer(server);
  if (skipped !== undefined) return skipped;
  const schema = await createBenchSchema(server.url);
  try {
    const store = await openPostgresStore(server.url, { schema: schema.schema });
    try {
      return await measure(store, 'PostgreSQL', sizes, context);
    } finally {
      await store.close();
    }
  } finally {
    await schema.drop();
  }
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('open-checkpoint');
  let sqlite: StoreFigures;
  try {
    const store = await openSqliteStore(join(directory.path, 'log.db'));
    try {
      sqlite = await measure(store, 'SQLite', sizes, context);
    } finally {
      await store.close();
    }
  } finally {
    directory.cleanup();
  }
  const postgres = await measurePostgres(sizes, context);
  const measured = typeof postgres === 'string' ? [sqlite] : [sqlite, postgres];
  return {
    tables: measured.map(tableOf),
    notes: [
      `Synthetic sessions (bench/synthetic-session.ts): a compaction every ${formatCount(SESSION.replaceEvery)} events keeping ${SESSION.keepRecentNodes} nodes at the tail, so both surfaces stay a few hundred nodes; both end at the same point of the compaction cycle.`,
      `Each time is the median of ${sizes.repeats} opens in this process, the long session read whole the median of 2; the store was open and its page cache warm from the build.`,
      `"Checkpoint ${formatCount(sqlite.behindEvents)} events back": the newest checkpoint is DEFAULT_CHECKPOINT_EVERY - 1 events before the head, as a writer that checkpoints every ${formatCount(DEFAULT_CHECKPOINT_EVERY)} events can leave it; the open reads the checkpoint, the surface nodes by seq, and those events.`,
      ...measured.map(
        (figures) =>
          `${figures.store}: the checkpoint at the head of the long session is ${formatCount(figures.checkpointLength)} characters (its surface bits hold one bit per event of the log); writing it took ${formatMs(figures.checkpointWriteMs)}.`,
      ),
      ...(typeof postgres === 'string' ? [postgres] : []),
    ],
    figures: {
      sizes: { ...sizes },
      session: { ...SESSION },
      stores: measured.map((figures) => ({ ...figures, small: { ...figures.small }, large: { ...figures.large } })),
      ...(typeof postgres === 'string' ? { postgresSkipped: postgres } : {}),
    },
  };
}

export const benchmark: Benchmark = {
  name: 'open-checkpoint',
  description:
    'SessionLog.open of a 1,000,000-event session from a fold checkpoint vs a 10,000-event one read whole, same surface (SQLite, PostgreSQL)',
  run,
};
