// Benchmark: a long scripted coding-agent session on a small window (16,000 tokens, headroom
// 0) with compaction mounted (extractive summarizer, tool-result pruner) against the same
// script with no capability: the tokens sent to the model over every call, compactions and
// prunes, what the summarizer read, and wall time. Without compaction every request carries
// the whole history, so that run is quadratic: it is measured over its first turns, and its
// totals for the whole script are computed exactly from the same script (checked call by call
// against the measured turns); its wall time for the whole script is extrapolated.
//
//   npm run bench -- compaction-session
//   npx tsx bench/compaction-session.bench.ts [--quick]

import { createCompaction } from '../src/compaction/compaction-capability.js';
import { COMPACTION_END, COMPACTION_OVER_THRESHOLD, COMPACTION_PRUNE, COMPACTION_SUMMARY } from '../src/compaction/event-types.js';
import { createExtractiveSummarizer, type Summarizer } from '../src/compaction/summarizer.js';
import { createToolResultPruner } from '../src/compaction/tool-result-pruner.js';
import { blockPlaceholder } from '../src/log/content-block.js';
import type { ContentBlock } from '../src/log/event.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import type { Capability, StepContext } from '../src/spine/capability.js';
import type { LogStore } from '../src/store/log-store.js';
import { type AgentRun, CodingAgentScript, runAgentSession, SMALL_WINDOW } from './coding-agent-script.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  elapsedMs,
  formatCount,
  formatMs,
  formatRatio,
  runIfMain,
} from './support.js';
import { type CallFigures, checkComputed, computeCallsWithout, extrapolateWallMs } from './uncompacted-requests.js';

interface Sizes {
  readonly turns: number;
  /** Turns of the run without compaction that are really run (it is quadratic). */
  readonly measuredTurnsWithout: number;
}

const FULL: Sizes = { turns: 2_000, measuredTurnsWithout: 200 };
const QUICK: Sizes = { turns: 200, measuredTurnsWithout: 40 };
const COMPACTION_CONFIG = { headroomTokens: 0, summarizer: { kind: 'extractive' } };

/** Measures the surface with the script-aware meter before each call; mounted last, so it sees what is rendered. */
class RequestMeterProbe implements Capability {
  readonly name = 'bench-request-meter';
  readonly meter = new SurfaceMeter(scriptAwareEstimator);
  readonly counts: number[] = [];
  readonly turns: number[] = [];

  async beforeStep(context: StepContext): Promise<void> {
    this.counts.push(this.meter.measure(context.log.fold.nodes()).estimate);
    this.turns.push(context.turn);
  }
}

interface SummarizerFigures {
  calls: number;
  /** Tokens of the text handed to it (script-aware), counted as createExtractiveSummarizer counts them. */
  inputTokens: number;
  ms: number;
}

/** The extractive summarizer, counting what it is given: it makes no model call, so what it reads is its whole cost in tokens. */
function countingExtractiveSummarizer(figures: SummarizerFigures): Summarizer {
  const countTokens = (text: string) => scriptAwareEstimator.countText(text);
  const inner = createExtractiveSummarizer(countTokens);
  return {
    async summarize(request) {
      figures.calls++;
      figures.inputTokens += request.messages.reduce((sum, message) => sum + countTokens(textOf(message.content)), 0);
      const start = clock();
      try {
        return await inner.summarize(request);
      } finally {
        figures.ms += elapsedMs(start);
      }
    },
  };
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => blockPlaceholder(block)).join('\n');
}

interface LogFigures {
  readonly events: number;
  readonly usageByCall: number[];
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly prunes: number;
  readonly overThreshold: number;
  readonly shadowedTokens: number;
  readonly summaryTokens: number;
}

async function readLogFigures(store: LogStore, sessionId: string): Promise<LogFigures> {
  const figures = {
    events: 0,
    usageByCall: [] as number[],
    compactions: 0,
    failedCompactions: 0,
    prunes: 0,
    overThreshold: 0,
    shadowedTokens: 0,
    summaryTokens: 0,
  };
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      figures.events++;
      const data = event.data;
      if (event.type === 'assistant/message') figures.usageByCall.push((data.usage as { inputTokens: number }).inputTokens);
      else if (event.type === COMPACTION_SUMMARY) {
        figures.compactions++;
        figures.shadowedTokens += data.shadowedTokenCount as number;
        figures.summaryTokens += data.summaryTokens as number;
      } else if (event.type === COMPACTION_END && data.error !== undefined) figures.failedCompactions++;
      else if (event.type === COMPACTION_PRUNE) figures.prunes++;
      else if (event.type === COMPACTION_OVER_THRESHOLD) figures.overThreshold++;
    }
  }
  return figures;
}

