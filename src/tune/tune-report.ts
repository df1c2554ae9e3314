// The report of a run: each policy over all sessions, each session, and the recommendation —
// the cheapest feasible policy a policy file can express whose retention is within a stated
// margin of the best feasible retention — with the numbers it rests on.

import type { CompactionConfig } from '../compaction/policy.js';
import { type AfterCompaction, afterCompactionOf } from './compaction-point.js';
import type { HarnessSetting } from './harness-settings.js';
import type { PolicyProbeScore, ProbeRun } from './probe/probe-report.js';
import {
  DEFAULT_LOOKAHEAD_CALLS,
  type MissTally,
  type PolicySessionResult,
  type Retention,
  retentionOf,
  type SessionResult,
} from './session-replay.js';
import type { TunePolicy } from './tune-policies.js';

export interface PolicySummary {
  readonly policy: string;
  readonly description: string;
  readonly origin: 'shadowlog' | 'baseline';
  /** Feasible in every session. */
  readonly feasible: boolean;
  /** Sessions in which it is not, with where it breaks. */
  readonly infeasible: ReadonlyArray<{
    readonly sessionId: string;
    readonly firstCallOverWindow: number | null;
    readonly refused: string | null;
  }>;
  readonly calls: number;
  readonly callsOverWindow: number;
  readonly tokensSent: number;
  readonly peakTokens: number;
  readonly meanWindowShare: number;
  readonly peakWindowShare: number;
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly prunes: number;
  readonly drops: number;
  readonly summarizerTokens: { readonly input: number; readonly output: number };
  readonly cachePrefixShare: number;
  readonly costUsd: number;
  readonly unpricedCalls: number;
  readonly retention: Retention;
  /** What the surface held right after each compaction, over every session (see docs/tune.md). */
  readonly afterCompaction: AfterCompaction;
  /** The configuration a policy file holds for it (for the most common window), or null when none can express it. */
  readonly config: CompactionConfig | null;
  /** Whether it mounts the tool-result pruner. */
  readonly pruner: boolean;
  /** With `tune --probe`: its probe score, probes and calls spent (null when none of its probes was asked). */
  readonly probe?: PolicyProbeScore | null;
}

export interface Recommendation {
  readonly policy: string;
  readonly reason: string;
  /** The policy's configuration, as a grid point or baseline states it. */
  readonly config: CompactionConfig;
  readonly margin: number;
  /** What the policy file holds: every value stated, and what it was chosen for. */
  readonly policyFile?: CompactionConfig;
}

/** The recommendation as a source harness's own setting, and what its closest configuration measured. */
export interface HarnessSettingReport extends HarnessSetting {
  readonly sessions: number;
  readonly window: { readonly contextWindow: number; readonly reserve: number };
  /** When the harness cannot run the policy as it is: its closest configuration, replayed on its sessions, beside the recommended policy there. */
  readonly measured: {
    readonly costUsd: number;
    readonly retention: number;
    readonly recommendedCostUsd: number;
    readonly recommendedRetention: number;
  } | null;
}

export interface TuneReport {
  readonly version: 1;
  readonly prices: { readonly date: string; readonly source: string };
  readonly estimator: string;
  readonly policies: readonly PolicySummary[];
  readonly sessions: readonly SessionResult[];
  /** Sessions no policy fits in its window (left out of the policies' figures). */
  readonly unfitSessions: readonly string[];
  /** Branches of the run with no model call of their own: all their calls are a prefix another session of the run counts. */
  readonly prefixOnlyBranches?: readonly string[];
  readonly recommendation: Recommendation | null;
  /** The recommendation as the setting of each harness whose sessions were replayed. */
  readonly harnessSettings: readonly HarnessSettingReport[];
  /** With `tune --probe`: the model asked, the budget, and every probe asked. */
  readonly probe?: ProbeRun;
}

/**
 * `results` are the policy's results in the sessions at least one policy fits; a session no
 * policy fits (its first request alone is over the window) says nothing about policies, and the
 * report lists it apart.
 */
