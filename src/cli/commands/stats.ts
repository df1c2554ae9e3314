// `shadowlog stats <id>`: what a session did: events, turns, model calls and what they cost,
// compactions and prunes, the tokens they shadowed and what replaced them, what summarizing cost,
// and where the tokens of the surface are now (by content kind and by tool).

import type { Command } from 'commander';
import {
  COMPACTION_END,
  COMPACTION_MASK,
  COMPACTION_POLICY,
  COMPACTION_PRUNE,
  COMPACTION_START,
  COMPACTION_SUMMARY,
} from '../../compaction/index.js';
import { assertSessionId, dataOf, isForeignType } from '../../log/index.js';
import { CostLedger, DEFAULT_ESTIMATOR, type EstimatorName } from '../../meter/index.js';
import { resolveSessionId } from '../../store/index.js';
import { describeWindow, readSessionWindow } from '../../tune/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { pricesOption } from '../price-option.js';
import { formatCount as n } from '../record-filter.js';
import { type ClientRewrite, clientRewriteOf, estimatorOfPolicy, printCost, printSurface, surfaceNow } from '../stats-money.js';
import { statsCallsCommand } from './stats-calls.js';

export interface SessionStats {
  events: number;
  turns: number;
  modelCalls: number;
  /** Of modelCalls, those read from another harness's files (format 2 provenance 'imported'). */
  importedModelCalls: number;
  /** Of modelCalls, those the proxy forwarded (provenance 'proxied'). */
  proxiedModelCalls: number;
  modelErrors: number;
  /** Lines of another harness's file kept whole (claude-code/…, codex/…, pi/…). */
  foreignEvents: number;
  /** Input tokens the providers reported, summed over every call. */
  reportedInputTokens: number;
  /** Output tokens the providers reported, summed over every call. */
  reportedOutputTokens: number;
  /** Of the input, tokens read from and written to the provider's prompt cache, summed over the calls that said. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of the output, tokens spent reasoning, summed over the calls that said. */
  reasoningTokens: number;
  /**
   * Cache reads ÷ the whole input of the calls that reported cache counts (rounded to 4
   * places); null when none did (a provider that says nothing of its cache is not a miss).
   */
  cacheHitShare: number | null;
  compactions: number;
  /** Of compactions, those the source harness made, mapped on import (provenance 'imported'). */
  importedCompactions: number;
  /** Rewrites of its history by a proxied client (the proxy's `rewrite` note): the client's own compactions, not shadowlog's. */
  clientCompactions: number;
  clientRewrites: ClientRewrite[];
  prunes: number;
  /** Tool results the mask strategy replaced by placeholders. */
  maskedResults: number;
  failedCompactions: number;
  /** compaction/start events with no compaction/end: locks left open (see `unlock`). */
  openCompactions: number;
  /** Tokens shadowed by compactions and prunes, by the session's meter. */
  tokensBefore: number;
  /** Tokens of the nodes that replaced them. */
  tokensAfter: number;
  summarizerInputTokens: number;
  summarizerOutputTokens: number;
  summarizerMilliseconds: number;
  /** Summary tokens ÷ the tokens the summaries shadowed (compactions only, not prunes); null with no compaction. */
  summaryRatio: number | null;
  /** Every compaction/policy recorded: the numbers compaction ran under, from that event on. */
  policies: PolicyStats[];
  /** Every compaction started, with the policy it ran under (null before policies were recorded). */
  compactionRuns: CompactionRun[];
}

interface PolicyStats {
  seq: number;
  provider: string;
  model: string;
  contextWindow: number;
  reserve: number;
  fixedTokens: number;
  threshold: number;
  retain: number;
}

interface CompactionRun {
  compactionId: string;
  startSeq: number;
  trigger: string;
  policySeq: number | null;
  outcome: 'compacted' | 'failed' | 'open';
}

export interface StatsOptions {
  /** A JSON price table laid over the built-in one. */
  readonly prices?: string;
}

