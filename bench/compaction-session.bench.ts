// Benchmark: compaction policies compared on the same scripted coding-agent session and the
// same window. The scripted model keeps its window like a server (it refuses a request whose
// input and reserved answer exceed it), so a policy that lets a request overflow is seen to.
// Rows: shadowlog's policy (its defaults resolved for the window), the same without the
// pruner, dropping the oldest turns to fit, pi's policy, Claude Code's observed policy, and no
// compaction, which is infeasible from the turn where its request no longer fits. Every
// compaction is summarized by the same extractive summarizer, so what differs is the cut.
//
//   npm run bench -- compaction-session
//   npx tsx bench/compaction-session.bench.ts [--quick]

import { createCompaction } from '../src/compaction/compaction-capability.js';
import { COMPACTION_END, COMPACTION_OVER_THRESHOLD, COMPACTION_PRUNE, COMPACTION_SUMMARY } from '../src/compaction/event-types.js';
import { type PeerPlan, type PolicyWindow, peerPolicy } from '../src/compaction/peer-policies.js';
import { COMPACTION_DEFAULTS, type CompactionConfig, parseCompactionConfig, resolvePolicy } from '../src/compaction/policy.js';
import { createExtractiveSummarizer, type Summarizer } from '../src/compaction/summarizer.js';
import { createToolResultPruner } from '../src/compaction/tool-result-pruner.js';
import { canonicalJson } from '../src/log/canonical-json.js';
import { blockPlaceholder } from '../src/log/content-block.js';
import type { ContentBlock, JsonObject } from '../src/log/event.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import type { ModelLimits } from '../src/providers/language-model.js';
import { countScriptedRequest } from '../src/providers/scripted-window.js';
import type { Capability } from '../src/spine/capability.js';
import type { LogStore } from '../src/store/log-store.js';
import { CodingAgent, CodingAgentScript, type RunFailure, runAgentSession } from './coding-agent-script.js';
import { DropOldestTurns } from './drop-oldest-turns.js';
import { PrefixRecorder } from './prefix-recorder.js';
import { type BenchContext, type Benchmark, type BenchReport, clock, elapsedMs, formatCount, formatMs, runIfMain } from './support.js';

/** A window every policy here can work in (pi reserves 16,384 below it and keeps 20,000). */
const LIMITS: ModelLimits = { contextWindow: 64_000, defaultMaxOutputTokens: 4_096 };
const WINDOW: PolicyWindow = { contextWindow: LIMITS.contextWindow, reserve: LIMITS.defaultMaxOutputTokens };
const FULL = { turns: 1_000 };
const QUICK = { turns: 120 };

/**
 * shadowlog's defaults for this window. The default headroom (65,536) is larger than the whole
 * window, so it leaves no pressure budget and the configuration is refused; the headroom here
 * is the largest at which the ratio still decides, W − reserve − W × 0.8. Any headroom from 0 to
 * it gives the same threshold (W × 0.8), as the defaults do on windows past their crossover.
 */
function shadowlogConfig(window: PolicyWindow): CompactionConfig {
  const ratioTerm = Math.floor(window.contextWindow * COMPACTION_DEFAULTS.thresholdRatio);
  return { headroomTokens: Math.max(0, window.contextWindow - window.reserve - ratioTerm) };
}

interface PolicyCase {
  readonly label: string;
  readonly plan: PeerPlan;
  readonly pruner: boolean;
  /** The policy's trigger and tail, as the table states them. */
  readonly trigger: string;
  readonly tail: string;
}

function shadowlogPlan(): PeerPlan {
  const config = shadowlogConfig(WINDOW);
  return { kind: 'compaction', config, resolved: resolvePolicy(parseCompactionConfig(config), WINDOW) };
}

function peerPlan(name: string): PeerPlan {
  const policy = peerPolicy(name);
  if (policy === undefined) throw new Error(`compaction-session: no peer policy ${name}`);
  return policy.plan(WINDOW);
}

function cases(): PolicyCase[] {
  const compaction = (label: string, plan: PeerPlan, pruner: boolean): PolicyCase => {
    if (plan.kind !== 'compaction') throw new Error(`compaction-session: ${label} is not a compaction plan`);
    const { threshold, retain } = plan.resolved;
    return { label, plan, pruner, trigger: `${formatCount(threshold)} (${share(threshold)})`, tail: formatCount(retain) };
  };
  return [
    compaction('shadowlog (defaults for the window, pruner)', shadowlogPlan(), true),
    compaction('shadowlog, no pruner', shadowlogPlan(), false),
    {
      label: 'drop the oldest turns to fit',
      plan: peerPlan('drop-oldest'),
      pruner: false,
      trigger: 'over W − reserve',
      tail: 'newest turns that fit',
    },
    compaction('pi', peerPlan('pi'), false),
    compaction('Claude Code (observed)', peerPlan('claude-code'), false),
    { label: 'no compaction', plan: peerPlan('none'), pruner: false, trigger: '–', tail: 'all' },
  ];
}