export function summarizePolicy(
  policy: TunePolicy,
  results: readonly PolicySessionResult[],
  window: { contextWindow: number; reserve: number } | undefined,
): PolicySummary {
  const sum = (pick: (result: PolicySessionResult) => number) => results.reduce((total, result) => total + pick(result), 0);
  const calls = sum((result) => result.calls);
  const tokensSent = sum((result) => result.tokensSent);
  const misses = new Map<string, MissTally>();
  for (const result of results) {
    for (const miss of result.retention.worstMisses) {
      const key = `${miss.kind}:${miss.artifact}`;
      const seen = misses.get(key);
      if (seen === undefined) misses.set(key, { ...miss, misses: miss.misses, sessionId: result.sessionId });
      else seen.misses += miss.misses;
    }
  }
  const used = sum((result) => result.retention.used);
  const kept = sum((result) => result.retention.kept);
  const reachable = sum((result) => result.retention.reachable);
  // A policy refused in the most common window (a baseline whose kept tail does not fit it)
  // has no configuration a policy file could hold; it is reported as refused, not recommended.
  const config = window === undefined || results.some((result) => result.refused !== null) ? undefined : policy.config?.(window);
  return {
    policy: policy.name,
    description: policy.description,
    origin: policy.origin,
    feasible: results.every((result) => result.feasible),
    infeasible: results
      .filter((result) => !result.feasible)
      .map((result) => ({ sessionId: result.sessionId, firstCallOverWindow: result.firstCallOverWindow, refused: result.refused })),
    calls,
    callsOverWindow: sum((result) => result.callsOverWindow),
    tokensSent,
    peakTokens: Math.max(0, ...results.map((result) => result.peakTokens)),
    meanWindowShare: calls === 0 ? 0 : sum((result) => result.meanWindowShare * result.calls) / calls,
    peakWindowShare: Math.max(0, ...results.map((result) => result.peakWindowShare)),
    compactions: sum((result) => result.compactions),
    failedCompactions: sum((result) => result.failedCompactions),
    prunes: sum((result) => result.prunes),
    drops: sum((result) => result.drops),
    summarizerTokens: { input: sum((result) => result.summarizerTokens.input), output: sum((result) => result.summarizerTokens.output) },
    cachePrefixShare: tokensSent === 0 ? 0 : sum((result) => result.cachedTokens) / tokensSent,
    costUsd: sum((result) => result.costUsd),
    unpricedCalls: sum((result) => result.unpricedCalls),
    retention: { ...retentionOf(used, kept, reachable, misses) },
    afterCompaction: afterCompactionOf(
      results[0]?.afterCompaction.lookaheadCalls ?? DEFAULT_LOOKAHEAD_CALLS,
      results.map((result) => result.afterCompaction),
    ),
    config: config ?? null,
    pruner: policy.pruner !== null,
  };
}

const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/** The cheapest feasible policy with a policy file whose retention is at least the best feasible retention − margin. */
export function recommend(policies: readonly PolicySummary[], margin: number): Recommendation | null {
  const feasible = policies.filter((policy) => policy.feasible && policy.calls > 0);
  if (feasible.length === 0) return null;
  const best = feasible.reduce((top, policy) => (policy.retention.share > top.retention.share ? policy : top));
  const priced = feasible.every((policy) => policy.unpricedCalls === 0);
  const costOf = (policy: PolicySummary) => (priced ? policy.costUsd : policy.tokensSent);
  const candidates = feasible
    .filter((policy) => policy.config !== null && policy.retention.share >= best.retention.share - margin)
    .sort((a, b) => costOf(a) - costOf(b) || b.retention.share - a.retention.share);
  let chosen = candidates[0];
  let fallback = '';
  if (chosen === undefined) {
    // The best retention belongs to policies no policy file can express (drop-oldest, none):
    // the expressible policy that keeps the most, and the reason says how far it is below.
    const expressible = feasible
      .filter((policy) => policy.config !== null)
      .sort((a, b) => b.retention.share - a.retention.share || costOf(a) - costOf(b));
    chosen = expressible[0];
    if (chosen === undefined) return null;
    fallback = `no policy a policy file can express is within ${percent(margin)} of the best retention (${best.policy}, ${percent(best.retention.share)}), so this is the one that keeps the most; `;
  }
  if (chosen.config === null) return null;
  const measure = priced ? `$${chosen.costUsd.toFixed(2)}` : `${chosen.tokensSent.toLocaleString('en-US')} input tokens`;
  const unit = priced ? 'cost' : 'input tokens (some calls have no price)';
  const runnerUp = candidates[1];
  const reason =
    (fallback === ''
      ? `cheapest by ${unit} (${measure}) of the ${candidates.length} feasible ${candidates.length === 1 ? 'policy' : 'policies'} whose retention is within ${percent(margin)} of the best ` +
        `(${best.policy}, ${percent(best.retention.share)}); `
      : `${fallback}${measure}; `) +
    `its retention ${percent(chosen.retention.share)}, ${chosen.compactions} compaction${chosen.compactions === 1 ? '' : 's'}, ` +
    `peak ${percent(chosen.peakWindowShare)} of the window, prompt-cache prefix ${percent(chosen.cachePrefixShare)}` +
    (runnerUp === undefined
      ? ''
      : `; next: ${runnerUp.policy} at ${priced ? `$${runnerUp.costUsd.toFixed(2)}` : `${runnerUp.tokensSent.toLocaleString('en-US')} input tokens`}`) +
    (chosen.pruner ? '' : '; replayed without the tool-result pruner, which chat mounts with compaction (and compact adds with --prune)');
  return { policy: chosen.policy, reason, config: chosen.config, margin };
}
