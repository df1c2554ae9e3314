// Benchmark 1: the surface fold. Building the surface incrementally while appending (sealing
// through prepareAppend into a SurfaceFold, no store) against a naive refold of the whole
// prefix every 1,000 events; the incremental fold's linearity (100k vs 1M events); and where
// an append's time goes (sealing: canonical JSON + SHA-256, versus the fold apply). Sealing
// uses the node:crypto hasher, as SessionLog does; the log's own pure TypeScript SHA-256 is
// timed alongside in the cost split.

import { createHash } from 'node:crypto';
import type { EventDraft, LogEvent } from '../src/log/event.js';
import { envelopeJson } from '../src/log/hash.js';
import { prepareAppend, sealDraft } from '../src/log/seal.js';
import type { SessionSeq } from '../src/log/seq.js';
import { sha256Hex } from '../src/log/sha256.js';
import { SurfaceFold } from '../src/log/surface-fold.js';
import { nodeSha256Hex } from '../src/store/node-sha256.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  elapsedMs,
  formatCount,
  formatMicros,
  formatMs,
  formatRate,
  formatRatio,
  median,
  perSecond,
} from './support.js';
import { SyntheticSession } from './synthetic-session.js';

const REPLACE_EVERY = 100;
const REFOLD_EVERY = 1000;
const CHUNK = 10_000;
/** Small, so that the events kept for rehashing barely change what the collector does. */
const HASH_CHUNK = 1000;

interface Sizes {
  readonly warmup: number;
  readonly small: number;
  readonly large: number;
  readonly naivePrefix: number;
}

const FULL: Sizes = { warmup: 30_000, small: 100_000, large: 1_000_000, naivePrefix: 50_000 };
const QUICK: Sizes = { warmup: 5_000, small: 10_000, large: 100_000, naivePrefix: 10_000 };

interface PipelineRun {
  readonly events: number;
  /** Generate a draft, then prepareAppend (seal + validate + apply) into the writer's fold. */
  readonly pipelineMs: number;
  /** Time of each tenth of the run, in order. */
  readonly tenthsMs: readonly number[];
  readonly compactions: number;
  readonly maxSurfaceNodes: number;
  readonly finalSurfaceNodes: number;
}

interface ReplayRun {
  readonly events: number;
  /** The sealed events applied to a second fold, a chunk at a time: the fold alone. */
  readonly applyMs: number;
  /** Apply time of each tenth of the run, in order: a fold that slows with the log shows a rising trend. */
  readonly tenthsMs: readonly number[];
  /** The first `keep` sealed events, for the naive comparison. */
  readonly kept: readonly LogEvent[];
}

/** The parts of an append, timed around each call in one pass (prepareAppend is sealDraft + fold.apply). */
interface CostSplit {
  readonly events: number;
  readonly generateMs: number;
  /** sealDraft with node:crypto: checks, canonical JSON of the data once, its copy, envelope and body assembled, SHA-256. */
  readonly sealMs: number;
  readonly applyMs: number;
  /** sealDraft again over the same drafts with the log's own pure TypeScript SHA-256 (its default). */
  readonly sealPureMs: number;
  /** Recomputed afterwards over the same events: envelopeJson + sha256Hex (what computeEventHash does). */
  readonly hashMs: number;
  /** sha256Hex alone over the same `prevHash + envelope` strings. */
  readonly sha256Ms: number;
  /** node:crypto SHA-256 alone over the same strings: the hasher SessionLog passes to the log. */
  readonly nodeSha256Ms: number;
}

/**
 * The writer's path: appends `total` synthetic events one at a time through prepareAppend.
 * Nothing is kept, as in a real writer, so the collector's work is that of a real writer too.
 */
