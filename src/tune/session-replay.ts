// One pass over a session's record for every policy at once: the trace and the shared work are
// built once, then each recorded call is replayed under each policy in turn, so that the cost of
// a session grows with its length times the number of policies, and no policy re-reads the log.

import type { ResolvedWindow } from '../compaction/session-window.js';
import type { Summarizer } from '../compaction/summarizer.js';
import type { SurfaceMeter } from '../meter/measure.js';
import { callCost, type PriceTable, priceOf } from '../meter/prices.js';
import { artifactValue, kindOf } from './artifacts.js';
import { type AfterCompaction, afterCompactionOf, type CompactionPoint, compactionPoint } from './compaction-point.js';
import { PolicyReplay } from './policy-replay.js';
import { ReplayContext } from './replay-context.js';
import type { SessionTrace } from './trace.js';
import type { TunePolicy } from './tune-policies.js';

export interface Miss {
  readonly artifact: string;
  readonly kind: string;
  /** Calls whose answer used it while this policy's surface did not hold it. */
  readonly misses: number;
  /** The first such call. */
  readonly firstCall: number;
  /** Where the session introduced it: the event's seq and what it was ("a Read result", "a user message"). */
  readonly introducedSeq?: number;
  readonly introducedBy?: string;
  /** The session the first miss was in (set when a report sums sessions). */
  readonly sessionId?: string;
}

/** What a miss is counted with while replaying. */
export interface MissTally {
  misses: number;
  readonly firstCall: number;
  readonly introducedSeq?: number;
  readonly introducedBy?: string;
  readonly sessionId?: string;
}

export interface Retention {
  /** Uses: (call, artifact) pairs where an answer used an artifact an earlier event introduced. */
  readonly used: number;
  /** Of them, those whose artifact was on the surface this policy sent at that call. */
  readonly kept: number;
  /** kept / used; 1 when nothing was used. */
  readonly share: number;
  /**
   * Of the uses, those kept or, for a recall policy, off the surface but named in an original
   * a recall handle shadows (the recall tool could read it back; the model would have to ask).
   * Equal to kept for a policy without recall.
   */
  readonly reachable: number;
  /** reachable / used, the share reachable on the surface or by recall; 1 when nothing was used. */
  readonly recallable: number;
  readonly worstMisses: readonly Miss[];
}

export interface PolicySessionResult {
  readonly policy: string;
  readonly sessionId: string;
  readonly calls: number;
  /** No call over the window, and the configuration accepted in every window of the session. */
  readonly feasible: boolean;
  /** Why the configuration cannot run in a window of this session, when it cannot. */
  readonly refused: string | null;
  /** The first call whose request would not fit the window (its number), or null. */
  readonly firstCallOverWindow: number | null;
  readonly callsOverWindow: number;
  readonly tokensSent: number;
  readonly peakTokens: number;
  /** The mean and the largest of each call's tokens as a share of its window. */
  readonly meanWindowShare: number;
  readonly peakWindowShare: number;
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly prunes: number;
  /** Times dropping the oldest turns moved the cut (drop-oldest only). */
  readonly drops: number;
  readonly summarizerTokens: { readonly input: number; readonly output: number };
  readonly cachedTokens: number;
  /** cachedTokens / tokensSent: the share of the input a prompt cache could have served. */
  readonly cachePrefixShare: number;
  /** Dollars, for the calls whose model the price table knows; the summarizer's calls priced as the session's model. */
  readonly costUsd: number;
  readonly unpricedCalls: number;
  readonly retention: Retention;
  /** Input tokens of each call, in order (null after a refusal). */
  readonly tokensPerCall: ReadonlyArray<number | null>;
  /** The numbers of the calls at which the policy compacted (or dropped turns). */
  readonly compactionCalls: readonly number[];
  /** The seqs of those calls' model/request events (where `tune --probe` asks its probes). */
  readonly compactionSeqs: readonly number[];
  /** What the surface held right after each of those compactions, against the calls that followed. */
  readonly afterCompaction: AfterCompaction;
}

/** The meter against the provider over a session's calls, as `stats --calls` computes it (meterSessionCallErrors). */
export interface MeterError {
  /** Calls with a reported input whose estimate had an anchor (every call but the first of its model). */
  readonly calls: number;
  /** Over them: the mean of (estimate − reported) / reported, and the median, 95th percentile and largest of its absolute value. */
  readonly meanError: number;
  readonly medianAbsError: number;
  readonly p95AbsError: number;
  readonly maxAbsError: number;
}

