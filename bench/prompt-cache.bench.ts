// Benchmark: how much of each request is an unchanged prefix of the one before it, which is what
// a provider's prompt cache can reuse. The same scripted coding-agent session (a 16,000-token
// window, then a 64,000-token one) runs with the tool-result pruner only when compaction's
// trigger qualifies (as in production: the pruner handed to createCompaction, which prunes what
// the model was sent first), the same pruning every long result at the trigger (as it did
// before), and with the pruner run before every step by a small capability; compaction alone,
// with no pruner, is a reference.
//
//   npm run bench -- prompt-cache
//   npx tsx bench/prompt-cache.bench.ts [--quick]

import { createCompaction } from '../src/compaction/compaction-capability.js';
import { COMPACTION_PRUNE, COMPACTION_SUMMARY } from '../src/compaction/event-types.js';
import { createToolResultPruner, type PruneResult, ToolResultPruner } from '../src/compaction/tool-result-pruner.js';
import { canonicalJson } from '../src/log/canonical-json.js';
import { RequestSurfaceDecoder } from '../src/log/request-surface.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import type { ModelLimits } from '../src/providers/language-model.js';
import type { Capability, StepContext } from '../src/spine/capability.js';
import type { LogStore } from '../src/store/log-store.js';
import type { SessionLog } from '../src/store/session-log.js';
import { CodingAgentScript, runAgentSession, SMALL_WINDOW } from './coding-agent-script.js';
import { PrefixRecorder } from './prefix-recorder.js';
import { type BenchContext, type Benchmark, type BenchReport, formatCount, formatMs, median, runIfMain } from './support.js';

interface WindowRun {
  readonly limits: ModelLimits;
  readonly turns: number;
}

// The small window compacts every few turns; the larger one lets the prefix live longer between compactions.
const LARGER_WINDOW: ModelLimits = { contextWindow: 64_000, defaultMaxOutputTokens: 1_000 };
const FULL: readonly WindowRun[] = [
  { limits: SMALL_WINDOW, turns: 1_000 },
  { limits: LARGER_WINDOW, turns: 500 },
];
const QUICK: readonly WindowRun[] = [
  { limits: SMALL_WINDOW, turns: 150 },
  { limits: LARGER_WINDOW, turns: 80 },
];
const COMPACTION_CONFIG = { headroomTokens: 0, summarizer: { kind: 'extractive' as const } };

/** Prunes before every step, whatever the surface measures: what SPEC §9 says not to do. */
class EveryStepPruner implements Capability {
  readonly name = 'bench-every-step-pruner';
  private readonly meter = new SurfaceMeter(scriptAwareEstimator);

  constructor(private readonly pruner: ToolResultPruner) {}

  async beforeStep(context: StepContext): Promise<void> {
    await this.pruner.prune(context.log, this.meter);
  }
}

/**
 * Prunes every long result when handed the trigger's fit, the model's sent ones or not: the
 * pruner before it preferred sent results, kept for comparison.
 */
class EveryLongResultPruner extends ToolResultPruner {
  override prune(log: SessionLog, meter: SurfaceMeter): Promise<PruneResult> {
    return super.prune(log, meter);
  }
}

type Variant = 'on-trigger' | 'on-trigger-every-long-result' | 'every-step' | 'no-pruner';

const VARIANTS: ReadonlyArray<{ readonly variant: Variant; readonly label: string }> = [
  { variant: 'on-trigger', label: 'pruner when the trigger qualifies (production)' },
  { variant: 'on-trigger-every-long-result', label: 'pruner when the trigger qualifies, every long result, sent or not' },
  { variant: 'every-step', label: 'pruner before every step' },
  { variant: 'no-pruner', label: 'reference: compaction alone, no pruner' },
];

function capabilitiesFor(variant: Variant): Capability[] {
  switch (variant) {
    case 'on-trigger':
      return [createCompaction({ config: COMPACTION_CONFIG, pruner: createToolResultPruner() })];
    case 'on-trigger-every-long-result':
      return [createCompaction({ config: COMPACTION_CONFIG, pruner: new EveryLongResultPruner() })];
    case 'every-step':
      // Compaction keeps its pruner too; by the time it runs, the every-step pruner has left nothing to prune.
      return [
        new EveryStepPruner(createToolResultPruner()),
        createCompaction({ config: COMPACTION_CONFIG, pruner: createToolResultPruner() }),
      ];
    case 'no-pruner':
      return [createCompaction({ config: COMPACTION_CONFIG })];
  }
}

interface LogFigures {
  readonly prunes: number;
  readonly compactions: number;
  /** Pruned tool results that no request ever carried in full: the model only saw their head and tail. */
  readonly prunedBeforeSent: number;
}

async function readLogFigures(store: LogStore, sessionId: string): Promise<LogFigures> {
  const sent = new Set<number>();
  const pruned: number[] = [];
  let compactions = 0;
  const markedUnseen = new Set<number>();
  const requests = new RequestSurfaceDecoder();
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      if (event.type === 'model/request') for (const seq of requests.decode(event)) sent.add(seq);
      else if (event.type === COMPACTION_PRUNE) {
        const seq = (event.data.shadowedSeqs as number[])[0] as number;
        pruned.push(seq);
        if (event.data.unseen === true) markedUnseen.add(seq);
      } else if (event.type === COMPACTION_SUMMARY) compactions++;
    }
  }
  const beforeSent = pruned.filter((seq) => !sent.has(seq));
  // The record must say which results were cut before their first send: the same set as the requests show.
  if (beforeSent.length !== markedUnseen.size || beforeSent.some((seq) => !markedUnseen.has(seq)))
    throw new Error(
      `prompt-cache: ${beforeSent.length} results were pruned before any request carried them, but ${markedUnseen.size} compaction/prune events say unseen`,
    );
  return { prunes: pruned.length, compactions, prunedBeforeSent: beforeSent.length };
}