function runPipeline(total: number): PipelineRun {
  const session = new SyntheticSession({ replaceEvery: REPLACE_EVERY });
  const writer = new SurfaceFold();
  const now = () => session.timeOf(writer.nextSeq);
  let maxSurfaceNodes = 0;
  const tenthsMs: number[] = [];
  const start = clock();
  let tenthStart = start;
  for (let tenth = 0; tenth < 10; tenth++) {
    const end = Math.round(((tenth + 1) * total) / 10);
    for (let index = Math.round((tenth * total) / 10); index < end; index++) {
      prepareAppend(writer, [session.next(writer)], now, nodeSha256Hex);
      // The surface peaks just before a compaction, so it is sampled at every event (size is O(1)).
      if (writer.size > maxSurfaceNodes) maxSurfaceNodes = writer.size;
    }
    tenthsMs.push(elapsedMs(tenthStart));
    tenthStart = clock();
  }
  const pipelineMs = elapsedMs(start);
  return { events: total, pipelineMs, tenthsMs, compactions: session.compactionCount, maxSurfaceNodes, finalSurfaceNodes: writer.size };
}

/**
 * The same stream again, sealed a chunk at a time (untimed), each chunk then applied to a
 * second fold (timed): the fold apply alone, as a reader opening a log pays it.
 */
function runReplay(total: number, keep = 0): ReplayRun {
  const session = new SyntheticSession({ replaceEvery: REPLACE_EVERY });
  const writer = new SurfaceFold();
  const replica = new SurfaceFold();
  const now = () => session.timeOf(writer.nextSeq);
  const kept: LogEvent[] = [];
  const tenthsMs = Array.from({ length: 10 }, () => 0);
  let applyMs = 0;
  const events: LogEvent[] = [];
  for (let done = 0; done < total; done += CHUNK) {
    events.length = 0;
    const size = Math.min(CHUNK, total - done);
    for (let index = 0; index < size; index++) {
      events.push(prepareAppend(writer, [session.next(writer)], now, nodeSha256Hex).events[0] as LogEvent);
    }
    const start = clock();
    for (const event of events) replica.apply(event);
    const chunkMs = elapsedMs(start);
    applyMs += chunkMs;
    const tenth = Math.min(9, Math.floor((10 * done) / total));
    tenthsMs[tenth] = (tenthsMs[tenth] as number) + chunkMs;
    for (let index = 0; index < events.length && kept.length < keep; index++) kept.push(events[index] as LogEvent);
  }
  if (replica.nextSeq !== writer.nextSeq || replica.lastHash !== writer.lastHash) {
    throw new Error(`fold benchmark: the replica fold diverged from the writer's at seq ${replica.nextSeq}`);
  }
  return { events: total, applyMs, tenthsMs, kept };
}

/** Times generation, sealing and apply around each call; then the parts of hashing over the same events. */
function runCostSplit(total: number): CostSplit {
  const session = new SyntheticSession({ replaceEvery: REPLACE_EVERY });
  const fold = new SurfaceFold();
  const now = () => session.timeOf(fold.nextSeq);
  let generateNs = 0n;
  let sealNs = 0n;
  let applyNs = 0n;
  const hashing = { hashMs: 0, sha256Ms: 0, nodeSha256Ms: 0, sealPureMs: 0 };
  const events: LogEvent[] = [];
  const drafts: EventDraft[] = [];
  for (let done = 0; done < total; done += HASH_CHUNK) {
    events.length = 0;
    drafts.length = 0;
    const hashBefore = fold.lastHash;
    const size = Math.min(HASH_CHUNK, total - done);
    for (let index = 0; index < size; index++) {
      const t0 = clock();
      const draft = session.next(fold);
      const t1 = clock();
      const event = sealDraft(draft, fold.nextSeq as SessionSeq, fold.lastHash, now, nodeSha256Hex);
      const t2 = clock();
      fold.apply(event);
      const t3 = clock();
      generateNs += t1 - t0;
      sealNs += t2 - t1;
      applyNs += t3 - t2;
      events.push(event);
      drafts.push(draft);
    }
    timeHashing(hashBefore, drafts, events, hashing);
  }
  const ms = (ns: bigint) => Number(ns) / 1e6;
  return { events: total, generateMs: ms(generateNs), sealMs: ms(sealNs), applyMs: ms(applyNs), ...hashing };
}

/**
 * Over a chunk already sealed: seals its drafts again with the pure TypeScript SHA-256 (checking
 * that the hashes are the same), then recomputes each hash as verify does (envelope JSON +
 * SHA-256), then SHA-256 alone over the same texts, then node:crypto over them.
 */
