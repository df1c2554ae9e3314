// Benchmark: `tune`'s replay speed, and how it grows with session length. Synthetic
// coding-agent sessions (no compaction recorded, so every policy has all of it to decide on) of
// 1×, 2×, 4× and 8× a base length (quick: 1× and 2×) are replayed under the defaults and the six baselines in a
// 200,000-token window. Figures: policy-calls per second (each recorded call replayed under each
// policy), sessions × policies per second, and time per call at each length — constant per call
// means linear in the length. The baseline, measured in the same run, is one pass that only
// reads the session and builds its trace (what every policy shares).
//
//   npm run bench -- tune
//   npx tsx bench/tune.bench.ts [--quick]

import type { LogEvent } from '../src/log/event.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { buildTrace, parseGrid, policyRow, TABLE_HEADER, tunePolicies, tuneSessions } from '../src/tune/index.js';
import { CodingAgentScript, runAgentSession } from './coding-agent-script.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  elapsedMs,
  formatCount,
  formatMs,
  median,
  runIfMain,
} from './support.js';
import { SealedSessionStream } from './synthetic-session.js';

const WINDOW = 200_000;
/** The base length is long enough that every length compacts: the summarizer's work is in every row. */
const FULL = { baseEvents: 2_000, factors: [1, 2, 4, 8], repeats: 1 };
const QUICK = { baseEvents: 1_500, factors: [1, 2], repeats: 1 };

async function sessionOf(events: number, seed: number): Promise<{ store: MemoryLogStore; sessionId: string; calls: number }> {
  const stream = new SealedSessionStream({ seed, replaceEvery: Number.MAX_SAFE_INTEGER });
  const list: LogEvent[] = stream.take(events);
  const store = new MemoryLogStore();
  const sessionId = `synthetic-${events}`;
  await store.append(sessionId, list, { expectedSeq: 0 });
  return { store, sessionId, calls: list.filter((event) => event.type === 'model/request').length };
}

async function traceOnly(store: MemoryLogStore, sessionId: string): Promise<number> {
  const start = clock();
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  buildTrace(sessionId, events, new SurfaceMeter(scriptAwareEstimator), { window: WINDOW });
  return elapsedMs(start);
}

/** The compaction benchmark's window: 64,000 tokens, 4,096 reserved for each answer. */
const SCRIPTED_WINDOW = { window: 64_000, reserve: 4_096 };
const SCRIPTED_GRID = ['thresholdRatio=0.6,0.7,0.8,0.9', 'retainRatio=0.05,0.16,0.3', 'headroomTokens=0'];

/**
 * The evidence on the project's own scripted session: the coding-agent script of the compaction
 * benchmark, recorded once with no compaction in a window it never fills, then replayed by tune
 * in the compaction benchmark's window under the grid and the baselines. The script's answers do
 * not depend on what it is sent, so the recorded outputs are what every policy would have got.
 */
async function scriptedEvidence(context: BenchContext, turns: number) {
  context.progress(`tune: recording ${turns} turns of the scripted coding agent`);
  const recorded = await runAgentSession({
    script: new CodingAgentScript(),
    turns,
    limits: { contextWindow: 10_000_000, defaultMaxOutputTokens: SCRIPTED_WINDOW.reserve },
    capabilities: [],
  });
  context.progress('tune: replaying it under the grid and the baselines');
  const start = clock();
  const report = await tuneSessions([{ store: recorded.store as MemoryLogStore, sessionId: recorded.sessionId }], {
    ...SCRIPTED_WINDOW,
    grid: parseGrid(SCRIPTED_GRID),
  });
  return { report, ms: elapsedMs(start), calls: recorded.modelCalls };
}

