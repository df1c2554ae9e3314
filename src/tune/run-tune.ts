// `tune` as a library call: the sessions of a store replayed under every policy, one session at
// a time (so memory follows the largest session, not the store), and the report.

import type { PolicyWindow } from '../compaction/peer-policies.js';
import { type CompactionConfig, parseCompactionConfig } from '../compaction/policy.js';
import type { LogEvent } from '../log/event.js';
import { summarizeCallErrors } from '../meter/call-meter.js';
import { createEstimator } from '../meter/estimators.js';
import { SurfaceMeter } from '../meter/measure.js';
import { BUILT_IN_PRICES, type PriceTable } from '../meter/prices.js';
import type { EstimatorName } from '../meter/token-estimator.js';
import type { ForkLink } from '../store/branch-link.js';
import type { LogStore } from '../store/log-store.js';
import { harnessSetting } from './harness-settings.js';
import { meterSessionCallErrors, type SessionCallErrors } from './meter-session-calls.js';
import { DEFAULT_LOOKAHEAD_CALLS, type MeterError, type ReplayOptions, replaySession, type SessionResult } from './session-replay.js';
import { buildTrace, type TraceOptions } from './trace.js';
import { TuneConfigError } from './tune-errors.js';
import { type PolicySetOptions, shadowlogPolicy, type TunePolicy, tunePolicies } from './tune-policies.js';
import {
  type HarnessSettingReport,
  type PolicySummary,
  type Recommendation,
  recommend,
  summarizePolicy,
  type TuneReport,
} from './tune-report.js';

export interface TuneProgress {
  readonly session: number;
  readonly sessions: number;
  readonly sessionId: string;
  readonly call: number;
  readonly calls: number;
}

export interface TuneOptions extends PolicySetOptions, TraceOptions {
  /** The policies, instead of those the grid, strategies and baselines give. */
  readonly policies?: readonly TunePolicy[];
  readonly prices?: PriceTable;
  /** Default 'script-aware'. */
  readonly estimator?: EstimatorName;
  /** How far below the best retention the recommendation may be; default 0.02. */
  readonly margin?: number;
  readonly cacheTtlMs?: number;
  /** After a compaction, how many calls from it on count as next (default 10); a whole number ≥ 1. */
  readonly lookaheadCalls?: number;
  readonly onProgress?: (progress: TuneProgress) => void;
  /** Write the recommendation as each source harness's setting (default true); the evidence grid recommends for no harness. */
  readonly harnessSettings?: boolean;
}

export const DEFAULT_MARGIN = 0.02;

/** A session to replay, and the store that holds it. */
export interface TuneSession {
  readonly store: LogStore;
  readonly sessionId: string;
}

export async function tuneSessions(inputs: readonly TuneSession[], options: TuneOptions = {}): Promise<TuneReport> {
  const lookahead = options.lookaheadCalls;
  if (lookahead !== undefined && !(Number.isInteger(lookahead) && lookahead >= 1))
    throw new TuneConfigError(
      'lookaheadCalls',
      `lookaheadCalls is how many calls from a compaction on count as next, a whole number from 1 (default ${DEFAULT_LOOKAHEAD_CALLS}), found ${String(lookahead)}`,
    );
  const policies = options.policies ?? tunePolicies(options);
  const estimator = await createEstimator(options.estimator ?? 'script-aware');
  const prices = options.prices ?? BUILT_IN_PRICES;
  const sessions: SessionResult[] = [];
  const harnessOf = new Map<string, string | null>();
  const prefixes = await sharedPrefixes(inputs);
  const prefixOnly: string[] = [];
  for (const [position, input] of inputs.entries()) {
    const result = await replayInput(input, policies, estimator, prices, options, prefixes.get(input), (call, calls) =>
      options.onProgress?.({ session: position + 1, sessions: inputs.length, sessionId: input.sessionId, call, calls }),
    );
    // A branch with no calls of its own adds nothing its parent does not count.
    if (result !== undefined && result.calls === 0 && result.sharedPrefix !== undefined) prefixOnly.push(result.sessionId);
    if (result === undefined || result.calls === 0) continue;
    harnessOf.set(result.sessionId, result.harness);
    sessions.push(result);
  }
  const comparable = sessions.filter((session) => session.policies.some((result) => result.feasible));
  const window = commonWindow(comparable);
  const summaries = policies.map((policy, index) =>
    summarizePolicy(
      policy,
      comparable.map((session) => session.policies[index] as SessionResult['policies'][number]),
      window,
    ),
  );
  const recommendation = recommend(summaries, options.margin ?? DEFAULT_MARGIN);
  const settings =
    recommendation === null || window === undefined || options.harnessSettings === false
      ? []
      : await settingsFor(prefixes, recommendation, comparable, inputs, estimator, prices, options, summaries);
  return {
    version: 1,
    prices: { date: prices.date, source: prices.source },
    estimator: estimator.name,
    policies: summaries,
    sessions,
    unfitSessions: sessions.filter((session) => !comparable.includes(session)).map((session) => session.sessionId),
    ...(prefixOnly.length === 0 ? {} : { prefixOnlyBranches: prefixOnly }),
    recommendation:
      recommendation === null || window === undefined
        ? recommendation
        : { ...recommendation, policyFile: policyFileOf(recommendation.config, window, comparable) },
    harnessSettings: settings,
  };
}

