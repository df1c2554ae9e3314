// Continuing a long SQLite session through the harness (harness.openSession, with compaction
// mounted): a 1,000,000-event session whose surface is as large as a 10,000-event one's should
// continue in about the time the short one does. The harness's capabilities and its tool-call
// ids observe every event; their state is saved in the fold checkpoints its log writes, so a
// reopen starts from the newest one. The baseline is the short session continued by reading its
// whole log (its checkpoints removed first); the long one is continued from a checkpoint at its
// head, from one checkpointEvery - 1 events before it, and by reading its whole log (what every
// continue cost before). Each open appends its session/end-seed (and writes a checkpoint when
// one is due, as a writer does): that is part of what is timed.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createCompaction } from '../src/compaction/compaction-capability.js';
import { ScriptedModel } from '../src/providers/scripted-model.js';
import { createHarness, type Harness } from '../src/spine/harness.js';
import { SessionObserver } from '../src/spine/session-observer.js';
import type { StoredCheckpoint } from '../src/store/log-store.js';
import { DEFAULT_CHECKPOINT_EVERY, SessionLog } from '../src/store/session-log.js';
import { openSqliteStore, type SqliteLogStore } from '../src/store/sqlite/index.js';
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
import { type BenchContext, type Benchmark, type BenchReport, clock, createTempDirectory, elapsedMs, formatCount } from './support.js';

function harnessOver(store: SqliteLogStore): Harness {
  const model = new ScriptedModel({ limits: { contextWindow: 200_000, defaultMaxOutputTokens: 8_192 }, replies: [] });
  return createHarness({ store, model, capabilities: [createCompaction()] });
}

/** One timed continue through the harness; checks where it started from. */
async function timeContinue(harness: Harness, built: Built, expectFrom: number | undefined): Promise<number> {
  const start = clock();
  const session = await harness.openSession(built.sessionId, 'bench');
  const ms = elapsedMs(start);
  const report = session.log.checkpointReport;
  await session.close();
  if (report.restoredFrom !== expectFrom || report.ignored.length > 0) {
    throw new Error(
      `open-harness: continued from ${String(report.restoredFrom)} (${report.ignored.length} ignored), expected ${String(expectFrom)}`,
    );
  }
  if (session.log.fold.size < built.surfaceNodes)
    throw new Error(`open-harness: ${session.log.fold.size} surface nodes, expected ${built.surfaceNodes} or more`);
  return ms;
}

/**
 * Removes every checkpoint of the session, between timed continues. A store refuses that (its
 * checkpoints are append-only: pruning keeps the newest), so the bench does it on its own
 * temporary file, as the file's owner, without the trigger.
 */
function removeCheckpoints(path: string, sessionId: string): void {
  const db = new Database(path);
  try {
    db.exec('DROP TRIGGER IF EXISTS fold_checkpoints_prune_only');
    db.prepare('DELETE FROM fold_checkpoints WHERE session_id = ?').run(sessionId);
  } finally {
    db.close();
  }
}

async function newest(store: SqliteLogStore, sessionId: string): Promise<number> {
  const [entry] = await store.listCheckpoints(sessionId);
  if (entry === undefined) throw new Error('open-harness: the continue wrote no checkpoint');
  return entry.seq;
}

interface Figures {
  readonly small: Built;
  readonly large: Built;
  readonly baselineMs: number;
  readonly shortFromHeadMs: number;
  readonly longFromHeadMs: number;
  readonly longFromBehindMs: number;
  readonly behindEvents: number;
  readonly longWholeMs: number;
  readonly checkpointLength: number;
}

