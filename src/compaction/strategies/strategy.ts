// The strategy interface: a strategy decides what replaces the nodes a compaction shadows.
// Every strategy runs inside the same transaction (transaction.ts): the lock first, then the
// strategy's plan, a re-validation of what it selected, one atomic batch whose metering events
// list every shadowed node, and the end marker.

import type { EventDraft, SurfaceType } from '../../log/event.js';
import type { SurfaceFold, SurfaceNode } from '../../log/surface-fold.js';
import type { SessionLog } from '../../store/session-log.js';
import type { CompactionTrigger } from '../event-types.js';
import type { Selection } from '../select-range.js';
import type { Summarizer } from '../summarizer.js';

/** The strategies a policy can name. `auto` is `native` where the provider offers it, else `summary`. */
export const STRATEGY_NAMES = ['summary', 'mask', 'recall', 'native', 'auto'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
/** What a strategy is once resolved for a model: `auto` is never one. */
export type ResolvedStrategyName = Exclude<StrategyName, 'auto'>;

export function isStrategyName(value: unknown): value is StrategyName {
  return typeof value === 'string' && (STRATEGY_NAMES as readonly string[]).includes(value);
}

/** What a strategy chooses from: the surface now, each node's price, and the policy's retained tail. */
export interface SelectInput {
  readonly nodes: readonly SurfaceNode[];
  readonly prices: readonly number[];
  /** Tokens the policy keeps verbatim at the end (0 when a provider has refused the request as too long). */
  readonly retain: number;
  /** Whether the model has been sent the node at this seq (a node on the surface now). */
  readonly sent: (seq: number) => boolean;
  /** The price the session's meter gives a node of this type with this data. */
  readonly priceOfData: (type: SurfaceType, data: object) => number;
}

/** What the transaction hands a strategy once it holds the lock. */
export interface StrategyInput {
  readonly log: SessionLog;
  readonly selection: Selection;
  /** The selected nodes, in surface order. */
  readonly nodes: readonly SurfaceNode[];
  readonly compactionId: string;
  readonly trigger: CompactionTrigger;
  readonly summarizer: Summarizer;
  readonly maxSummaryTokens: number;
  /** The surface's price now. */
  readonly tokensBefore: number;
  /**
   * The surface's price once the selection gives way to nodes the session's meter prices at
   * `replacementTokens` in all (the sum of priceOfSummary or priceOfData of each): measured as
   * the meter measures a surface, calibration included, never tokensBefore minus estimates.
   */
  readonly measureAfter: (replacementTokens: number) => number;
  /** The price the session's meter gives a user message with this text (a summary's node). */
  readonly priceOfSummary: (text: string) => number;
  /** The price the session's meter gives a node of this type with this data. */
  readonly priceOfData: (type: SurfaceType, data: object) => number;
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** The clock when the lock was taken (a summary records how long it took). */
  readonly startedAt: number;
}

/** A strategy's replacement, made while holding the lock and appended once the selection is re-validated. */
export interface StrategyPlan {
  /**
   * The batch to append: metering events and the replacing nodes they measure. `firstSeq` is the
   * seq the first draft will get, so that a replacing node can list its metering event.
   */
  readonly drafts: (firstSeq: number) => EventDraft[];
  /** The surface's estimated price once the batch is appended. */
  readonly tokensAfter: number;
}

/**
 * A failure of a strategy's plan that the transaction reports as such (reason `summary`: the
 * replacement could not be made), with the error behind it when there was one.
 */
export class StrategyFailure extends Error {
  constructor(
    message: string,
    readonly source?: unknown,
    readonly reason: 'summary' | 'cancelled' = 'summary',
  ) {
    super(message);
  }
}

export interface CompactionStrategy {
  readonly name: ResolvedStrategyName;
  /** What to shadow on this surface; undefined when nothing can be. */
  select(input: SelectInput): Selection | undefined;
  /** Why `selection` no longer holds on `fold`, if it does not (checked before the lock and before the append). */
  problem(fold: SurfaceFold, selection: Selection): string | undefined;
  /** Makes the replacement; throws StrategyFailure (or anything, reported as a failed summary). */
  plan(input: StrategyInput): Promise<StrategyPlan>;
  /**
   * The strategy that serves `selection` instead, when this one hands it on (before the lock, so
   * that compaction/start and the outcome name the strategy that ran); undefined: this one.
   */
  delegateFor?(selection: Selection, fold: SurfaceFold): CompactionStrategy | undefined;
}