export async function statsCommand(context: CommandContext, given: string, options: StatsOptions = {}): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const prices = pricesOption(context, options.prices);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const ledger = new CostLedger(prices);
  let estimator: EstimatorName = DEFAULT_ESTIMATOR;
  const stats: SessionStats = {
    events: 0,
    turns: 0,
    modelCalls: 0,
    importedModelCalls: 0,
    proxiedModelCalls: 0,
    modelErrors: 0,
    foreignEvents: 0,
    reportedInputTokens: 0,
    reportedOutputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    cacheHitShare: null,
    compactions: 0,
    importedCompactions: 0,
    clientCompactions: 0,
    clientRewrites: [],
    prunes: 0,
    maskedResults: 0,
    failedCompactions: 0,
    openCompactions: 0,
    tokensBefore: 0,
    tokensAfter: 0,
    summarizerInputTokens: 0,
    summarizerOutputTokens: 0,
    summarizerMilliseconds: 0,
    summaryRatio: null,
    policies: [],
    compactionRuns: [],
  };
  const runs = new Map<string, CompactionRun>();
  const open = new Set<string>();
  const summarized = { shadowed: 0, summaries: 0, withoutUsage: 0, withoutDuration: 0 };
  /** The whole input of the calls that reported cache counts. */
  const cached = { input: 0 };
  // A branch's prefix is its parent's: counted here as part of its log, and said so.
  const link = await store.readForkLink?.(sessionId);
  let prefixModelCalls = 0;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      stats.events++;
      if (link !== undefined && event.seq <= link.forkSeq && event.type === 'model/request') prefixModelCalls++;
      ledger.apply(event);
      estimator = estimatorOfPolicy(event, estimator);
      const data = event.data as Record<string, unknown>;
      switch (event.type) {
        case 'turn/start':
          stats.turns++;
          break;
        case 'model/request': {
          stats.modelCalls++;
          const provenance = dataOf(event, 'model/request').provenance;
          if (provenance === 'imported') stats.importedModelCalls++;
          if (provenance === 'proxied') stats.proxiedModelCalls++;
          const rewrite = clientRewriteOf(event);
          if (rewrite !== undefined) {
            stats.clientCompactions++;
            stats.clientRewrites.push(rewrite);
          }
          break;
        }
        case 'model/error':
          stats.modelErrors++;
          break;
        case 'assistant/message':
        case 'model/unrecorded-answer': {
          // An answer kept as it arrived (its request was off the surface, or a rule refused it) was paid for too.
          const usage = dataOf(event, event.type).usage;
          stats.reportedInputTokens += usage?.inputTokens ?? 0;
          stats.reportedOutputTokens += usage?.outputTokens ?? 0;
          stats.cacheReadTokens += usage?.cacheReadTokens ?? 0;
          stats.cacheWriteTokens += usage?.cacheWriteTokens ?? 0;
          stats.reasoningTokens += usage?.reasoningTokens ?? 0;
          if (usage?.cacheReadTokens !== undefined) cached.input += usage.inputTokens;
          break;
        }
        case 'session/end-seed':
        case 'session/fork':
          open.clear();
          break;
        case COMPACTION_POLICY:
          stats.policies.push({
            seq: event.seq,
            provider: String(data.provider),
            model: String(data.model),
            contextWindow: numberOf(data.contextWindow),
            reserve: numberOf(data.reserve),
            fixedTokens: numberOf(data.fixedTokens),
            threshold: numberOf(data.threshold),
            retain: numberOf(data.retain),
          });
          break;
        case COMPACTION_START: {
          const compactionId = String(data.compactionId);
          open.add(compactionId);
          const run: CompactionRun = {
            compactionId,
            startSeq: event.seq,
            trigger: String(data.trigger),
            policySeq: typeof data.policySeq === 'number' ? data.policySeq : null,
            outcome: 'open',
          };
          runs.set(compactionId, run);
          stats.compactionRuns.push(run);
          break;
        }
        case COMPACTION_END: {
          open.delete(String(data.compactionId));
          if (data.error !== undefined) stats.failedCompactions++;
          const run = runs.get(String(data.compactionId));
          if (run !== undefined) run.outcome = data.error === undefined ? 'compacted' : 'failed';
          break;
        }
        case COMPACTION_SUMMARY: {
          stats.compactions++;
          if (data.provenance === 'imported') stats.importedCompactions++;
          stats.tokensBefore += numberOf(data.shadowedTokenCount);
          stats.tokensAfter += numberOf(data.summaryTokens);
          summarized.shadowed += numberOf(data.shadowedTokenCount);
          summarized.summaries += numberOf(data.summaryTokens);
          const usage = data.usage as { inputTokens?: number; outputTokens?: number } | null | undefined;
          stats.summarizerInputTokens += usage?.inputTokens ?? 0;
          stats.summarizerOutputTokens += usage?.outputTokens ?? 0;
          stats.summarizerMilliseconds += numberOf(data.durationMs);
          // An imported summary may not say what its summarizer cost: counted, so it is not printed as 0.
          if (usage === null || usage === undefined) summarized.withoutUsage++;
          if (typeof data.durationMs !== 'number') summarized.withoutDuration++;
          break;
        }
        case COMPACTION_MASK:
          stats.maskedResults++;
          stats.tokensBefore += numberOf(data.shadowedTokenCount);
          stats.tokensAfter += numberOf(data.replacementTokenCount);
          break;
        case COMPACTION_PRUNE:
          stats.prunes++;
          stats.tokensBefore += numberOf(data.shadowedTokenCount);
          stats.tokensAfter += numberOf(data.replacementTokenCount);
          break;
        default:
          if (isForeignType(event.type)) stats.foreignEvents++;
      }
    }
  }
  stats.openCompactions = open.size;
  if (cached.input > 0) stats.cacheHitShare = Math.round((stats.cacheReadTokens / cached.input) * 10_000) / 10_000;
  if (summarized.shadowed > 0) stats.summaryRatio = Math.round((summarized.summaries / summarized.shadowed) * 10_000) / 10_000;
  const cost = ledger.summary();
  const surface = await surfaceNow(store, sessionId, estimator);
  if (context.json) {
    const fork =
      link === undefined
        ? {}
        : { fork: { parentSessionId: link.parentSessionId, forkSeq: link.forkSeq, prefixEvents: link.forkSeq + 1, prefixModelCalls } };
    context.printJson({ ...stats, cost, surface, ...fork });
    return 0;
  }
  const saved = stats.tokensBefore - stats.tokensAfter;
  context.print(
    `${sessionId}: ${plural(stats.events, 'event', grouped)}, ${plural(stats.turns, 'turn', grouped)}, ${plural(stats.modelCalls, 'model call', grouped)} (${n(stats.modelErrors)} failed)`,
  );
  if (link !== undefined) {
    context.print(
      `a branch of ${link.parentSessionId} after #${link.forkSeq}: its events 0–${link.forkSeq}, with ${plural(prefixModelCalls, 'model call', grouped)}, are its prefix, ${link.parentSessionId}'s, and counted there too (\`sessions\` counts a branch's own only)`,
    );
  }
  const window = (await readSessionWindow(store, sessionId)).primary;
  if (window !== undefined) context.print(`window ${describeWindow(window)}`);
  if (stats.importedModelCalls + stats.proxiedModelCalls + stats.foreignEvents > 0) {
    context.print(
      `model calls not sent by shadowlog: ${n(stats.importedModelCalls)} imported, ${n(stats.proxiedModelCalls)} proxied; ${plural(stats.foreignEvents, 'line', grouped)} of the source kept as foreign events`,
    );
  }
  if (stats.cacheHitShare !== null) {
    context.print(
      `prompt cache: ${(stats.cacheHitShare * 100).toFixed(1)} % of the input read from the cache (${n(stats.cacheReadTokens)} of ${plural(cached.input, 'token', grouped)}, in the calls that reported it), ${n(stats.cacheWriteTokens)} written`,
    );
  }
  context.print(
    `tokens reported: input ${n(stats.reportedInputTokens)} (${n(stats.cacheReadTokens)} cache reads, ${n(stats.cacheWriteTokens)} cache writes), output ${n(stats.reportedOutputTokens)}`,
  );
  if (stats.reasoningTokens > 0) context.print(`reasoning: ${plural(stats.reasoningTokens, 'output token', grouped)}`);
  printCost(context, cost);
  const imported = stats.importedCompactions > 0 ? `, ${stats.importedCompactions} of them the source harness's, mapped on import` : '';
  context.print(
    `compactions: ${n(stats.compactions)} (${n(stats.failedCompactions)} failed, ${n(stats.openCompactions)} open${imported}), prunes: ${n(stats.prunes)}${stats.maskedResults > 0 ? `, masked tool results: ${n(stats.maskedResults)}` : ''}`,
  );
  if (stats.clientCompactions > 0) {
    context.print(
      `client compactions: ${n(stats.clientCompactions)} (the proxied client rewrote its own history, not shadowlog), at ${stats.clientRewrites.map((rewrite) => `#${rewrite.seq} (${plural(rewrite.shadowedNodes, 'node', grouped)} → ${n(rewrite.replacementCount)})`).join(', ')}`,
    );
  }
  context.print(
    `shadowed ${plural(stats.tokensBefore, 'token', grouped)}, replaced by ${n(stats.tokensAfter)} (${n(saved)} fewer on the surface)`,
  );
  if (stats.summaryRatio !== null)
    context.print(
      `summaries: ${plural(summarized.summaries, 'token', grouped)} for the ${n(summarized.shadowed)} they shadowed (${stats.summaryRatio.toFixed(3)}× the size)`,
    );
  if (stats.compactions > 0) context.print(summarizingCost(stats, summarized));
  for (const policy of stats.policies) {
    context.print(
      `policy #${policy.seq} (${policy.provider}/${policy.model}): window ${n(policy.contextWindow)}, reserve ${n(policy.reserve)}, fixed part ${n(policy.fixedTokens)} → threshold ${n(policy.threshold)}, retained tail ${n(policy.retain)}`,
    );
  }
  for (const run of stats.compactionRuns) {
    const under = run.policySeq === null ? 'no recorded policy' : `policy #${run.policySeq}`;
    context.print(`compaction ${run.compactionId.slice(0, 8)} at #${run.startSeq} (${run.trigger}, ${run.outcome}) under ${under}`);
  }
  printSurface(context, surface);
  return 0;
}