interface SummarizerFigures {
  calls: number;
  /** Tokens of the text handed to it (script-aware): an extractive summarizer reads, a model would be sent, this much. */
  inputTokens: number;
  /** Tokens of the summaries it wrote (script-aware). */
  outputTokens: number;
  ms: number;
}

/** The extractive summarizer, counting what it reads and writes. */
function countingExtractiveSummarizer(figures: SummarizerFigures): Summarizer {
  const countTokens = (text: string) => scriptAwareEstimator.countText(text);
  const inner = createExtractiveSummarizer(countTokens);
  return {
    async summarize(request) {
      figures.calls++;
      figures.inputTokens += request.messages.reduce((sum, message) => sum + countTokens(textOf(message.content)), 0);
      const start = clock();
      try {
        const result = await inner.summarize(request);
        figures.outputTokens += countTokens(result.text);
        return result;
      } finally {
        figures.ms += elapsedMs(start);
      }
    },
  };
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => blockPlaceholder(block)).join('\n');
}

/** What a run's log says. */
interface LogFigures {
  /** The input tokens of each answered call, as the scripted model counted and reported them. */
  readonly inputTokens: number[];
  /** Requests the model refused as over its window. */
  readonly overWindow: number;
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly prunes: number;
  readonly overThreshold: number;
}

async function readLogFigures(store: LogStore, sessionId: string): Promise<LogFigures> {
  const figures = { inputTokens: [] as number[], overWindow: 0, compactions: 0, failedCompactions: 0, prunes: 0, overThreshold: 0 };
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      const data = event.data;
      if (event.type === 'assistant/message') figures.inputTokens.push((data.usage as { inputTokens: number }).inputTokens);
      else if (event.type === 'model/error' && data.contextOverflow === true) figures.overWindow++;
      else if (event.type === COMPACTION_SUMMARY) figures.compactions++;
      else if (event.type === COMPACTION_END && data.error !== undefined) figures.failedCompactions++;
      else if (event.type === COMPACTION_PRUNE) figures.prunes++;
      else if (event.type === COMPACTION_OVER_THRESHOLD) figures.overThreshold++;
    }
  }
  return figures;
}

interface PolicyResult {
  readonly policy: PolicyCase;
  readonly log: LogFigures;
  readonly summarizer: SummarizerFigures;
  readonly prefix: PrefixRecorder;
  readonly drops: number;
  readonly failure: RunFailure | undefined;
  /** What the refused request of a failed run asked for: its input and reserve, as the model counted them. */
  readonly refused: { readonly inputTokens: number; readonly reservedTokens: number } | undefined;
  readonly turnsRun: number;
  readonly wallMs: number;
}

/** The tool definitions every request carries, as the scripted model counts them. */
function fixedTokens(): number {
  const tools = new CodingAgent().tools().map((tool) => tool.definition);
  return countScriptedRequest({ messages: [], tools: JSON.parse(canonicalJson(tools)) }, LIMITS).toolTokens;
}

async function runPolicy(script: CodingAgentScript, turns: number, policy: PolicyCase, progress?: (message: string) => void) {
  const summarizer: SummarizerFigures = { calls: 0, inputTokens: 0, outputTokens: 0, ms: 0 };
  const prefix = new PrefixRecorder();
  const capabilities: Capability[] = [];
  let dropper: DropOldestTurns | undefined;
  if (policy.plan.kind === 'compaction') {
    capabilities.push(
      createCompaction({
        config: { ...policy.plan.config, summarizer: { kind: 'extractive' } },
        summarizer: countingExtractiveSummarizer(summarizer),
        ...(policy.pruner ? { pruner: createToolResultPruner() } : {}),
      }),
    );
  } else if (policy.plan.kind === 'drop-oldest') {
    dropper = new DropOldestTurns(WINDOW, fixedTokens());
    capabilities.push(dropper);
  }
  const every = Math.max(1, Math.round(turns / 4));
  const run = await runAgentSession({
    script,
    turns,
    limits: LIMITS,
    capabilities,
    untilFailure: true,
    onRequest: (call) => prefix.record(canonicalJson(call.messages)),
    onTurn: (turn) => {
      if (turn % every === 0 && turn < turns)
        progress?.(`compaction-session: ${policy.label}, turn ${formatCount(turn)} of ${formatCount(turns)}`);
    },
  });
  const log = await readLogFigures(run.store, run.sessionId);
  const refusedBody = run.failure?.lastBody;
  const refused = refusedBody === undefined ? undefined : refusedCount(refusedBody);
  return {
    policy,
    log,
    summarizer,
    prefix,
    drops: dropper?.drops ?? 0,
    failure: run.failure,
    refused,
    turnsRun: run.turnMs.length,
    wallMs: run.wallMs,
  } satisfies PolicyResult;
}