type Estimator = Awaited<ReturnType<typeof createEstimator>>;

/** One session replayed under `policies`; undefined when it has no calls. */
async function replayInput(
  { store, sessionId }: TuneSession,
  policies: readonly TunePolicy[],
  estimator: Estimator,
  prices: PriceTable,
  options: TuneOptions,
  sharedPrefix: ReplayOptions['sharedPrefix'],
  onCall?: (call: number, calls: number) => void,
): Promise<SessionResult | undefined> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  // A meter per session: its price cache is keyed by seq, which sessions share.
  const meter = new SurfaceMeter(estimator);
  const trace = buildTrace(sessionId, events, meter, {
    ...(options.window === undefined ? {} : { window: options.window }),
    ...(options.reserve === undefined ? {} : { reserve: options.reserve }),
  });
  if (trace.calls.length === 0) return undefined;
  const result = await replaySession(trace, meter, policies, {
    prices,
    ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs }),
    ...(options.lookaheadCalls === undefined ? {} : { lookaheadCalls: options.lookaheadCalls }),
    ...(sharedPrefix === undefined ? {} : { sharedPrefix }),
    ...(onCall === undefined ? {} : { onCall }),
  });
  const errors = await meterSessionCallErrors(() => [events]);
  if (sharedPrefix === undefined) return { ...result, meterError: meterErrorOf(errors) };
  // A branch's prefix is counted in the session that holds it: its calls, their models' windows and their meter errors too.
  const own = errors.calls.filter((call) => call.seq > sharedPrefix.forkSeq);
  const ownModels = new Set(own.map((call) => call.model));
  return {
    ...result,
    windowRules: result.windowRules.filter((rule) => ownModels.has(rule.model)),
    meterError: meterErrorOf({ ...errors, calls: own, summary: summarizeCallErrors(own) }),
  };
}

/**
 * The recommendation as each source harness's setting, for the window of most of its calls; where
 * the harness cannot run the policy as it is, the closest it can is replayed on its sessions and
 * set beside the recommended policy's figures on the same sessions.
 */
async function settingsFor(
  prefixes: SharedPrefixes,
  recommendation: Recommendation,
  sessions: readonly SessionResult[],
  inputs: readonly TuneSession[],
  estimator: Estimator,
  prices: PriceTable,
  options: TuneOptions,
  summaries: readonly PolicySummary[],
): Promise<HarnessSettingReport[]> {
  const reports: HarnessSettingReport[] = [];
  const index = summaries.findIndex((summary) => summary.policy === recommendation.policy);
  for (const harness of ['claude-code', 'codex', 'pi'] as const) {
    const own = sessions.filter((session) => session.harness === harness);
    const window = commonWindow(own);
    if (own.length === 0 || window === undefined) continue;
    const setting = harnessSetting(harness, recommendation.config, window);
    let measured: HarnessSettingReport['measured'] = null;
    if (!setting.exact && setting.closest !== null) {
      const closest = shadowlogPolicy(`${harness} setting`, setting.closest, null);
      let closestCost = 0;
      let closestUsed = 0;
      let closestKept = 0;
      for (const input of inputs) {
        if (!own.some((session) => session.sessionId === input.sessionId)) continue;
        const result = await replayInput(input, [closest], estimator, prices, options, prefixes.get(input));
        const figures = result?.policies[0];
        if (figures === undefined) continue;
        closestCost += figures.costUsd;
        closestUsed += figures.retention.used;
        closestKept += figures.retention.kept;
      }
      const recommended = own.map((session) => session.policies[index]).filter((result) => result !== undefined);
      const used = recommended.reduce((sum, result) => sum + result.retention.used, 0);
      measured = {
        costUsd: closestCost,
        retention: closestUsed === 0 ? 1 : closestKept / closestUsed,
        recommendedCostUsd: recommended.reduce((sum, result) => sum + result.costUsd, 0),
        recommendedRetention: used === 0 ? 1 : recommended.reduce((sum, result) => sum + result.retention.kept, 0) / used,
      };
    }
    reports.push({ ...setting, sessions: own.length, window, measured });
  }
  return reports;
}

