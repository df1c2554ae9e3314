// The compaction policy's configuration (SPEC §6): what a user writes (CompactionConfig) and
// what parseCompactionConfig makes of it (CompactionPolicyConfig, every default filled in).
// The defaults are a starting point with no evidence behind them; configure them per model.

import type { EstimatorName } from '../../meter/token-estimator.js';
import type { StrategyName } from '../strategies/strategy.js';

/** How much recent history a compaction keeps verbatim: a share of the message budget, or a token count. */
export type RetainSetting = { readonly kind: 'ratio'; readonly ratio: number } | { readonly kind: 'tokens'; readonly tokens: number };

/**
 * Who writes the summary of a compacted range.
 * - `session-model`: the model the session talks to (the default, and what `summarizer: {}` means).
 * - `model`: another model, named by exact provider and model id.
 * - `extractive`: no model call; a summary assembled from the shadowed messages themselves.
 */
export type SummarizerChoice =
  | { readonly kind: 'session-model' }
  | { readonly kind: 'model'; readonly provider: string; readonly model: string }
  | { readonly kind: 'extractive' };

/**
 * The `summarizer` key as written. `{provider, model}` names a model (both or neither);
 * `{kind: 'extractive'}` chooses the extractive summarizer explicitly; `{}` or no key at all
 * is the session's own model. `kind` may also be spelled out as 'model' or 'session-model'.
 */
export type SummarizerConfig =
  | { readonly provider: string; readonly model: string; readonly kind?: 'model' }
  | { readonly kind: 'extractive' }
  | { readonly kind?: 'session-model' };

/**
 * Which tool results the `mask` strategy keeps whole: those within the policy's retained tail
 * (`tail`, the default), the newest `results` of them, or the newest that fit in `tokens`.
 */
export type MaskSetting =
  | { readonly kind: 'tail' }
  | { readonly kind: 'results'; readonly results: number }
  | { readonly kind: 'tokens'; readonly tokens: number };

/** The `mask` key as written: keepResults or keepTokens (exclusive); neither keeps the policy's retained tail. */
export interface MaskConfig {
  readonly keepResults?: number;
  readonly keepTokens?: number;
}

/** Overrides for one exact provider and model id. */
export interface ModelPolicyConfig {
  readonly provider: string;
  readonly model: string;
  readonly thresholdRatio?: number;
  readonly headroomTokens?: number;
  /** Replaces the general retainRatio or retainTokens, whichever was set; exclusive with retainTokens. */
  readonly retainRatio?: number;
  readonly retainTokens?: number;
  readonly estimator?: EstimatorName;
  /** The strategy for this model; replaces the general one. */
  readonly strategy?: StrategyName;
  /** Tokens the provider counts per estimated token, for this model; replaces the measured factor of its family. */
  readonly calibrationFactor?: number;
}

/** The configuration as a user writes it; every key is optional. */
export interface CompactionConfig {
  /** What the policy was chosen for (`tune` writes its window and sessions here): a note, read and otherwise ignored. */
  readonly chosenFor?: Readonly<Record<string, unknown>>;
  /** Compact when the surface reaches this share of the context window; in (0, 1]. Default 0.7 (docs/evidence.md). */
  readonly thresholdRatio?: number;
  /** Tokens kept free below the message budget, whatever the ratio says; integer ≥ 0. Default 0 (docs/evidence.md). */
  readonly headroomTokens?: number;
  /** Share of the message budget kept verbatim; in (0, 1). Default 0.05 (docs/evidence.md) unless retainTokens is given. */
  readonly retainRatio?: number;
  /** Tokens kept verbatim; integer ≥ 0. Exclusive with retainRatio. */
  readonly retainTokens?: number;
  readonly modelPolicies?: readonly ModelPolicyConfig[];
  readonly summarizer?: SummarizerConfig;
  /** The summary's output token limit; positive integer. Default 8,192. */
  readonly maxSummaryTokens?: number;
  /** Further compactions per step while still above the threshold; integer ≥ 0. Default 1. */
  readonly compactionRetries?: number;
  /** Retries of a request the provider rejected as too long; integer ≥ 0. Default 1. */
  readonly maxOverflowRetries?: number;
  /** False: compact only when asked (manual compaction). Default true. */
  readonly auto?: boolean;
  /** How the surface is measured when no model policy names an estimator. Default 'script-aware'. */
  readonly estimator?: EstimatorName;
  /**
   * What replaces a compacted range: 'summary' (a structured summary), 'mask' (old tool results
   * become placeholders), 'recall' (a handle and the recall tool), 'native' (the provider's own
   * compaction), 'auto' (native where the provider offers it, else summary). Default 'summary'.
   */
  readonly strategy?: StrategyName;
  /** For the `mask` strategy: which recent tool results stay whole. Default: those in the retained tail. */
  readonly mask?: MaskConfig;
  /**
   * Tokens the provider counts per estimated token, for every model without a model policy
   * that sets one. Absent by default: each model family's factor, measured (meter/calibration-factors.ts).
   */
  readonly calibrationFactor?: number;
}

/** A parsed model policy: only the keys it overrides are present. */
export interface ModelPolicy {
  readonly provider: string;
  readonly model: string;
  readonly thresholdRatio?: number;
  readonly headroomTokens?: number;
  readonly retain?: RetainSetting;
  readonly estimator?: EstimatorName;
  readonly strategy?: StrategyName;
  readonly calibrationFactor?: number;
}

/** A validated configuration with every default applied. */
export interface CompactionPolicyConfig {
  readonly thresholdRatio: number;
  readonly headroomTokens: number;
  readonly retain: RetainSetting;
  readonly modelPolicies: readonly ModelPolicy[];
  readonly summarizer: SummarizerChoice;
  readonly maxSummaryTokens: number;
  readonly compactionRetries: number;
  readonly maxOverflowRetries: number;
  readonly auto: boolean;
  readonly estimator: EstimatorName;
  readonly strategy: StrategyName;
  readonly mask: MaskSetting;
  /** A configured calibration factor for every model; absent: each family's measured factor. */
  readonly calibrationFactor?: number;
}

/** Frozen, because parseCompactionConfig(undefined) hands out this very object. */
export const COMPACTION_DEFAULTS: CompactionPolicyConfig = Object.freeze({
  thresholdRatio: 0.7,
  headroomTokens: 0,
  retain: Object.freeze({ kind: 'ratio', ratio: 0.05 }),
  modelPolicies: Object.freeze([]),
  summarizer: Object.freeze({ kind: 'session-model' }),
  maxSummaryTokens: 8_192,
  compactionRetries: 1,
  maxOverflowRetries: 1,
  auto: true,
  estimator: 'script-aware',
  strategy: 'summary',
  mask: Object.freeze({ kind: 'tail' }),
});