interface VariantResult {
  readonly variant: Variant;
  readonly label: string;
  readonly calls: number;
  readonly meanShare: number;
  readonly medianShare: number;
  /** Σ unchanged prefix ÷ Σ request length: the share of all request characters a prefix cache could reuse. */
  readonly weightedShare: number;
  readonly breaks: number;
  readonly log: LogFigures;
  readonly wallMs: number;
}

async function runVariant(script: CodingAgentScript, window: WindowRun, variant: Variant, label: string): Promise<VariantResult> {
  const recorder = new PrefixRecorder();
  const run = await runAgentSession({
    script,
    turns: window.turns,
    limits: window.limits,
    capabilities: capabilitiesFor(variant),
    onRequest: (call) => recorder.record(canonicalJson(call.messages)),
  });
  const shares = recorder.shares;
  return {
    variant,
    label,
    calls: run.modelCalls,
    meanShare: recorder.meanShare,
    medianShare: median(shares),
    weightedShare: recorder.prefixChars / recorder.totalChars,
    breaks: recorder.breaks,
    log: await readLogFigures(run.store, run.sessionId),
    wallMs: run.wallMs,
  };
}

const percent = (share: number) => `${(100 * share).toFixed(1)}%`;

async function run(context: BenchContext): Promise<BenchReport> {
  const windows = context.quick ? QUICK : FULL;
  const script = new CodingAgentScript();
  const byWindow: VariantResult[][] = [];
  for (const window of windows) {
    const results: VariantResult[] = [];
    for (const { variant, label } of VARIANTS) {
      context.progress(`prompt-cache: window ${formatCount(window.limits.contextWindow)}, ${label}, ${formatCount(window.turns)} turns`);
      results.push(await runVariant(script, window, variant, label));
    }
    byWindow.push(results);
  }
  return {
    tables: windows.map((window, index) => table(window, byWindow[index] as VariantResult[])),
    notes: [
      'Prefix share: the longest common prefix, in characters, of the canonical JSON of two consecutive requests’ message lists, divided by the length of the later one; mean and median over every call but the first. Weighted: the sum of the prefixes over the sum of the lengths.',
      'A prefix break is a call whose request does not begin with the whole previous request: something already sent changed (a prune or a compaction), so a prompt cache misses from that point on.',
      '“Pruned before sent”: tool results that were pruned before any request carried them whole, so the model only ever saw their head and tail (checked against the compaction/prune events marked unseen: the same results). Share: of all prunes.',
      'The production pruner prunes the results the model has been sent and cuts one it has not seen only while the surface is still over the threshold (largest first); the every-step pruner prunes every long result as soon as it lands.',
      'Every row mounts compaction (headroom 0, extractive summarizer, 1,000 tokens reserved for the answer); the pruner is createToolResultPruner() at its defaults. The script is the coding agent of the compaction-session benchmark, the same turns in every row.',
      ...windows.map((window, index) => {
        const results = byWindow[index] as VariantResult[];
        const baseline = results[0] as VariantResult;
        return `Window ${formatCount(window.limits.contextWindow)}: mean prefix share relative to production: ${results.map((result) => `${result.variant} ${(result.meanShare / baseline.meanShare).toFixed(3)}×`).join(', ')}.`;
      }),
    ],
    figures: {
      windows: windows.map((window, index) => ({
        contextWindow: window.limits.contextWindow,
        reserve: window.limits.defaultMaxOutputTokens,
        turns: window.turns,
        variants: (byWindow[index] as VariantResult[]).map((result) => ({
          variant: result.variant,
          calls: result.calls,
          meanShare: result.meanShare,
          medianShare: result.medianShare,
          weightedShare: result.weightedShare,
          breaks: result.breaks,
          prunes: result.log.prunes,
          prunedBeforeSent: result.log.prunedBeforeSent,
          compactions: result.log.compactions,
          wallMs: result.wallMs,
        })),
      })),
    },
  };
}

function table(window: WindowRun, results: readonly VariantResult[]) {
  return {
    title: `Unchanged prefix of each request relative to the previous one: window ${formatCount(window.limits.contextWindow)}, ${formatCount(window.turns)} turns, the same script in every row`,
    columns: [
      'pruning',
      'model calls',
      'mean prefix share',
      'median',
      'weighted',
      'prefix breaks',
      'prunes',
      'pruned before sent',
      'share of prunes',
      'compactions',
      'wall time',
    ],
    rows: results.map((result) => [
      result.label,
      formatCount(result.calls),
      percent(result.meanShare),
      percent(result.medianShare),
      percent(result.weightedShare),
      formatCount(result.breaks),
      formatCount(result.log.prunes),
      formatCount(result.log.prunedBeforeSent),
      result.log.prunes === 0 ? '–' : percent(result.log.prunedBeforeSent / result.log.prunes),
      formatCount(result.log.compactions),
      formatMs(result.wallMs),
    ]),
  };
}

export const benchmark: Benchmark = {
  name: 'prompt-cache',
  description: 'unchanged request prefix between consecutive calls: pruner on every step vs only when compaction triggers',
  run,
};

// Run alone: `npx tsx bench/prompt-cache.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