/** The policy file: every value stated, and the window and sessions it was chosen for. */
function policyFileOf(config: CompactionConfig, window: PolicyWindow, sessions: readonly SessionResult[]): CompactionConfig {
  const parsed = parseCompactionConfig(config);
  const retain = parsed.retain.kind === 'ratio' ? { retainRatio: parsed.retain.ratio } : { retainTokens: parsed.retain.tokens };
  return {
    thresholdRatio: parsed.thresholdRatio,
    headroomTokens: parsed.headroomTokens,
    ...retain,
    maxSummaryTokens: parsed.maxSummaryTokens,
    compactionRetries: parsed.compactionRetries,
    maxOverflowRetries: parsed.maxOverflowRetries,
    strategy: parsed.strategy,
    chosenFor: {
      contextWindow: window.contextWindow,
      reserve: window.reserve,
      sessions: sessions.length,
      calls: sessions.reduce((sum, session) => sum + session.calls, 0),
      harnesses: [...new Set(sessions.map((session) => session.harness ?? 'shadowlog'))],
    },
  };
}

/** The window and reserve of most calls: what a baseline's policy file is written for. */
function commonWindow(sessions: readonly SessionResult[]): { contextWindow: number; reserve: number } | undefined {
  const counts = new Map<string, { contextWindow: number; reserve: number; calls: number }>();
  for (const session of sessions) {
    const contextWindow = session.window;
    if (contextWindow === 0) continue;
    const key = `${contextWindow}/${session.reserve}`;
    const entry = counts.get(key) ?? { contextWindow, reserve: session.reserve, calls: 0 };
    entry.calls += session.calls;
    counts.set(key, entry);
  }
  let best: { contextWindow: number; reserve: number; calls: number } | undefined;
  for (const entry of counts.values()) if (best === undefined || entry.calls > best.calls) best = entry;
  return best === undefined ? undefined : { contextWindow: best.contextWindow, reserve: best.reserve };
}

/** The figures of the anchored calls, or null when none reported its input. */
function meterErrorOf(errors: SessionCallErrors): MeterError | null {
  const anchored = errors.calls.filter((call) => call.anchored && call.error !== null).map((call) => call.error as number);
  const { medianAbsError, p95AbsError, maxAbsError } = errors.summary;
  if (anchored.length === 0 || medianAbsError === null || p95AbsError === null || maxAbsError === null) return null;
  return {
    calls: anchored.length,
    meanError: anchored.reduce((sum, error) => sum + error, 0) / anchored.length,
    medianAbsError,
    p95AbsError,
    maxAbsError,
  };
}

type SharedPrefixes = ReadonlyMap<TuneSession, NonNullable<ReplayOptions['sharedPrefix']>>;

/**
 * For each branch of the run whose parent (or an ancestor) is in the run too: the ancestor that
 * counts the shared prefix, and the seq up to which the branch's events are that ancestor's. A
 * prefix is counted once, in the nearest ancestor the run holds (SPEC §14); a branch tuned
 * without its parent counts its prefix as part of its own history.
 */
async function sharedPrefixes(inputs: readonly TuneSession[]): Promise<SharedPrefixes> {
  const prefixes = new Map<TuneSession, NonNullable<ReplayOptions['sharedPrefix']>>();
  const inRun = (store: LogStore, sessionId: string) => inputs.some((input) => input.store === store && input.sessionId === sessionId);
  for (const input of inputs) {
    if (input.store.readForkLink === undefined) continue;
    const seen = new Set<string>([input.sessionId]);
    let link = await input.store.readForkLink(input.sessionId);
    while (link !== undefined && !seen.has(link.parentSessionId)) {
      if (inRun(input.store, link.parentSessionId)) {
        prefixes.set(input, { counted: link.parentSessionId, forkSeq: link.forkSeq });
        break;
      }
      seen.add(link.parentSessionId);
      // The parent's own link: its prefix ends before this fork point, so an ancestor further up counts less of it.
      const parentLink: ForkLink | undefined = await input.store.readForkLink(link.parentSessionId);
      link = parentLink === undefined ? undefined : { ...parentLink, forkSeq: Math.min(parentLink.forkSeq, link.forkSeq) };
    }
  }
  return prefixes;
}