const grouped = { separators: true } as const;

/** What the summaries cost, saying so when the record does not tell (a summary another harness wrote). */
function summarizingCost(stats: SessionStats, summarized: { withoutUsage: number; withoutDuration: number }): string {
  if (summarized.withoutUsage === stats.compactions)
    return 'summarizing cost: not recorded (the source harness summarized, and did not record what that cost)';
  const time =
    summarized.withoutDuration === stats.compactions
      ? 'time not recorded'
      : `${n(stats.summarizerMilliseconds)} ms${summarized.withoutDuration > 0 ? ` (${n(summarized.withoutDuration)} without a recorded time)` : ''}`;
  const unrecorded =
    summarized.withoutUsage > 0
      ? `; ${plural(summarized.withoutUsage, 'summary', { plural: 'summaries' })} without a recorded cost left out`
      : '';
  return `summarizing cost ${n(stats.summarizerInputTokens)} input and ${plural(stats.summarizerOutputTokens, 'output token', grouped)}, ${time}${unrecorded}`;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Registers `shadowlog stats` on the program. */
export function registerStatsCommand(program: Command, run: RunCommand): void {
  program
    .command('stats <id>')
    .description(
      "events, turns, model calls and what they cost, compactions (shadowlog's, the source harness's, the client's own) and prunes, tokens shadowed and replaced, and where the surface's tokens are by kind and by tool",
    )
    .option('--calls', "each model call: the meter's estimate at the time, the provider's reported input, the error, and its cost")
    .option('--prices <file>', 'a JSON price table laid over the built-in one (as tune takes)')
    .action((id: string, options: { calls?: boolean; prices?: string }) =>
      run('read', (context) => (options.calls === true ? statsCallsCommand(context, id, options) : statsCommand(context, id, options)))(),
    );
}
