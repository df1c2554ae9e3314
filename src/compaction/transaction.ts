// The compaction transaction (SPEC §7): validate, take the durable lock (compaction/start),
// let the strategy make the replacement (strategies/), re-validate, append the metering events
// and the replacing nodes in one batch, release the lock. A
// failure after the lock appends compaction/end with the error exactly once; if even that
// cannot be written, the lock stays open on purpose, and every later compaction in this
// lifecycle fails `busy` until a new lifecycle (or an operator's unlock) makes it stale.

import { randomUUID } from 'node:crypto';
import { ConcurrencyError, messageOf, ShadowlogError } from '../log/errors.js';
import type { LogEvent, SurfaceType } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { SessionLog } from '../store/session-log.js';
import { COMPACTION_END, COMPACTION_START, type CompactionErrorCause, type CompactionTrigger } from './event-types.js';
import type { Selection } from './select-range.js';
import type { CompactionSessionState } from './session-state.js';
import { type CompactionStrategy, type ResolvedStrategyName, StrategyFailure, type StrategyInput } from './strategies/strategy.js';
import { createSummaryStrategy } from './strategies/summary-strategy.js';
import type { Summarizer } from './summarizer.js';

export type CompactionFailure = 'busy' | 'cancelled' | 'changed' | 'summary' | 'commit' | 'persistence';

export type CompactionOutcome =
  | {
      readonly status: 'compacted';
      readonly compactionId: string;
      /** The strategy that made the replacement. */
      readonly strategy: ResolvedStrategyName;
      readonly trigger: CompactionTrigger;
      readonly shadowedSeqs: readonly number[];
      /** The first replacing node (the summary's node, for a whole-range strategy). */
      readonly summarySeq: number;
      /** Every replacing node the compaction appended, in seq order (one per masked result for `mask`). */
      readonly replacementSeqs: readonly number[];
      readonly tokensBefore: number;
      readonly tokensAfter: number;
    }
  | {
      readonly status: 'failed';
      readonly reason: CompactionFailure;
      readonly message: string;
      readonly compactionId?: string;
      /** The lock could not be released: it blocks compaction until a new lifecycle. */
      readonly orphaned: boolean;
      /** What caused the failure, when an error did: its code, and a provider error's classification. */
      readonly cause?: CompactionErrorCause;
    };