export interface SessionResult {
  readonly sessionId: string;
  readonly calls: number;
  readonly items: number;
  /** The windows of its calls (distinct, in order of first use). */
  readonly windows: readonly number[];
  /** The window of the model with the most calls: what a policy file is written for. */
  readonly window: number;
  /** The harness that wrote the source (null for shadowlog's own), and each model's window with the rule that gave it. */
  readonly harness: string | null;
  readonly windowRules: readonly ResolvedWindow[];
  readonly reserve: number;
  readonly models: readonly string[];
  readonly fixedTokens: number;
  readonly meterError: MeterError | null;
  /** What the record itself sent: the tokens its provider reported, summed (null without usage). */
  readonly recordedInputTokens: number | null;
  /** For a branch whose prefix another session of the run counts: the figures here are the branch's own calls. */
  readonly sharedPrefix?: SharedPrefix;
  readonly policies: readonly PolicySessionResult[];
}

export interface ReplayOptions {
  readonly prices: PriceTable;
  /** A cached prefix expires after this long without a request (default 5 minutes, both providers' shortest). */
  readonly cacheTtlMs?: number;
  /** Called after each call is replayed under every policy. */
  readonly onCall?: (done: number, total: number) => void;
  /** What summarizes a compacted range (default: the extractive summarizer, offline). */
  readonly summarizer?: Summarizer;
  /** After a compaction, how many calls from it on count as next (default DEFAULT_LOOKAHEAD_CALLS). */
  readonly lookaheadCalls?: number;
  /**
   * A branch whose shared prefix is counted with another session of the same run: its calls at
   * or before `forkSeq` are replayed (each policy's state there is the parent's) but counted in
   * no figure, so that the prefix is counted once, with `counted`.
   */
  readonly sharedPrefix?: { readonly counted: string; readonly forkSeq: number };
}

/** A branch's prefix left uncounted because another session of the run counts it. */
export interface SharedPrefix {
  /** The session of the run that counts it: the branch's parent, or the nearest ancestor in the run. */
  readonly countedIn: string;
  readonly forkSeq: number;
  /** The calls of the prefix, replayed but not counted here. */
  readonly calls: number;
}

/** After a compaction, the calls whose uses it is judged against: it and the 9 after it. */
export const DEFAULT_LOOKAHEAD_CALLS = 10;

const WORST = 5;

