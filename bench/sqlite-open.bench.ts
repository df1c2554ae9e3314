// Benchmark 3: opening a long SQLite session and building its surface (SessionLog.open): time
// and peak memory. Memory must follow the surface plus a bounded read buffer, not the log, so a
// 1,000,000-event session is compared with a 100,000-event one whose surface is the same size
// (a compaction every 100 events keeps it bounded). Each build and each open runs in a child
// process of its own (sqlite-open-child.ts), so that memory figures start clean.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildResult, OpenResult } from './sqlite-open-child.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  createTempDirectory,
  formatBytes,
  formatCount,
  formatMs,
  formatRate,
  formatRatio,
  runJsonChild,
} from './support.js';

const CHILD = fileURLToPath(new URL('./sqlite-open-child.ts', import.meta.url));
/** In the live-heap runs, a full collection before sampling every this many pages (of 1,000 events). */
const GC_EVERY_PAGES = 10;

const FULL = { small: 100_000, large: 1_000_000 };
const QUICK = { small: 10_000, large: 100_000 };

/** Runs one measurement in a fresh Node process and returns the JSON it prints. */
const runChild = <T>(args: readonly string[]) =>
  runJsonChild<T>(`sqlite-open benchmark: child ${args.join(' ')}`, ['--import', 'tsx', '--expose-gc', CHILD, ...args]);

interface SizeResult {
  readonly build: BuildResult;
  /** The heap left to the collector: the time figure, and peaks as a program would see them. */
  readonly timed: OpenResult;
  /** A full collection every GC_EVERY_PAGES pages before sampling: the live memory. */
  readonly live: OpenResult;
}

function growth(result: OpenResult, key: 'rss' | 'heapUsed', over: 'peak' | 'median' = 'peak'): number {
  return result[over][key] - result.baseline[key];
}

function memoryTable(small: SizeResult, large: SizeResult) {
  const row = (label: string, value: (size: SizeResult) => number) => {
    const a = value(small);
    const b = value(large);
    return [label, formatBytes(a), formatBytes(b), a > 0 ? formatRatio(b / a) : 'n/a'];
  };
  return {
    title:
      'Memory while opening (growth = value sampled at page boundaries − baseline after the store opened; expect a ratio ≈ 1×, not ≈ 10×)',
    columns: ['figure', `${formatCount(small.build.events)} events`, `${formatCount(large.build.events)} events`, 'ratio'],
    rows: [
      row('peak RSS growth', (size) => growth(size.timed, 'rss')),
      row('peak heapUsed growth (garbage included)', (size) => growth(size.timed, 'heapUsed')),
      row(`peak live heap growth (gc every ${GC_EVERY_PAGES} pages)`, (size) => growth(size.live, 'heapUsed')),
      row('median live heap growth (same samples)', (size) => growth(size.live, 'heapUsed', 'median')),
      row('peak live RSS growth (same runs)', (size) => growth(size.live, 'rss')),
      row('heap retained after open (gc, log kept)', (size) => size.timed.retained.heapUsed - size.timed.baseline.heapUsed),
      row('peak RSS of the process (OS maxRSS)', (size) => size.timed.maxRss),
      row('surface at the end (canonical JSON bytes)', (size) => size.timed.surfaceBytes),
      row('database file', (size) => size.build.fileBytes),
    ],
  };
}

function timeTable(small: SizeResult, large: SizeResult) {
  const row = (label: string, size: SizeResult, ms: number, baselineMs: number | undefined) => [
    label,
    formatCount(size.build.events),
    formatMs(ms),
    formatRate((size.build.events * 1000) / ms),
    baselineMs === undefined ? '1.00×' : formatRatio(ms / baselineMs),
  ];
  const ratio = large.build.events / small.build.events;
  return {
    title: `Time (expect a ratio ≈ ${ratio}×)`,
    columns: ['measurement', 'events', 'time', 'events/s', `time vs ${formatCount(small.build.events)}`],
    rows: [
      row('SessionLog.open (read, parse, fold)', small, small.timed.openMs, undefined),
      row('SessionLog.open (read, parse, fold)', large, large.timed.openMs, small.timed.openMs),
      row(`same, with gc every ${GC_EVERY_PAGES} pages (live runs)`, small, small.live.openMs, undefined),
      row(`same, with gc every ${GC_EVERY_PAGES} pages (live runs)`, large, large.live.openMs, small.live.openMs),
      row('build: seal + store.append, 10,000 per transaction', small, small.build.ms, undefined),
      row('build: seal + store.append, 10,000 per transaction', large, large.build.ms, small.build.ms),
    ],
  };
}

async function measureSize(directory: string, events: number, context: BenchContext, timedRuns: number): Promise<SizeResult> {
  const file = join(directory, `session-${events}.db`);
  context.progress(`sqlite-open: building a ${formatCount(events)}-event session`);
  const build = await runChild<BuildResult>(['build', file, String(events)]);
  context.progress(`sqlite-open: opening it (timed ×${timedRuns}, then live heap)`);
  const timedResults: OpenResult[] = [];
  for (let run = 0; run < timedRuns; run++) timedResults.push(await runChild<OpenResult>(['open', file, '0']));
  // The run with the median time stands for all (its memory figures are its own).
  const timed = [...timedResults].sort((a, b) => a.openMs - b.openMs)[timedRuns >> 1] as OpenResult;
  const live = await runChild<OpenResult>(['open', file, String(GC_EVERY_PAGES)]);
  if (timed.events !== events || live.events !== events) {
    throw new Error(`sqlite-open benchmark: opened ${timed.events} and ${live.events} events, expected ${events}`);
  }
  return { build, timed, live };
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('open');
  try {
    // The short open is the denominator of the time ratio and is cheap, so it takes the median of three.
    const small = await measureSize(directory.path, sizes.small, context, 3);
    const large = await measureSize(directory.path, sizes.large, context, 1);
    return {
      tables: [timeTable(small, large), memoryTable(small, large)],
      notes: [
        `Surface at the end: ${small.timed.surfaceNodes} nodes (${formatCount(small.build.compactions)} compactions) vs ${large.timed.surfaceNodes} nodes (${formatCount(large.build.compactions)} compactions); both sessions end just after a compaction.`,
        `Memory is sampled with process.memoryUsage() at every page boundary of store.read() (${formatCount(large.timed.pages)} pages for the large session), through a wrapper store; SessionLog.open reads synchronously between pages, so a timer would never fire during it.`,
        'Each build and each open ran in its own child process (node --import tsx --expose-gc); the baseline is taken after the store is opened and a full collection.',
        `The timed open of the ${formatCount(small.build.events)}-event session is the median of three child runs; every other figure is one run.`,
        `Opening the store itself (openSqliteStore) took ${formatMs(small.timed.openStoreMs)} and ${formatMs(large.timed.openStoreMs)}.`,
      ],
      figures: {
        sizes: { ...sizes },
        gcEveryPages: GC_EVERY_PAGES,
        small: { ...small },
        large: { ...large },
      } as unknown as BenchReport['figures'],
    };
  } finally {
    directory.cleanup();
  }
}

export const benchmark: Benchmark = {
  name: 'sqlite-open',
  description: 'SessionLog.open of a 1,000,000-event SQLite session vs a 100,000-event one: time and peak memory',
  run,
};