function timeHashing(
  hashBefore: string,
  drafts: readonly EventDraft[],
  events: readonly LogEvent[],
  into: { hashMs: number; sha256Ms: number; nodeSha256Ms: number; sealPureMs: number },
): void {
  let time = '';
  const now = () => time;
  let start = clock();
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as LogEvent;
    time = event.time;
    const prevHash = index === 0 ? hashBefore : (events[index - 1] as LogEvent).hash;
    const resealed = sealDraft(drafts[index] as EventDraft, event.seq, prevHash, now);
    if (resealed.hash !== event.hash) throw new Error(`fold benchmark: sealing event ${event.seq} again gave another hash`);
  }
  into.sealPureMs += elapsedMs(start);
  const inputs: string[] = [];
  start = clock();
  for (let index = 0; index < events.length; index++) {
    const event = events[index] as LogEvent;
    const input = (index === 0 ? hashBefore : (events[index - 1] as LogEvent).hash) + envelopeJson(event);
    if (sha256Hex(input) !== event.hash) throw new Error(`fold benchmark: rehashing event ${event.seq} gave another hash`);
    inputs.push(input);
  }
  into.hashMs += elapsedMs(start);
  start = clock();
  for (const input of inputs) sha256Hex(input);
  into.sha256Ms += elapsedMs(start);
  start = clock();
  for (const input of inputs) createHash('sha256').update(input, 'utf8').digest('hex');
  into.nodeSha256Ms += elapsedMs(start);
}

/** One fold over the prefix, event by event: what a writer keeping its fold pays. */
function incrementalApplyMs(events: readonly LogEvent[]): number {
  const start = clock();
  const fold = new SurfaceFold();
  for (const event of events) fold.apply(event);
  return elapsedMs(start);
}

/** A new fold over the whole prefix every REFOLD_EVERY events. Returns the time and the number of applies. */
function naiveRefoldMs(events: readonly LogEvent[]): { ms: number; applies: number } {
  let applies = 0;
  const start = clock();
  for (let end = REFOLD_EVERY; end <= events.length; end += REFOLD_EVERY) {
    const fold = new SurfaceFold();
    for (let index = 0; index < end; index++) fold.apply(events[index] as LogEvent);
    applies += end;
  }
  return { ms: elapsedMs(start), applies };
}

function tenths(tenthsMs: readonly number[], events: number): string {
  return tenthsMs.map((ms) => formatMicros(ms / (events / 10))).join(', ');
}

/** The run whose `key` is the median of three (or of any odd number). */
function medianBy<T>(runs: readonly T[], key: (run: T) => number): T {
  return [...runs].sort((a, b) => key(a) - key(b))[runs.length >> 1] as T;
}