interface RunResult {
  readonly run: AgentRun;
  readonly log: LogFigures;
  readonly calls: readonly CallFigures[];
  readonly summarizer: SummarizerFigures;
  /** The threshold and retained tail compaction resolved for the window (undefined without compaction). */
  readonly policy: { readonly threshold: number; readonly retain: number } | undefined;
}

async function runSession(
  script: CodingAgentScript,
  turns: number,
  compaction: boolean,
  progress?: (message: string) => void,
): Promise<RunResult> {
  const summarizer: SummarizerFigures = { calls: 0, inputTokens: 0, ms: 0 };
  const probe = new RequestMeterProbe();
  const capability = compaction
    ? createCompaction({
        config: COMPACTION_CONFIG,
        summarizer: countingExtractiveSummarizer(summarizer),
        pruner: createToolResultPruner(),
      })
    : undefined;
  const capabilities: Capability[] = capability === undefined ? [probe] : [capability, probe];
  const label = compaction ? 'with compaction' : 'without compaction';
  const every = Math.max(1, Math.round(turns / 4));
  const run = await runAgentSession({
    script,
    turns,
    capabilities,
    onTurn: (turn) => {
      if (turn % every === 0 && turn < turns)
        progress?.(`compaction-session: ${label}, turn ${formatCount(turn)} of ${formatCount(turns)}`);
    },
  });
  const log = await readLogFigures(run.store, run.sessionId);
  if (log.usageByCall.length !== probe.counts.length)
    throw new Error(`compaction-session: ${log.usageByCall.length} assistant messages but ${probe.counts.length} model calls`);
  const calls = log.usageByCall.map((usageTokens, index) => ({
    turn: probe.turns[index] as number,
    usageTokens,
    meterTokens: probe.counts[index] as number,
  }));
  const policy = capability === undefined ? undefined : { threshold: capability.policy.threshold, retain: capability.policy.retain };
  return { run, log, calls, summarizer, policy };
}

interface Totals {
  readonly calls: number;
  readonly usageTokens: number;
  readonly meterTokens: number;
  readonly maxUsageTokens: number;
  readonly maxMeterTokens: number;
}

function totals(calls: readonly CallFigures[], throughTurn = Number.POSITIVE_INFINITY): Totals {
  let usageTokens = 0;
  let meterTokens = 0;
  let maxUsageTokens = 0;
  let maxMeterTokens = 0;
  let count = 0;
  for (const call of calls) {
    if (call.turn > throughTurn) break;
    count++;
    usageTokens += call.usageTokens;
    meterTokens += call.meterTokens;
    maxUsageTokens = Math.max(maxUsageTokens, call.usageTokens);
    maxMeterTokens = Math.max(maxMeterTokens, call.meterTokens);
  }
  return { calls: count, usageTokens, meterTokens, maxUsageTokens, maxMeterTokens };
}

function sumMs(values: readonly number[], count = values.length): number {
  let total = 0;
  for (let index = 0; index < count; index++) total += values[index] as number;
  return total;
}

