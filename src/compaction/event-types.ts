// Compaction's own log-only event types (SPEC §7, §9). They are written with `ignorable:
// true`, so a reader without compaction mounted still stores and replays them; a reader
// with it mounted also checks their data.

import type { EventTypeDefinition } from '../log/event-types.js';
import { arrayOf, type Checker, fail, isCount, isNonEmptyString, isObject, isSeq, isString, objectWith } from '../log/shape.js';
import type { CompactionConfig } from './policy/policy-config.js';
import type { PolicyCalibration } from './policy/resolve-policy.js';
import { checkSummarySections, type SummarySections } from './summary-sections.js';

export const COMPACTION_START = 'compaction/start';
export const COMPACTION_SUMMARY = 'compaction/summary';
export const COMPACTION_PRUNE = 'compaction/prune';
export const COMPACTION_MASK = 'compaction/mask';
export const COMPACTION_END = 'compaction/end';
export const COMPACTION_OVER_THRESHOLD = 'compaction/over-threshold';
export const COMPACTION_POLICY = 'compaction/policy';

export const TRIGGERS = ['pressure', 'context-overflow', 'manual'] as const;
export type CompactionTrigger = (typeof TRIGGERS)[number];

export interface CompactionStartData {
  readonly compactionId: string;
  readonly trigger: CompactionTrigger;
  readonly turn: number | null;
  /** The seq of the compaction/policy event this compaction ran under (absent before policies were recorded). */
  readonly policySeq?: number;
  /** The strategy that makes the replacement (absent on events written before strategies existed: summary). */
  readonly strategy?: string;
}

/**
 * The policy compaction runs under in a session, appended when compaction is first used in a
 * lifecycle and whenever the resolved numbers change: the configuration as written (every key
 * explicit) and what it resolved to for the session's model, so that an auditor can see why a
 * compaction fired where it did, and `compact` can run under the same policy later.
 */
export interface CompactionPolicyData {
  readonly config: CompactionConfig;
  readonly provider: string;
  readonly model: string;
  readonly contextWindow: number;
  readonly reserve: number;
  /** The price of what every request carries besides the surface (tool definitions, parameters). */
  readonly fixedTokens: number;
  readonly messageBudget: number;
  readonly pressureBudget: number;
  readonly threshold: number;
  readonly retain: number;
  readonly decidedBy: 'ratio' | 'headroom';
  readonly estimator: string;
  /**
   * The strategy compactions run with for this model, resolved (`auto` named as what it became);
   * absent on events written before strategies existed, which summarized.
   */
  readonly strategy?: string;
  /** How the meter scales estimates to the provider's counts (absent in policies recorded before calibration). */
  readonly calibration?: PolicyCalibration;
}

export interface CompactionSummaryData {
  readonly compactionId: string;
  readonly shadowedSeqs: number[];
  /** The price of everything shadowed, by the session's meter. */
  readonly shadowedTokenCount: number;
  /** The price of each shadowed node, in the order of shadowedSeqs (the meter anchors on these). */
  readonly shadowedTokens: number[];
  readonly provider: string;
  readonly model: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | null;
  /** The digest of the summarizer's request; null for the extractive summarizer, which sends none. */
  readonly requestDigest: string | null;
  readonly rendererVersion: string | null;
  /** native: the provider's own compaction made the replacement (strategy native). */
  readonly summarizer: 'model' | 'extractive' | 'native';
  readonly trigger: CompactionTrigger;
  /** The surface's price before and (estimated) after the replacement. */
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly summaryTokens: number;
  readonly durationMs: number;
  /** The summary as data (absent on events written before sections existed, and for text-only summarizers). */
  readonly sections?: SummarySections;
  /** The size the summary aimed at; a model summarizer's request states it, so replay needs it. */
  readonly targetTokens?: number;
  /** 'recall' when the replacement is a recall handle around the summary (absent for a plain summary). */
  readonly strategy?: 'recall';
  /** Native: the model/request whose tools the compaction request carried (replay sends the same); absent when none. */
  readonly toolsSeq?: number;
  /** Native: the provider's ids for the compaction's answer and request. */
  readonly responseId?: string;
  readonly requestId?: string;
}

export interface CompactionPruneData {
  readonly shadowedSeqs: [number];
  readonly shadowedTokenCount: number;
  readonly charsBefore: number;
  readonly charsAfter: number;
  /** True when the model had not been sent the whole result before it was pruned (absent otherwise). */
  readonly unseen?: true;
}