/** Applies the naive approach makes over a prefix of `events` events. */
function naiveApplies(events: number): number {
  const refolds = Math.floor(events / REFOLD_EVERY);
  return (REFOLD_EVERY * refolds * (refolds + 1)) / 2;
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  context.progress(`fold: warm-up, ${formatCount(sizes.warmup)} events`);
  runPipeline(sizes.warmup);
  runReplay(CHUNK * 2);
  runCostSplit(CHUNK);

  context.progress(`fold: generate + prepareAppend, ${formatCount(sizes.small)} then ${formatCount(sizes.large)} events`);
  // The short runs are the denominators of the linearity ratios, so each is the median of three.
  const small = medianBy([runPipeline(sizes.small), runPipeline(sizes.small), runPipeline(sizes.small)], (run) => run.pipelineMs);
  const large = runPipeline(sizes.large);
  context.progress(`fold: apply alone over pre-sealed events, ${formatCount(sizes.small)} then ${formatCount(sizes.large)} events`);
  const smallReplays = [0, 1, 2].map((index) => runReplay(sizes.small, index === 0 ? sizes.naivePrefix : 0));
  const smallReplay = medianBy(smallReplays, (run) => run.applyMs);
  const largeReplay = runReplay(sizes.large);
  context.progress(`fold: cost split over ${formatCount(sizes.small)} events`);
  const split = runCostSplit(sizes.small);

  context.progress(`fold: naive refold every ${formatCount(REFOLD_EVERY)} events over ${formatCount(sizes.naivePrefix)} events`);
  const prefix = (smallReplays[0] as ReplayRun).kept;
  const incrementalMs = median([incrementalApplyMs(prefix), incrementalApplyMs(prefix), incrementalApplyMs(prefix)]);
  const naive = naiveRefoldMs(prefix);
  const naiveLargeMs = (naive.ms / naive.applies) * naiveApplies(sizes.large);

  return {
    tables: [
      naiveTable(prefix.length, incrementalMs, naive.ms, sizes.large, naiveLargeMs, largeReplay.applyMs),
      linearityTable(small, large, smallReplay, largeReplay),
      splitTable(split),
    ],
    notes: [
      `The naive refold is quadratic, so it runs over the first ${formatCount(prefix.length)} events only; the ${formatCount(sizes.large)}-event row is extrapolated from its time per apply (${formatCount(naiveApplies(sizes.large))} applies) and compared with the measured incremental apply.`,
      'Naive and incremental are compared on the fold alone, over events sealed beforehand: sealing costs the same in both.',
      `The surface stays bounded by the compactions: at most ${large.maxSurfaceNodes} nodes over ${formatCount(large.events)} events (${formatCount(large.compactions)} compactions), ${large.finalSurfaceNodes} at the end.`,
      'The pipeline includes the synthetic generator, which reads fold.toArray() for each model/request and compaction (bounded by the surface size).',
      'The cost split does what prepareAppend does (sealDraft with the node:crypto hasher, then fold.apply) with a clock read around each call; the rows marked not in the total seal the same drafts again with the pure TypeScript SHA-256, and recompute the hashes as verify does, afterwards.',
      'Every event is canonically serialized once when sealed: the hashed envelope and the stored body are assembled from the canonical JSON of its parts, and the body is remembered for the store (canonicalEventJson).',
      `Per event in each tenth of the ${formatCount(large.events)}-event runs (a cost that grows with the log would rise): generate + prepareAppend ${tenths(large.tenthsMs, large.events)}; fold apply alone ${tenths(largeReplay.tenthsMs, largeReplay.events)}.`,
      `The ${formatCount(sizes.small)}-event figures are the median of three runs; the ${formatCount(sizes.large)}-event figures are one run.`,
    ],
    figures: {
      sizes: { ...sizes },
      replaceEvery: REPLACE_EVERY,
      refoldEvery: REFOLD_EVERY,
      naive: {
        prefixEvents: prefix.length,
        incrementalApplyMs: incrementalMs,
        naiveMs: naive.ms,
        naiveApplies: naive.applies,
        ratio: naive.ms / incrementalMs,
        estimatedNaiveMsAtLarge: naiveLargeMs,
        estimatedRatioAtLarge: naiveLargeMs / largeReplay.applyMs,
      },
      linearity: {
        small: { events: small.events, pipelineMs: small.pipelineMs, applyMs: smallReplay.applyMs },
        large: { events: large.events, pipelineMs: large.pipelineMs, applyMs: largeReplay.applyMs },
        pipelineTimeRatio: large.pipelineMs / small.pipelineMs,
        applyTimeRatio: largeReplay.applyMs / smallReplay.applyMs,
        largePipelineEventsPerSecond: perSecond(large.events, large.pipelineMs),
        largeApplyEventsPerSecond: perSecond(large.events, largeReplay.applyMs),
        largePipelineTenthsMs: [...large.tenthsMs],
        largeApplyTenthsMs: [...largeReplay.tenthsMs],
        maxSurfaceNodes: large.maxSurfaceNodes,
        finalSurfaceNodes: large.finalSurfaceNodes,
        compactions: large.compactions,
      },
      split: { ...split },
    },
  };
}