export async function replaySession(
  trace: SessionTrace,
  meter: SurfaceMeter,
  policies: readonly TunePolicy[],
  options: ReplayOptions,
): Promise<SessionResult> {
  const context = new ReplayContext(trace, meter, options.summarizer);
  const ttl = options.cacheTtlMs ?? 5 * 60_000;
  const lookahead = options.lookaheadCalls ?? DEFAULT_LOOKAHEAD_CALLS;
  const replays = policies.map((policy) => new PolicyReplay(policy, context));
  const figures = policies.map(() => ({
    tokensSent: 0,
    peak: 0,
    shareSum: 0,
    peakShare: 0,
    over: 0,
    firstOver: null as number | null,
    compactions: 0,
    prunes: 0,
    summarizerInput: 0,
    summarizerOutput: 0,
    cached: 0,
    cost: 0,
    unpriced: 0,
    used: 0,
    kept: 0,
    reachable: 0,
    misses: new Map<string, MissTally>(),
    tokensPerCall: [] as Array<number | null>,
    compactionCalls: [] as number[],
    compactionSeqs: [] as number[],
    points: [] as CompactionPoint[],
    counted: 0,
    /** What the replay had dropped and failed to compact before the first call counted here (a branch's prefix counts them). */
    dropsBefore: 0,
    failedBefore: 0,
  }));
  const prefixEnd = options.sharedPrefix?.forkSeq ?? -1;
  const ownCalls = trace.calls.filter((call) => call.seq > prefixEnd);
  for (const [callIndex, call] of trace.calls.entries()) {
    const price = priceOf(options.prices, call.model);
    const counted = call.seq > prefixEnd;
    for (const [policyIndex, replay] of replays.entries()) {
      const figure = figures[policyIndex] as (typeof figures)[number];
      const drops = replay.drops;
      const outcome = await replay.call(call, callIndex, ttl);
      if (!counted) {
        figure.dropsBefore = replay.drops;
        figure.failedBefore = replay.failedCompactions;
        continue;
      }
      if (outcome === undefined) {
        figure.tokensPerCall.push(null);
        continue;
      }
      figure.counted++;
      figure.tokensSent += outcome.tokens;
      figure.peak = Math.max(figure.peak, outcome.tokens);
      const share = outcome.tokens / call.window;
      figure.shareSum += share;
      figure.peakShare = Math.max(figure.peakShare, share);
      if (outcome.overWindow) {
        figure.over++;
        figure.firstOver ??= call.number;
      }
      figure.compactions += outcome.compactions;
      figure.prunes += outcome.prunes;
      figure.summarizerInput += outcome.summarizerInput;
      figure.summarizerOutput += outcome.summarizerOutput;
      figure.cached += outcome.cachedTokens;
      if (price === undefined) figure.unpriced++;
      else {
        figure.cost += callCost(price, outcome.tokens, outcome.cachedTokens, call.outputTokens);
        if (outcome.summarizerInput > 0) figure.cost += callCost(price, outcome.summarizerInput, 0, outcome.summarizerOutput);
      }
      figure.used += outcome.used;
      figure.kept += outcome.used - outcome.missed.length;
      figure.reachable += outcome.used - outcome.missed.length + outcome.recallable.length;
      for (const artifact of outcome.missed) {
        const seen = figure.misses.get(artifact);
        if (seen === undefined) figure.misses.set(artifact, { misses: 1, firstCall: call.number, ...context.introduction(artifact) });
        else seen.misses++;
      }
      figure.tokensPerCall.push(outcome.tokens);
      if (outcome.compactions > 0 || replay.drops > drops) {
        figure.compactionCalls.push(call.number);
        figure.compactionSeqs.push(call.seq);
        figure.points.push(compactionPoint(replay, context, call.index, callIndex, lookahead));
      }
    }
    options.onCall?.(callIndex + 1, trace.calls.length);
  }
  const results: PolicySessionResult[] = replays.map((replay, index) => {
    const figure = figures[index] as (typeof figures)[number];
    const refused = replay.refusal === undefined ? null : `from call ${replay.refusal.call}: ${replay.refusal.message}`;
    return {
      policy: replay.policy.name,
      sessionId: trace.sessionId,
      calls: ownCalls.length,
      feasible: refused === null && figure.over === 0,
      refused,
      firstCallOverWindow: figure.firstOver,
      callsOverWindow: figure.over,
      tokensSent: figure.tokensSent,
      peakTokens: figure.peak,
      meanWindowShare: figure.counted === 0 ? 0 : figure.shareSum / figure.counted,
      peakWindowShare: figure.peakShare,
      compactions: figure.compactions,
      failedCompactions: replay.failedCompactions - figure.failedBefore,
      prunes: figure.prunes,
      drops: replay.drops - figure.dropsBefore,
      summarizerTokens: { input: figure.summarizerInput, output: figure.summarizerOutput },
      cachedTokens: figure.cached,
      cachePrefixShare: figure.tokensSent === 0 ? 0 : figure.cached / figure.tokensSent,
      costUsd: figure.cost,
      unpricedCalls: figure.unpriced,
      retention: retentionOf(figure.used, figure.kept, figure.reachable, figure.misses),
      tokensPerCall: figure.tokensPerCall,
      compactionCalls: figure.compactionCalls,
      compactionSeqs: figure.compactionSeqs,
      afterCompaction: afterCompactionOf(lookahead, figure.points),
    };
  });
  const windows = [...new Set(ownCalls.map((call) => call.window))];
  const reported = ownCalls.filter((call) => call.usage !== undefined);
  const shared = options.sharedPrefix;
  return {
    sessionId: trace.sessionId,
    calls: ownCalls.length,
    items: trace.items.length,
    windows,
    window: trace.window.primary?.window ?? windows[0] ?? 0,
    harness: trace.window.harness,
    windowRules: [...trace.window.models.values()],
    reserve: trace.calls[0]?.reserve ?? 0,
    models: [...new Set(trace.calls.map((call) => call.model))],
    fixedTokens: trace.fixedTokens,
    meterError: null,
    recordedInputTokens: reported.length === 0 ? null : reported.reduce((sum, call) => sum + (call.usage?.inputTokens ?? 0), 0),
    ...(shared === undefined
      ? {}
      : { sharedPrefix: { countedIn: shared.counted, forkSeq: shared.forkSeq, calls: trace.calls.length - ownCalls.length } }),
    policies: results,
  };
}

export function retentionOf(used: number, kept: number, reachable: number, misses: ReadonlyMap<string, MissTally>): Retention {
  const worstMisses = [...misses.entries()]
    .sort((a, b) => b[1].misses - a[1].misses || a[1].firstCall - b[1].firstCall || (a[0] < b[0] ? -1 : 1))
    .slice(0, WORST)
    .map(([artifact, miss]) => ({
      artifact: artifactValue(artifact),
      kind: kindOf(artifact),
      misses: miss.misses,
      firstCall: miss.firstCall,
      ...(miss.introducedSeq === undefined ? {} : { introducedSeq: miss.introducedSeq }),
      ...(miss.introducedBy === undefined ? {} : { introducedBy: miss.introducedBy }),
      ...(miss.sessionId === undefined ? {} : { sessionId: miss.sessionId }),
    }));
  return {
    used,
    kept,
    share: used === 0 ? 1 : kept / used,
    reachable,
    recallable: used === 0 ? 1 : reachable / used,
    worstMisses,
  };
}
