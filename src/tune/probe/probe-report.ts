// What `tune --probe` adds to a tune report: each probe asked (its question, the answer the
// record expects, the answer given, its score and where each call is recorded), and per policy
// the probe score beside the model-free retention, with the number of probes and calls spent.

import type { ProbeExpectation, ProbeKind } from './probe-questions.js';

export interface ProbeResult {
  readonly sessionId: string;
  readonly policy: string;
  /** The compaction point: the audited call's model/request seq, turn and step. */
  readonly requestSeq: number;
  readonly turn: number;
  readonly step: number;
  readonly kind: ProbeKind;
  readonly question: string;
  readonly expected: ProbeExpectation;
  /** `match`: the expected items looked for in the answer, model-free; `judge`: the model's verdict with the rubric. */
  readonly scoring: 'match' | 'judge';
  /** The probe session that records the probe call, and the digest of the bytes sent. */
  readonly probeSession: string;
  readonly probeDigest: string;
  readonly answer: string;
  /** The probe call failed (the provider refused it, or could not be reached): the error, recorded. */
  readonly error: string | null;
  readonly judgeSession: string | null;
  readonly judgeDigest: string | null;
  readonly verdict: { readonly score: number; readonly reason: string } | null;
  /** Why the probe is unscored: a verdict that does not parse, a call that failed. */
  readonly unscored: string | null;
  /** The score from 0 to 1, or null when unscored. */
  readonly score: number | null;
  /** For a match: the expected items the answer named, and those it did not. */
  readonly found: readonly string[];
  readonly missing: readonly string[];
  /** Calls this probe spent: the probe, and the judge's. */
  readonly calls: number;
}

/** A policy's probes, summed. */
export interface PolicyProbeScore {
  /** The mean score of its scored probes; null when none was scored. */
  readonly score: number | null;
  readonly probes: number;
  readonly scored: number;
  readonly unscored: number;
  /** Probe and judge calls sent for it. */
  readonly calls: number;
  /** Per kind: probes and mean score (null when none scored). */
  readonly kinds: Readonly<Record<ProbeKind, { readonly probes: number; readonly score: number | null }>>;
}

export interface ProbeEstimate {
  readonly probeCalls: number;
  readonly judgeCalls: number;
  readonly inputTokens: number;
  /** At most: each answer's reserved tokens. */
  readonly outputTokens: number;
  /** Dollars at the price table's prices; null when the model asked is not priced. */
  readonly costUsd: number | null;
  readonly priceDate: string;
}

export interface ProbeRun {
  readonly provider: string;
  readonly model: string;
  readonly maxProbeCalls: number;
  /** Probes generated at the compaction points reached, before the cap. */
  readonly generated: number;
  /** Probes left out by the cap, or because their request would not fit the window. */
  readonly skipped: number;
  readonly overWindow: number;
  /** Compaction points of the probed policies, and those not reached: the cap was spent before their surfaces were built. */
  readonly points: number;
  readonly pointsNotReached: number;
  readonly estimate: ProbeEstimate;
  /** Calls sent in all (probe and judge). */
  readonly calls: number;
  /** Policies whose compaction points were not probed, and why (a policy no policy file expresses: drop-oldest). */
  readonly unprobed: ReadonlyArray<{ readonly policy: string; readonly points: number; readonly reason: string }>;
  readonly results: readonly ProbeResult[];
}

/** The probe score of `policy` over `results`. */
export function policyProbeScore(policy: string, results: readonly ProbeResult[]): PolicyProbeScore {
  const own = results.filter((result) => result.policy === policy);
  const mean = (of: readonly ProbeResult[]) => {
    const scored = of.filter((result) => result.score !== null);
    return scored.length === 0 ? null : scored.reduce((sum, result) => sum + (result.score as number), 0) / scored.length;
  };
  const kind = (name: ProbeKind) => {
    const of = own.filter((result) => result.kind === name);
    return { probes: of.length, score: mean(of) };
  };
  const scored = own.filter((result) => result.score !== null).length;
  return {
    score: mean(own),
    probes: own.length,
    scored,
    unscored: own.length - scored,
    calls: own.reduce((sum, result) => sum + result.calls, 0),
    kinds: { recall: kind('recall'), artifacts: kind('artifacts'), continuation: kind('continuation'), decision: kind('decision') },
  };
}
