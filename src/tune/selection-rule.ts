// The rule that chooses shadowlog's default compaction policy from an evidence table (issue 27):
// no default may compact more than once per 20 calls on any session at any window unless every
// feasible policy does there; within that, the cheapest whose retention is within 2 points of the
// best. One function, so that the evidence script and the test that guards the defaults agree.

import { EvidenceRuleError } from './tune-errors.js';

/** One policy's figures in one session at one window. */
export interface RuleOutcome {
  /** Replayed with no call over the window and not refused by its configuration. */
  readonly feasible: boolean;
  readonly compactions: number;
  /** Dollars, or tokens sent when the table is not priced: the same unit in every cell. */
  readonly cost: number;
  /** Retention's uses and the uses kept. */
  readonly used: number;
  readonly kept: number;
}

/** A session replayed at one window: each policy's outcome, in the order of the table's policies. */
export interface RuleCell {
  readonly session: string;
  readonly window: number;
  readonly calls: number;
  readonly outcomes: readonly RuleOutcome[];
}

export interface SelectionInput {
  readonly policies: readonly string[];
  readonly cells: readonly RuleCell[];
  /** How far below the best retention the choice may be; default 0.02 (two points). */
  readonly margin?: number;
  /** Calls per compaction allowed; default 20. */
  readonly callsPerCompaction?: number;
}

export interface PolicyStanding {
  readonly policy: string;
  /** Feasible in every cell the rule considers. */
  readonly feasible: boolean;
  /** Cells (session @ window) where it compacts more often than allowed while some feasible policy does not. */
  readonly overLimit: readonly string[];
  readonly cost: number;
  readonly used: number;
  readonly kept: number;
  /** kept ÷ used over the cells considered; 1 when nothing was used. */
  readonly retention: number;
}

export interface Selection {
  readonly policy: string;
  readonly index: number;
  readonly margin: number;
  readonly callsPerCompaction: number;
  /** Cells no policy fits (the first request alone is over the window): they say nothing about policies. */
  readonly leftOut: readonly string[];
  /** Cells where every feasible policy compacts more often than allowed: they exclude no one. */
  readonly exempt: readonly string[];
  /** Cells where no policy compacts at all (the session never reaches the threshold): counted, but they tell no policy apart on compactions. */
  readonly unreached: readonly string[];
  /** False when no feasible policy is within the limit in every cell that binds, and the rule took those over it in the fewest. */
  readonly withinLimit: boolean;
  readonly bestRetention: number;
  /** Within the limit and within the margin of the best retention, cheapest first. */
  readonly candidates: readonly string[];
  readonly standings: readonly PolicyStanding[];
}

export const DEFAULT_CALLS_PER_COMPACTION = 20;

/**
 * Compactions a session of `calls` calls may make: one per 20 calls, and at least one, since a
 * session that outgrows its window must compact once however short it is (a 7-call sub-agent
 * session in a small window).
 */
export function allowedCompactions(calls: number, callsPerCompaction = DEFAULT_CALLS_PER_COMPACTION): number {
  return Math.max(1, Math.floor(calls / callsPerCompaction));
}

const cellName = (cell: RuleCell) => `${cell.session} @ ${cell.window}`;

/** The policy the rule picks, with every figure it rests on; an EvidenceRuleError when it cannot decide. */
export function selectDefaults(input: SelectionInput): Selection {
  const margin = input.margin ?? 0.02;
  const perCompaction = input.callsPerCompaction ?? DEFAULT_CALLS_PER_COMPACTION;
  if (!(margin >= 0 && margin <= 1)) throw new EvidenceRuleError('invalid-figure', `margin is a share from 0 to 1, found ${margin}`);
  if (!(Number.isInteger(perCompaction) && perCompaction >= 1))
    throw new EvidenceRuleError('invalid-figure', `callsPerCompaction is a whole number from 1, found ${perCompaction}`);
  const count = input.policies.length;
  for (const cell of input.cells) {
    if (cell.outcomes.length !== count)
      throw new EvidenceRuleError('misaligned', `${cellName(cell)} has ${cell.outcomes.length} outcomes for ${count} policies`);
    for (const outcome of cell.outcomes) {
      const numbers = [outcome.compactions, outcome.cost, outcome.used, outcome.kept];
      if (numbers.some((value) => !Number.isFinite(value) || value < 0) || outcome.kept > outcome.used)
        throw new EvidenceRuleError('invalid-figure', `${cellName(cell)} has an outcome with a negative, infinite or inconsistent figure`);
    }
  }
  const considered = input.cells.filter((cell) => cell.outcomes.some((outcome) => outcome.feasible));
  const leftOut = input.cells.filter((cell) => !considered.includes(cell)).map(cellName);
  const feasible = input.policies.map((_, index) => considered.every((cell) => cell.outcomes[index]?.feasible === true));
  if (!feasible.includes(true))
    throw new EvidenceRuleError(
      'no-feasible-policy',
      `no policy of the ${count} is feasible in all ${considered.length} cells that some policy fits; widen the grid`,
    );
  const overLimit: string[][] = input.policies.map(() => []);
  const exempt: string[] = [];
  const unreached: string[] = [];
  for (const cell of considered) {
    const allowed = allowedCompactions(cell.calls, perCompaction);
    const over = cell.outcomes.map((outcome) => outcome.compactions > allowed);
    if (cell.outcomes.every((outcome) => outcome.compactions === 0)) unreached.push(cellName(cell));
    if (feasible.every((isFeasible, index) => !isFeasible || over[index])) {
      exempt.push(cellName(cell));
      continue;
    }
    over.forEach((isOver, index) => {
      if (isOver) overLimit[index]?.push(cellName(cell));
    });
  }
  const standings: PolicyStanding[] = input.policies.map((policy, index) => {
    let cost = 0;
    let used = 0;
    let kept = 0;
    for (const cell of considered) {
      const outcome = cell.outcomes[index] as RuleOutcome;
      cost += outcome.cost;
      used += outcome.used;
      kept += outcome.kept;
    }
    return {
      policy,
      feasible: feasible[index] === true,
      overLimit: overLimit[index] ?? [],
      cost,
      used,
      kept,
      retention: used === 0 ? 1 : kept / used,
    };
  });
  const eligible = standings.filter((standing) => standing.feasible && standing.overLimit.length === 0);
  // Not empty: in every cell that is not exempt some feasible policy is within the limit, but
  // not necessarily the same one in every cell; then the rule falls back to the fewest cells over.
  const pool = eligible.length > 0 ? eligible : fewestOver(standings.filter((standing) => standing.feasible));
  const bestRetention = Math.max(...pool.map((standing) => standing.retention));
  const candidates = pool
    .filter((standing) => standing.retention >= bestRetention - margin - 1e-12)
    .sort((a, b) => a.cost - b.cost || b.retention - a.retention || input.policies.indexOf(a.policy) - input.policies.indexOf(b.policy));
  const chosen = candidates[0] as PolicyStanding;
  return {
    policy: chosen.policy,
    index: input.policies.indexOf(chosen.policy),
    margin,
    callsPerCompaction: perCompaction,
    leftOut,
    exempt,
    unreached,
    withinLimit: eligible.length > 0,
    bestRetention,
    candidates: candidates.map((standing) => standing.policy),
    standings,
  };
}

/** The feasible policies over the limit in the fewest cells. */
function fewestOver(standings: readonly PolicyStanding[]): PolicyStanding[] {
  const least = Math.min(...standings.map((standing) => standing.overLimit.length));
  return standings.filter((standing) => standing.overLimit.length === least);
}