function refusedCount(body: JsonObject) {
  const count = countScriptedRequest(body, LIMITS);
  return { inputTokens: count.inputTokens, reservedTokens: count.reservedTokens };
}

const share = (tokens: number) => `${((100 * tokens) / WINDOW.contextWindow).toFixed(1)} %`;
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

function feasible(result: PolicyResult): boolean {
  return result.failure === undefined && result.log.overWindow === 0;
}

function row(result: PolicyResult, baselineTokens: number): string[] {
  const { policy, log, summarizer } = result;
  const cuts = policy.plan.kind === 'drop-oldest' ? `${formatCount(result.drops)} drops` : formatCount(log.compactions);
  if (result.failure !== undefined) {
    const refused = result.refused;
    const asked =
      refused === undefined
        ? ''
        : `: ${formatCount(refused.inputTokens)} + ${formatCount(refused.reservedTokens)} > ${formatCount(WINDOW.contextWindow)}`;
    return [
      policy.label,
      policy.trigger,
      policy.tail,
      `infeasible from turn ${formatCount(result.failure.turn)}${asked}`,
      '–',
      '–',
      '–',
      cuts,
      '–',
      '–',
      '–',
      formatCount(log.overWindow),
    ];
  }
  const total = sum(log.inputTokens);
  return [
    policy.label,
    policy.trigger,
    policy.tail,
    formatCount(total),
    `${(total / baselineTokens).toFixed(2)}×`,
    share(total / log.inputTokens.length),
    share(Math.max(...log.inputTokens)),
    cuts,
    formatCount(summarizer.inputTokens),
    formatCount(summarizer.outputTokens),
    percent(result.prefix.meanShare),
    formatCount(log.overWindow),
  ];
}