/** The mean time per turn in each tenth of the run: flat when the cost per turn is bounded. */
function tenthsMs(turnMs: readonly number[]): number[] {
  return Array.from({ length: 10 }, (_, tenth) => {
    const from = Math.floor((tenth * turnMs.length) / 10);
    const to = Math.floor(((tenth + 1) * turnMs.length) / 10);
    return to > from ? sumMs(turnMs.slice(from, to)) / (to - from) : 0;
  });
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const script = new CodingAgentScript();
  context.progress(`compaction-session: warm-up, ${Math.min(20, sizes.measuredTurnsWithout)} turns each way`);
  await runSession(script, Math.min(20, sizes.measuredTurnsWithout), true);
  await runSession(script, Math.min(20, sizes.measuredTurnsWithout), false);

  context.progress(`compaction-session: ${formatCount(sizes.turns)} turns with compaction`);
  const withCompaction = await runSession(script, sizes.turns, true, context.progress);
  context.progress(`compaction-session: the first ${formatCount(sizes.measuredTurnsWithout)} turns without compaction (quadratic)`);
  const without = await runSession(script, sizes.measuredTurnsWithout, false, context.progress);
  context.progress(`compaction-session: computing the ${formatCount(sizes.turns)}-turn requests without compaction`);
  const computed = computeCallsWithout(script, sizes.turns);
  checkComputed(without.calls, computed);

  const prefix = sizes.measuredTurnsWithout;
  const withAll = totals(withCompaction.calls);
  const withPrefix = totals(withCompaction.calls, prefix);
  const withoutPrefix = totals(without.calls);
  const withoutAll = totals(computed);
  const withPrefixMs = sumMs(withCompaction.run.turnMs, prefix);
  const extrapolated = extrapolateWallMs(without.run.turnMs, computed, sizes.turns);
  const { log, summarizer } = withCompaction;
  const policy = withCompaction.policy ?? { threshold: Number.NaN, retain: Number.NaN };

  const tokensTable = {
    title: `Tokens sent to the model, summed over every call (window ${formatCount(SMALL_WINDOW.contextWindow)}, threshold ${formatCount(policy.threshold)})`,
    columns: [
      'run',
      'turns',
      'model calls',
      'tokens sent (reported)',
      'tokens sent (meter)',
      'largest request (reported)',
      'largest (meter)',
      'with ÷ without',
    ],
    rows: [
      row('with compaction', sizes.turns, withAll, smallRatio(withAll.usageTokens / withoutAll.usageTokens)),
      row('without (computed exactly)', sizes.turns, withoutAll, '1.00×'),
      row('with compaction, its first turns', prefix, withPrefix, smallRatio(withPrefix.usageTokens / withoutPrefix.usageTokens)),
      row('without (measured)', prefix, withoutPrefix, '1.00×'),
    ],
  };
  const compactionTable = {
    title: `What compaction did over ${formatCount(sizes.turns)} turns`,
    columns: ['figure', 'value'],
    rows: [
      ['compactions (compaction/summary)', formatCount(log.compactions)],
      ['failed compactions (compaction/end with an error)', formatCount(log.failedCompactions)],
      ['prunes (compaction/prune)', formatCount(log.prunes)],
      ['steps still over the threshold after compacting', formatCount(log.overThreshold)],
      ['summarizer calls (extractive: no model call)', formatCount(summarizer.calls)],
      ['summarizer input tokens read (script-aware)', formatCount(summarizer.inputTokens)],
      ['summaries written, tokens (meter)', formatCount(log.summaryTokens)],
      ['tokens shadowed by summaries (meter)', formatCount(log.shadowedTokens)],
      ['summarizer time', formatMs(summarizer.ms)],
      ['events in the log', formatCount(log.events)],
    ],
  };
  const timeTable = {
    title: 'Wall time (scripted model: no network, no model latency)',
    columns: ['run', 'turns', 'wall time', 'per turn', 'vs without, same turns'],
    rows: [
      [
        'with compaction',
        formatCount(sizes.turns),
        formatMs(withCompaction.run.wallMs),
        formatMs(withCompaction.run.wallMs / sizes.turns),
        `≈ ${smallRatio(withCompaction.run.wallMs / extrapolated.ms)}`,
      ],
      [
        'without (extrapolated)',
        formatCount(sizes.turns),
        `≈ ${formatMs(extrapolated.ms)}${extrapolated.ms >= 120_000 ? ` (${(extrapolated.ms / 60_000).toFixed(0)} min)` : ''}`,
        `≈ ${formatMs(extrapolated.ms / sizes.turns)}`,
        '1.00×',
      ],
      [
        'with compaction, its first turns',
        formatCount(prefix),
        formatMs(withPrefixMs),
        formatMs(withPrefixMs / prefix),
        formatRatio(withPrefixMs / sumMs(without.run.turnMs)),
      ],
      ['without (measured)', formatCount(prefix), formatMs(without.run.wallMs), formatMs(without.run.wallMs / prefix), '1.00×'],
    ],
  };
  const withTenths = tenthsMs(withCompaction.run.turnMs);
  const withoutTenths = tenthsMs(without.run.turnMs);
  return {
    tables: [tokensTable, compactionTable, timeTable],
    notes: [
      'The script is a coding agent: each turn a request, 1–3 tool calls (one per step) with results of varied sizes (about 1 in 8 is 12k–48k characters), and an answer; seeded, so both runs get the same turns.',
      'Reported tokens: the input tokens the scripted model reports, ceil(characters of the canonical JSON of the message list / 4). Meter tokens: the script-aware meter’s price of the surface just before each call (a probe capability mounted after compaction). Neither counts the tool definitions.',
      `Compaction: createCompaction({headroomTokens: 0, extractive summarizer}) with createToolResultPruner() at its defaults; reserve ${formatCount(SMALL_WINDOW.defaultMaxOutputTokens)}, so threshold ${formatCount(policy.threshold)} and a retained tail of ${formatCount(policy.retain)} tokens.`,
      'The extractive summarizer makes no model call: its token cost is what it reads (the shadowed messages’ text, priced as createExtractiveSummarizer prices it), not tokens sent to a model; those are not in the tokens-sent totals.',
      `Without compaction the surface only grows, so the run is quadratic; only its first ${formatCount(prefix)} turns are run. Its ${formatCount(sizes.turns)}-turn tokens are computed from the script with the spine’s renderSurface and the same meter, checked call by call (all ${formatCount(withoutPrefix.calls)} calls equal) against the measured turns. Its wall time is extrapolated from a least-squares fit of turn time = ${extrapolated.a.toFixed(2)} ms + ${(extrapolated.b * 1e6).toFixed(1)} ms per million request tokens, over the measured turns.`,
      `Mean time per turn in each tenth of the run with compaction (flat if bounded): ${withTenths.map(formatMs).join(', ')}; without, over its ${formatCount(prefix)} turns: ${withoutTenths.map(formatMs).join(', ')}.`,
    ],
    figures: {
      sizes: { ...sizes },
      window: { ...SMALL_WINDOW },
      policy: { ...policy },
      withCompaction: {
        ...withAll,
        wallMs: withCompaction.run.wallMs,
        tenthsMsPerTurn: withTenths,
        compactions: log.compactions,
        failedCompactions: log.failedCompactions,
        prunes: log.prunes,
        overThreshold: log.overThreshold,
        events: log.events,
        summarizer: { ...summarizer, summaryTokens: log.summaryTokens, shadowedTokens: log.shadowedTokens },
        firstTurns: { ...withPrefix, wallMs: withPrefixMs },
      },
      without: {
        computed: { ...withoutAll, extrapolatedWallMs: extrapolated.ms, fit: { msPerTurn: extrapolated.a, msPerToken: extrapolated.b } },
        measured: { ...withoutPrefix, turns: prefix, wallMs: without.run.wallMs, tenthsMsPerTurn: withoutTenths },
      },
      ratios: {
        tokensSentReported: withAll.usageTokens / withoutAll.usageTokens,
        tokensSentMeter: withAll.meterTokens / withoutAll.meterTokens,
        firstTurnsTokensSentReported: withPrefix.usageTokens / withoutPrefix.usageTokens,
        firstTurnsWallTime: withPrefixMs / sumMs(without.run.turnMs),
        wallTimeVsExtrapolated: withCompaction.run.wallMs / extrapolated.ms,
      },
    },
  };
}

/** A ratio far below 1 keeps two significant digits, with its inverse. */
function smallRatio(value: number): string {
  return value >= 0.1 ? formatRatio(value) : `${value.toPrecision(2)}× (1/${formatCount(Math.round(1 / value))})`;
}

function row(label: string, turns: number, figures: Totals, ratio: string): string[] {
  return [
    label,
    formatCount(turns),
    formatCount(figures.calls),
    formatCount(figures.usageTokens),
    formatCount(figures.meterTokens),
    formatCount(figures.maxUsageTokens),
    formatCount(figures.maxMeterTokens),
    ratio,
  ];
}

export const benchmark: Benchmark = {
  name: 'compaction-session',
  description: '2,000 scripted coding-agent turns on a 16k window with compaction and the pruner vs none: tokens sent, compactions, time',
  run,
};

// Run alone: `npx tsx bench/compaction-session.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