async function run(context: BenchContext): Promise<BenchReport> {
  const { baseEvents, factors, repeats } = context.quick ? QUICK : FULL;
  const policies = tunePolicies();
  const rows: string[][] = [];
  const figures: Array<Record<string, number>> = [];
  let firstPerCall: number | undefined;
  for (const factor of factors) {
    const events = baseEvents * factor;
    context.progress(`tune: a session of ${formatCount(events)} events`);
    const { store, sessionId, calls } = await sessionOf(events, factor);
    const traceMs: number[] = [];
    const tuneMs: number[] = [];
    let compactions = 0;
    for (let repeat = 0; repeat < repeats; repeat++) {
      traceMs.push(await traceOnly(store, sessionId));
      const start = clock();
      const report = await tuneSessions([{ store, sessionId }], { window: WINDOW, policies });
      tuneMs.push(elapsedMs(start));
      compactions = report.policies.reduce((sum, policy) => sum + policy.compactions, 0);
    }
    const trace = median(traceMs);
    const tune = median(tuneMs);
    const perCall = tune / calls;
    firstPerCall ??= perCall;
    const policyCalls = (calls * policies.length) / (tune / 1000);
    rows.push([
      formatCount(events),
      formatCount(calls),
      formatMs(trace),
      formatMs(tune),
      `${(tune / trace).toFixed(1)}×`,
      `${formatCount(Math.round(policyCalls))}/s`,
      `${((policies.length * 1000) / tune).toFixed(2)}/s`,
      `${(perCall * 1000).toFixed(1)} µs`,
      `${(perCall / firstPerCall).toFixed(2)}×`,
      formatCount(compactions),
    ]);
    figures.push({ events, calls, traceMs: trace, tuneMs: tune, policyCallsPerSecond: policyCalls, msPerCall: perCall, compactions });
  }
  const turns = context.quick ? 30 : 120;
  const evidence = await scriptedEvidence(context, turns);
  const baseline = evidence.report.policies.find((policy) => policy.policy === 'drop-oldest' && policy.feasible)?.tokensSent;
  const recommendation = evidence.report.recommendation;
  return {
    tables: [
      {
        title: `tune: one session replayed under ${policies.length} policies (defaults and six baselines), window ${formatCount(WINDOW)}; median of ${repeats}`,
        columns: [
          'events',
          'calls',
          'read + trace',
          'tune',
          '÷ read + trace',
          'policy-calls',
          'sessions × policies',
          'per call',
          'per call ÷ 1×',
          'compactions (all policies)',
        ],
        rows,
      },
      {
        title: `tune on the scripted coding-agent session (${turns} turns, ${formatCount(evidence.calls)} calls), window ${formatCount(SCRIPTED_WINDOW.window)}, reserve ${formatCount(SCRIPTED_WINDOW.reserve)}: grid ${SCRIPTED_GRID.join(' ')} and the baselines (${formatMs(evidence.ms)})`,
        columns: TABLE_HEADER,
        rows: evidence.report.policies.map((policy) => policyRow(policy, baseline)),
      },
    ],
    notes: [
      recommendation === null
        ? 'scripted session: no recommendation'
        : `scripted session: recommended ${recommendation.policy}: ${recommendation.reason}`,
      'each session is generated once (long-tailed message and tool-result sizes), stored in memory, and replayed by tuneSessions as `shadowlog tune` does; the extractive summarizer writes every summary',
      '"per call ÷ 1×" near 1.00 at 2×, 4× and 8× the length means the replay time grows linearly with the session',
      'the synthetic sessions carry no provider usage, so the meter-error measure (which prices each recorded surface once) is not part of the time',
    ],
    figures: {
      window: WINDOW,
      policies: policies.length,
      lengths: figures,
      scripted: {
        turns,
        calls: evidence.calls,
        ms: evidence.ms,
        recommendation: recommendation?.policy ?? null,
        policies: evidence.report.policies.map((policy) => ({
          policy: policy.policy,
          feasible: policy.feasible,
          tokensSent: policy.tokensSent,
          peakTokens: policy.peakTokens,
          compactions: policy.compactions,
          prunes: policy.prunes,
          cachePrefixShare: policy.cachePrefixShare,
          costUsd: policy.costUsd,
          retention: policy.retention.share,
        })),
      },
    },
  };
}

export const benchmark: Benchmark = {
  name: 'tune',
  description: 'tune: policy-calls per second over synthetic sessions of growing length, and growth with length (linear)',
  run,
};

await runIfMain(import.meta.url, benchmark);
