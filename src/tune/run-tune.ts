// `tune` as a library call: the sessions of a store replayed under every policy, one session at
// a time (so memory follows the largest session, not the store), and the report.

import type { LogEvent } from '../log/event.js';
import { createEstimator } from '../meter/estimators.js';
import { SurfaceMeter } from '../meter/measure.js';
import { BUILT_IN_PRICES, type PriceTable } from '../meter/prices.js';
import type { EstimatorName } from '../meter/token-estimator.js';
import type { LogStore } from '../store/log-store.js';
import { replaySession, type SessionResult } from './session-replay.js';
import { buildTrace, type TraceOptions } from './trace.js';
import { type PolicySetOptions, type TunePolicy, tunePolicies } from './tune-policies.js';
import { recommend, summarizePolicy, type TuneReport } from './tune-report.js';

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
  readonly onProgress?: (progress: TuneProgress) => void;
}

export const DEFAULT_MARGIN = 0.02;

/** A session to replay, and the store that holds it. */
export interface TuneSession {
  readonly store: LogStore;
  readonly sessionId: string;
}

export async function tuneSessions(inputs: readonly TuneSession[], options: TuneOptions = {}): Promise<TuneReport> {
  const policies = options.policies ?? tunePolicies(options);
  const estimator = await createEstimator(options.estimator ?? 'script-aware');
  const prices = options.prices ?? BUILT_IN_PRICES;
  const sessions: SessionResult[] = [];
  for (const [position, { store, sessionId }] of inputs.entries()) {
    const events: LogEvent[] = [];
    for await (const page of store.read(sessionId)) events.push(...page);
    // A meter per session: its price cache is keyed by seq, which sessions share.
    const meter = new SurfaceMeter(estimator);
    const trace = buildTrace(sessionId, events, meter, {
      ...(options.window === undefined ? {} : { window: options.window }),
      ...(options.reserve === undefined ? {} : { reserve: options.reserve }),
    });
    if (trace.calls.length === 0) continue;
    const result = await replaySession(trace, meter, policies, {
      prices,
      ...(options.cacheTtlMs === undefined ? {} : { cacheTtlMs: options.cacheTtlMs }),
      onCall: (call, calls) => options.onProgress?.({ session: position + 1, sessions: inputs.length, sessionId, call, calls }),
    });
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
  return {
    version: 1,
    prices: { date: prices.date, source: prices.source },
    estimator: estimator.name,
    policies: summaries,
    sessions,
    unfitSessions: sessions.filter((session) => !comparable.includes(session)).map((session) => session.sessionId),
    recommendation: recommend(summaries, options.margin ?? DEFAULT_MARGIN),
  };
}

/** The window and reserve of most calls: what a baseline's policy file is written for. */
function commonWindow(sessions: readonly SessionResult[]): { contextWindow: number; reserve: number } | undefined {
  const counts = new Map<string, { contextWindow: number; reserve: number; calls: number }>();
  for (const session of sessions) {
    const contextWindow = session.windows[0];
    if (contextWindow === undefined) continue;
    const key = `${contextWindow}/${session.reserve}`;
    const entry = counts.get(key) ?? { contextWindow, reserve: session.reserve, calls: 0 };
    entry.calls += session.calls;
    counts.set(key, entry);
  }
  let best: { contextWindow: number; reserve: number; calls: number } | undefined;
  for (const entry of counts.values()) if (best === undefined || entry.calls > best.calls) best = entry;
  return best === undefined ? undefined : { contextWindow: best.contextWindow, reserve: best.reserve };
}