/** One tool result the `mask` strategy replaced by a placeholder; written just before the placeholder. */
export interface CompactionMaskData {
  readonly compactionId: string;
  readonly shadowedSeqs: [number];
  /** The original's price, by the session's meter. */
  readonly shadowedTokenCount: number;
  readonly replacementTokenCount: number;
  /** The tool whose result it was, and its size in code points of text. */
  readonly tool: string;
  readonly chars: number;
}

/** What caused a failed compaction, when an error did: a provider's error keeps its classification. */
export interface CompactionErrorCause {
  readonly code: string;
  /** The provider error's kind (rate-limit, context-overflow, …), when a provider failed. */
  readonly kind?: string;
  readonly retryable?: boolean;
  readonly contextOverflow?: boolean;
}

export interface CompactionEndData {
  readonly compactionId: string;
  readonly error?: { readonly reason: string; readonly message: string; readonly cause?: CompactionErrorCause };
}

const trigger = (value: unknown, field: string, seq: number | undefined) => {
  if (typeof value !== 'string' || !(TRIGGERS as readonly string[]).includes(value))
    fail(field, `one of ${TRIGGERS.join(', ')}`, value, seq);
};
const turnOrNull = (value: unknown, field: string, seq: number | undefined) => {
  if (value !== null && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 1))
    fail(field, 'a turn number or null', value, seq);
};
const seqs = arrayOf(isSeq);
const isTrue = (value: unknown, field: string, seq: number | undefined) => {
  if (value !== true) fail(field, 'true (or the field left out)', value, seq);
};

const counts = arrayOf(isCount);
const usageOrNull: Checker = (value, field, seq) => {
  if (value !== null) objectWith({ inputTokens: isCount, outputTokens: isCount })(value, field, seq);
};

function definition(type: string, check: Checker, metering = false, checkNew?: Checker): EventTypeDefinition {
  const validate = (data: Record<string, unknown>, seq: number | undefined) => check(data, 'data', seq);
  const validateNew =
    checkNew === undefined ? {} : { validateNew: (data: Record<string, unknown>, seq: number | undefined) => checkNew(data, 'data', seq) };
  // Summary and prune are written with the replacement they measure: the fold holds each
  // shadowedSeqs list to the nodes that replacement shadows.
  return metering
    ? { type, validate, ...validateNew, shadowedSeqs: (data) => data.shadowedSeqs as number[] }
    : { type, validate, ...validateNew };
}

// The counts below were once written unchecked, and an earlier shadowlog wrote a negative
// tokensAfter into logs that must still read: every new event is held to them (each a
// non-negative integer where present), a stored one is read as it is and verify warns of it.
const summaryCounts = objectWith(
  {},
  {
    shadowedTokens: counts,
    tokensBefore: isCount,
    tokensAfter: isCount,
    summaryTokens: isCount,
    durationMs: isCount,
    usage: usageOrNull,
    maxTokens: isCount,
    sourceTokensBefore: isCount,
  },
);
const policyCounts = objectWith({}, { messageBudget: isCount, pressureBudget: isCount });

export const COMPACTION_EVENT_TYPES: readonly EventTypeDefinition[] = [
  definition(
    COMPACTION_START,
    objectWith({ compactionId: isNonEmptyString, trigger, turn: turnOrNull }, { policySeq: isSeq, strategy: isNonEmptyString }),
  ),
  definition(
    COMPACTION_SUMMARY,
    objectWith(
      { compactionId: isNonEmptyString, shadowedSeqs: seqs, shadowedTokenCount: isCount, provider: isString, model: isString },
      { sections: checkSummarySections, targetTokens: isCount, toolsSeq: isSeq },
    ),
    true,
    summaryCounts,
  ),
  definition(
    COMPACTION_PRUNE,
    objectWith({ shadowedSeqs: seqs, shadowedTokenCount: isCount, charsBefore: isCount, charsAfter: isCount }, { unseen: isTrue }),
    true,
  ),
  definition(
    COMPACTION_MASK,
    objectWith({
      compactionId: isNonEmptyString,
      shadowedSeqs: seqs,
      shadowedTokenCount: isCount,
      replacementTokenCount: isCount,
      tool: isString,
      chars: isCount,
    }),
    true,
  ),
  definition(COMPACTION_END, objectWith({ compactionId: isNonEmptyString }, { error: objectWith({ message: isString }) })),
  definition(COMPACTION_OVER_THRESHOLD, objectWith({ tokens: isCount, threshold: isCount })),
  definition(
    COMPACTION_POLICY,
    objectWith(
      {
        config: isObject,
        provider: isString,
        model: isString,
        contextWindow: isCount,
        reserve: isCount,
        fixedTokens: isCount,
        threshold: isCount,
        retain: isCount,
      },
      { strategy: isNonEmptyString },
    ),
    false,
    policyCounts,
  ),
];