async function run(context: BenchContext): Promise<BenchReport> {
  const { turns } = context.quick ? QUICK : FULL;
  const script = new CodingAgentScript();
  const results: PolicyResult[] = [];
  for (const policy of cases()) {
    context.progress(`compaction-session: ${policy.label}, ${formatCount(turns)} turns`);
    results.push(await runPolicy(script, turns, policy, context.progress));
  }
  const baseline = results.find((result) => result.policy.plan.kind === 'drop-oldest');
  const baselineTokens = baseline === undefined ? Number.NaN : sum(baseline.log.inputTokens);
  for (const result of results) {
    if (result.policy.plan.kind !== 'none' && !feasible(result))
      throw new Error(`compaction-session: ${result.policy.label} sent ${result.log.overWindow} requests over the window`);
  }
  const none = results.find((result) => result.policy.plan.kind === 'none');
  const table = {
    title: `Compaction policies on the same ${formatCount(turns)}-turn scripted coding-agent session, window ${formatCount(WINDOW.contextWindow)} tokens, ${formatCount(WINDOW.reserve)} reserved for each answer`,
    columns: [
      'policy',
      'compacts at',
      'tail kept',
      'input tokens sent',
      '÷ drop-oldest',
      'per call, mean (of W)',
      'per call, max',
      'compactions',
      'summarizer in',
      'summarizer out',
      'prefix share',
      'calls over W',
    ],
    rows: results.map((result) => row(result, baselineTokens)),
  };
  const fixed = fixedTokens();
  return {
    tables: [table],
    notes: [
      'The script is a coding agent (bench/coding-agent-script.ts): each turn a request, 1–3 tool calls (one per step) with results of varied sizes (about 1 in 8 is 12k–48k characters), and an answer; seeded, so every policy gets the same turns.',
      `Tokens are what the scripted model counts and reports as input (script-aware estimator): the messages plus the tool definitions (${formatCount(fixed)} tokens on every call). It refuses a request whose input plus the ${formatCount(WINDOW.reserve)} reserved answer tokens exceed ${formatCount(WINDOW.contextWindow)}, with the context-overflow error a real server sends.`,
      `shadowlog: its defaults (threshold ratio ${COMPACTION_DEFAULTS.thresholdRatio}, retained tail ${COMPACTION_DEFAULTS.retain.kind === 'ratio' ? `${COMPACTION_DEFAULTS.retain.ratio} of W − reserve` : `${COMPACTION_DEFAULTS.retain.tokens} tokens`}) with headroom ${formatCount(shadowlogConfig(WINDOW).headroomTokens ?? 0)} = W − reserve − ${COMPACTION_DEFAULTS.thresholdRatio} W, the largest headroom at which the ratio still decides (any headroom from 0 to it gives the same threshold; DSH's 65,536, --preset dsh, is more than this whole window and refused). The pruner is createToolResultPruner() at its defaults.`,
      ...(['pi', 'claude-code', 'drop-oldest'] as const).map((name) => {
        const policy = peerPolicy(name);
        return `${name}: ${policy?.description} Source: ${policy?.source}.`;
      }),
      'pi and Claude Code run as shadowlog’s transaction with their trigger and tail (pi: thresholdRatio 1 and a headroom that puts the threshold at W − 16,384, retainTokens 20,000; Claude Code: thresholdRatio 0.84, retainTokens 0), measured before each step, without the pruner.',
      `Drop-oldest shadows the turns it leaves out with a one-line marker ("${'[N earlier messages were left out to fit the context window]'}", about 20 tokens) so that the log records what was sent; it makes no summary, so its summarizer columns are 0 and "÷ drop-oldest" compares with a harness that fills the window on every call.`,
      'Summarizer in: tokens of the text the extractive summarizer read (what a model summarizer would be sent, before its instruction); out: tokens of the summaries it wrote. Every policy uses the same summarizer (maxSummaryTokens 8,192).',
      'Prefix share: the mean, over every call but the first, of the longest common prefix of the canonical JSON of two consecutive requests’ message lists divided by the length of the later one: what a prompt cache could reuse.',
      ...results.map((result) => {
        const extra = result.log.prunes > 0 ? `, ${formatCount(result.log.prunes)} prunes` : '';
        const over =
          result.log.overThreshold > 0 ? `, ${formatCount(result.log.overThreshold)} steps still over the threshold after compacting` : '';
        const failed = result.log.failedCompactions > 0 ? `, ${formatCount(result.log.failedCompactions)} failed compactions` : '';
        return `${result.policy.label}: ${formatCount(result.log.inputTokens.length)} answered calls over ${formatCount(result.turnsRun)} turns${extra}${failed}${over}, summarizer ${formatMs(result.summarizer.ms)}, wall time ${formatMs(result.wallMs)}.`;
      }),
      ...(none?.failure === undefined
        ? []
        : [
            `No compaction: turn ${formatCount(none.failure.turn)} ended "${none.failure.reason}": ${none.failure.error?.message ?? 'no error'}. Its figures are not shown, and nothing is divided by it: a run that cannot finish has no total to compare.`,
          ]),
    ],
    figures: {
      turns,
      window: { ...WINDOW },
      toolDefinitionTokens: fixed,
      policies: results.map((result) => ({
        label: result.policy.label,
        kind: result.policy.plan.kind,
        threshold: result.policy.plan.kind === 'compaction' ? result.policy.plan.resolved.threshold : null,
        retain: result.policy.plan.kind === 'compaction' ? result.policy.plan.resolved.retain : null,
        feasible: feasible(result),
        failedTurn: result.failure?.turn ?? null,
        turnsRun: result.turnsRun,
        calls: result.log.inputTokens.length,
        inputTokens: sum(result.log.inputTokens),
        meanShareOfWindow: sum(result.log.inputTokens) / result.log.inputTokens.length / WINDOW.contextWindow,
        maxShareOfWindow: Math.max(...result.log.inputTokens) / WINDOW.contextWindow,
        compactions: result.log.compactions,
        failedCompactions: result.log.failedCompactions,
        drops: result.drops,
        prunes: result.log.prunes,
        overThreshold: result.log.overThreshold,
        summarizer: { ...result.summarizer },
        prefixShare: result.prefix.meanShare,
        prefixBreaks: result.prefix.breaks,
        callsOverWindow: result.log.overWindow,
        wallMs: result.wallMs,
      })),
    },
  };
}

export const benchmark: Benchmark = {
  name: 'compaction-session',
  description:
    'compaction policies on one scripted coding-agent session in a 64k window: shadowlog, drop-oldest, pi, Claude Code, none; tokens sent, per call, summarizer, prompt-cache prefix',
  run,
};

// Run alone: `npx tsx bench/compaction-session.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