export interface TransactionInput {
  readonly log: SessionLog;
  readonly state: CompactionSessionState;
  readonly selection: Selection;
  readonly trigger: CompactionTrigger;
  readonly turn: number | null;
  /** The compaction/policy event in force, named in compaction/start. */
  readonly policySeq?: number;
  readonly summarizer: Summarizer;
  readonly maxSummaryTokens: number;
  /** The surface's price now. */
  readonly tokensBefore: number;
  /** The surface's price once the selection is replaced by nodes priced at `replacementTokens` (StrategyInput.measureAfter). */
  readonly measureAfter: (replacementTokens: number) => number;
  /** The price the meter gives a node with this content (for the summary's node). */
  readonly priceOfSummary: (text: string) => number;
  /** The price the meter gives a node of this type with this data (a masked tool result, a provider's item). */
  readonly priceOfData: (type: SurfaceType, data: object) => number;
  /** What replaces the selection; the summary strategy when not given. */
  readonly strategy?: CompactionStrategy;
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

/** Thrown inside the transaction to stop it with a typed outcome. */
class Stop extends Error {
  constructor(
    readonly reason: CompactionFailure,
    message: string,
    /** The error behind the stop, when one caused it (a provider's, a store's). */
    readonly source?: unknown,
  ) {
    super(message);
  }
}

export async function runCompactionTransaction(input: TransactionInput): Promise<CompactionOutcome> {
  const { log, selection, state } = input;
  const configured = input.strategy ?? createSummaryStrategy();
  // A strategy may hand a selection it cannot serve to another (auto's native, below the provider's minimum).
  const strategy = configured.delegateFor?.(selection, log.fold) ?? configured;
  // 1. The selection is valid on the current surface.
  const problem = strategy.problem(log.fold, selection);
  if (problem !== undefined) return failed('changed', `the selected range is no longer valid: ${problem}`);
  // 2–3. The lock: refused while another compaction is live; else compaction/start, whose
  // append carries the seq the check was made at, so check and append are one atomic step.
  const live = [...state.openCompactions.entries()];
  if (live.length > 0) {
    const [id, seq] = live[0] as [string, number];
    return failed(
      'busy',
      `compaction ${id} (started at event #${seq}) has no compaction/end in this lifecycle; reopen the session or run \`shadowlog unlock\` if its process is gone`,
    );
  }
  const compactionId = randomUUID();
  try {
    const start = {
      compactionId,
      trigger: input.trigger,
      turn: input.turn,
      ...(input.policySeq === undefined ? {} : { policySeq: input.policySeq }),
      strategy: strategy.name,
    };
    await log.append([{ type: COMPACTION_START, data: start, ignorable: true }]);
  } catch (error) {
    if (error instanceof ConcurrencyError) return failed('busy', `another writer appended to the session first: ${error.message}`);
    return failed('persistence', `the lock could not be written: ${messageOf(error)}`);
  }

  let stage: 'summary' | 'commit' = 'summary';
  try {
    const outcome = await planAndCommit(input, strategy, compactionId, () => {
      stage = 'commit';
    });
    // 7. Release the lock last.
    try {
      await log.append([{ type: COMPACTION_END, data: { compactionId }, ignorable: true }]);
    } catch (error) {
      return {
        status: 'failed',
        reason: 'persistence',
        compactionId,
        orphaned: true,
        message: `the summary landed, but compaction/end could not be written (${messageOf(error)}); the lock stays open`,
      };
    }
    return outcome;
  } catch (error) {
    const reason: CompactionFailure = error instanceof Stop ? error.reason : stage;
    const message = messageOf(error);
    const cause = causeOf(error instanceof Stop ? error.source : error);
    // Exactly one attempt to release the lock with the error.
    const recorded = { reason, message, ...(cause === undefined ? {} : { cause }) };
    const orphaned = await log.append([{ type: COMPACTION_END, data: { compactionId, error: recorded }, ignorable: true }]).then(
      () => false,
      () => true,
    );
    return { status: 'failed', reason, compactionId, orphaned, message, ...(cause === undefined ? {} : { cause }) };
  }
}

/** The classification of the error behind a failure: its code, and a provider error's kind and flags. */
function causeOf(error: unknown): CompactionErrorCause | undefined {
  if (!ShadowlogError.isInstance(error)) return undefined;
  const provider = error as Partial<{ kind: unknown; retryable: unknown; contextOverflow: unknown }>;
  return {
    code: error.code,
    ...(typeof provider.kind === 'string' ? { kind: provider.kind } : {}),
    ...(typeof provider.retryable === 'boolean' ? { retryable: provider.retryable } : {}),
    ...(typeof provider.contextOverflow === 'boolean' ? { contextOverflow: provider.contextOverflow } : {}),
  };
}

async function planAndCommit(
  input: TransactionInput,
  strategy: CompactionStrategy,
  compactionId: string,
  committing: () => void,
): Promise<CompactionOutcome> {
  const { log, selection } = input;
  const clock = input.now ?? Date.now;
  const strategyInput: StrategyInput = {
    log,
    selection,
    nodes: selection.seqs.map((seq) => log.fold.node(seq) as SurfaceNode),
    compactionId,
    trigger: input.trigger,
    summarizer: input.summarizer,
    maxSummaryTokens: input.maxSummaryTokens,
    tokensBefore: input.tokensBefore,
    measureAfter: input.measureAfter,
    priceOfSummary: input.priceOfSummary,
    priceOfData: input.priceOfData,
    signal: input.signal,
    now: clock,
    startedAt: clock(),
  };
  // 4. The strategy makes the replacement (a summarizer call, a provider's compaction, or none).
  const plan = await strategy.plan(strategyInput).catch((error: unknown) => {
    if (error instanceof Stop) throw error;
    if (error instanceof StrategyFailure) throw new Stop(error.reason, error.message, error.source);
    if (input.signal.aborted) throw new Stop('cancelled', `the compaction was cancelled while the ${strategy.name} strategy ran`);
    throw new Stop('summary', `the ${strategy.name} strategy failed: ${messageOf(error)}`, error);
  });
  if (input.signal.aborted) throw new Stop('cancelled', 'the compaction was cancelled after the summary');

  // 5. Re-validate: unrelated appends are fine, a change to the selection is not.
  const problem = strategy.problem(log.fold, selection);
  if (problem !== undefined) throw new Stop('changed', `the surface changed while summarizing: ${problem}`);

  // 6. The metering events and the replacing nodes, in one atomic batch.
  committing();
  const firstSeq = log.nextSeq;
  const appended: readonly LogEvent[] = await log.append(plan.drafts(firstSeq));
  const replacementSeqs = appended.filter((event) => event.sourceEventSeqs !== undefined).map((event) => event.seq);
  return {
    status: 'compacted',
    compactionId,
    strategy: strategy.name,
    trigger: input.trigger,
    shadowedSeqs: selection.seqs,
    summarySeq: replacementSeqs[0] as number,
    replacementSeqs,
    tokensBefore: input.tokensBefore,
    tokensAfter: plan.tokensAfter,
  };
}

/** Why `selection` is not (or no longer) a run of consecutive current surface nodes, if it is not. */
export { rangeProblem } from './select-range-problem.js';

function failed(reason: CompactionFailure, message: string): CompactionOutcome {
  return { status: 'failed', reason, message, orphaned: false };
}