async function measure(store: SqliteLogStore, path: string, sizes: Sizes, context: BenchContext): Promise<Figures> {
  context.progress(`open-harness: building a ${formatCount(sizes.small)}-event session`);
  const small = await buildCompactedSession(store, 'short', sizes.small);
  context.progress(`open-harness: building a ${formatCount(sizes.large)}-event session`);
  const large = await buildCompactedSession(store, 'long', sizes.large);
  const harness = harnessOver(store);

  context.progress('open-harness: timing the baseline (the short session, whole log)');
  const baselineMs = await medianOf(sizes.repeats, async () => {
    removeCheckpoints(path, small.sessionId);
    return timeContinue(harness, small, undefined);
  });
  // The last of those wrote a checkpoint with the harness's state at its end-seed; each continue from it appends one more.
  const shortFromHeadMs = await medianOf(sizes.repeats, async () => timeContinue(harness, small, await newest(store, small.sessionId)));

  // The checkpoint a writer with the default interval may have left furthest behind the head, with the harness's state.
  const head = (await store.head(large.sessionId))?.nextSeq ?? 0;
  const behindEvents = Math.min(DEFAULT_CHECKPOINT_EVERY - 1, head - 1);
  context.progress(`open-harness: a checkpoint ${formatCount(behindEvents)} events before the head of the long session`);
  const observed = new SessionObserver(large.sessionId, [createCompaction()], () => {}).forLog();
  const behind = await SessionLog.open(store, large.sessionId, { registry: harness.registry, toSeq: head - behindEvents, ...observed });
  const entry = await behind.writeCheckpoint();
  const stored = (await store.readCheckpoint(large.sessionId, entry.seq)) as StoredCheckpoint;
  const longFromBehindMs = await medianOf(sizes.repeats, async () => {
    // Each continue writes a checkpoint at its head (one is due): put the one behind back as the newest.
    removeCheckpoints(path, large.sessionId);
    await store.writeCheckpoint(large.sessionId, stored);
    return timeContinue(harness, large, entry.seq);
  });
  const headSeq = await newest(store, large.sessionId);
  const checkpointLength = (await store.readCheckpoint(large.sessionId, headSeq))?.payload.length ?? 0;
  const longFromHeadMs = await medianOf(sizes.repeats, async () => timeContinue(harness, large, await newest(store, large.sessionId)));

  context.progress('open-harness: timing the long session continued from its whole log (once)');
  removeCheckpoints(path, large.sessionId);
  const longWholeMs = await timeContinue(harness, large, undefined);
  return { small, large, baselineMs, shortFromHeadMs, longFromHeadMs, longFromBehindMs, behindEvents, longWholeMs, checkpointLength };
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('open-harness');
  let figures: Figures;
  try {
    const path = join(directory.path, 'log.db');
    const store = await openSqliteStore(path);
    try {
      figures = await measure(store, path, sizes, context);
    } finally {
      await store.close();
    }
  } finally {
    directory.cleanup();
  }
  const { small, large, baselineMs } = figures;
  const row = (label: string, built: Built, ms: number) => openRow(label, built, ms, baselineMs);
  return {
    tables: [
      {
        title:
          'Continuing a session through the harness (harness.openSession, compaction mounted), SQLite; target: the long one ≤ 2× the short one',
        columns: OPEN_COLUMNS,
        rows: [
          row('short session, whole log (baseline)', small, baselineMs),
          row('short session, checkpoint at its head', small, figures.shortFromHeadMs),
          row('long session, checkpoint at its head', large, figures.longFromHeadMs),
          row(`long session, checkpoint ${formatCount(figures.behindEvents)} events back`, large, figures.longFromBehindMs),
          row('long session, whole log (before)', large, figures.longWholeMs),
        ],
      },
    ],
    notes: [
      `Synthetic sessions (bench/synthetic-session.ts), as in open-checkpoint: a compaction every ${formatCount(SESSION.replaceEvery)} events keeping ${SESSION.keepRecentNodes} nodes; ${formatCount(small.toolCalls)} and ${formatCount(large.toolCalls)} tool calls, whose ids the checkpoint keeps (unique over the whole session).`,
      `Each time is the median of ${sizes.repeats} continues (open, session/end-seed, close) in this process; the long session from its whole log was timed once. A continue that finds a checkpoint due writes one: "checkpoint ${formatCount(figures.behindEvents)} events back" includes writing the new one at the head.`,
      `The checkpoint at the head of the long session, with the harness's state, is ${formatCount(figures.checkpointLength)} characters.`,
    ],
    figures: { sizes: { ...sizes }, session: { ...SESSION }, ...figures, small: { ...small }, large: { ...large } },
  };
}

export const benchmark: Benchmark = {
  name: 'open-harness',
  description:
    'harness.openSession of a 1,000,000-event session from a fold checkpoint vs a 10,000-event one read whole, same surface (SQLite)',
  run,
};