function naiveTable(
  prefixEvents: number,
  incrementalMs: number,
  naiveMs: number,
  largeEvents: number,
  naiveLargeMs: number,
  largeApplyMs: number,
) {
  return {
    title: `Incremental fold vs naive refold every ${formatCount(REFOLD_EVERY)} events (apply only, over the same pre-sealed events)`,
    columns: ['approach', 'events', 'time', 'events/s', 'time vs incremental'],
    rows: [
      [
        'incremental: one fold, each event applied once',
        formatCount(prefixEvents),
        formatMs(incrementalMs),
        formatRate(perSecond(prefixEvents, incrementalMs)),
        '1.00×',
      ],
      [
        `naive: a new fold over the whole prefix every ${formatCount(REFOLD_EVERY)}`,
        formatCount(prefixEvents),
        formatMs(naiveMs),
        formatRate(perSecond(prefixEvents, naiveMs)),
        formatRatio(naiveMs / incrementalMs),
      ],
      [
        'incremental (measured)',
        formatCount(largeEvents),
        formatMs(largeApplyMs),
        formatRate(perSecond(largeEvents, largeApplyMs)),
        '1.00×',
      ],
      [
        'naive (extrapolated, quadratic)',
        formatCount(largeEvents),
        `≈ ${formatMs(naiveLargeMs)}`,
        `≈ ${formatRate(perSecond(largeEvents, naiveLargeMs))}`,
        `≈ ${formatRatio(naiveLargeMs / largeApplyMs)}`,
      ],
    ],
  };
}

function linearityTable(small: PipelineRun, large: PipelineRun, smallReplay: ReplayRun, largeReplay: ReplayRun) {
  const row = (label: string, events: number, ms: number, baselineMs: number | undefined) => [
    label,
    formatCount(events),
    formatMs(ms),
    formatRate(perSecond(events, ms)),
    formatMicros(ms / events),
    baselineMs === undefined ? '1.00×' : formatRatio(ms / baselineMs),
  ];
  return {
    title: `Incremental fold, linearity (a compaction every ${REPLACE_EVERY} events; expect a time ratio ≈ ${large.events / small.events}×)`,
    columns: ['measurement', 'events', 'time', 'events/s', 'per event', `time vs ${formatCount(small.events)}`],
    rows: [
      row('generate + prepareAppend (seal + apply)', small.events, small.pipelineMs, undefined),
      row('generate + prepareAppend (seal + apply)', large.events, large.pipelineMs, small.pipelineMs),
      row('fold apply alone (pre-sealed events)', smallReplay.events, smallReplay.applyMs, undefined),
      row('fold apply alone (pre-sealed events)', largeReplay.events, largeReplay.applyMs, smallReplay.applyMs),
    ],
  };
}

function splitTable(split: CostSplit) {
  const totalMs = split.generateMs + split.sealMs + split.applyMs;
  const share = (ms: number) => `${((100 * ms) / totalMs).toFixed(1)}%`;
  const row = (label: string, ms: number, shown = share(ms)) => [label, formatMs(ms), formatMicros(ms / split.events), shown];
  return {
    title: `Where an append's time goes (${formatCount(split.events)} events; indented rows are parts of the row above)`,
    columns: ['component', 'time', 'per event', 'of the total'],
    rows: [
      row('generate + seal + apply', totalMs),
      row('  generate the draft (synthetic session)', split.generateMs),
      row('  sealDraft, node:crypto SHA-256 (as SessionLog seals)', split.sealMs),
      row('    node:crypto SHA-256 alone, recomputed over the same texts', split.nodeSha256Ms),
      row('  fold apply (validation + surface update)', split.applyMs),
      row('sealDraft, pure TypeScript SHA-256 (the log’s default), the same drafts again', split.sealPureMs, '(not in the total)'),
      row('verify’s recomputation: envelope canonical JSON + pure SHA-256', split.hashMs, '(not in the total)'),
      row(
        '  pure TypeScript SHA-256 alone, same texts',
        split.sha256Ms,
        `${formatRatio(split.sha256Ms / split.nodeSha256Ms)} node:crypto’s time`,
      ),
    ],
  };
}

export const benchmark: Benchmark = {
  name: 'fold',
  description: 'incremental surface fold vs naive refold; linearity 100k vs 1M events; sealing vs apply',
  run,
};
