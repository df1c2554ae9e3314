// What a compaction capability is made with, and what a manual compaction returns.

import type { LanguageModel } from '../providers/language-model.js';
import type { CompactionNotice } from './compaction-notice.js';
import type { CompactionConfig } from './policy.js';
import type { NativeCompaction } from './strategies/native-compactions.js';
import type { CompactionStrategy } from './strategies/strategy.js';
import type { Summarizer } from './summarizer.js';
import type { ToolResultPruner } from './tool-result-pruner.js';
import type { CompactionOutcome } from './transaction.js';

export interface CompactionOptions {
  /**
   * The policy (SPEC §6); bad values are refused with a ConfigError. A configuration read from
   * JSON goes through readCompactionConfig first.
   */
  readonly config?: CompactionConfig;
  /** Who writes summaries; overrides the configuration's `summarizer` choice. */
  readonly summarizer?: Summarizer;
  /** The model a configuration's `summarizer: {provider, model}` names. */
  readonly summarizerModel?: LanguageModel;
  /** Prune long tool results first (SPEC §7 step 2). */
  readonly pruner?: ToolResultPruner;
  /** What replaces a compacted range; overrides the configuration's `strategy`. */
  readonly strategy?: CompactionStrategy;
  /** The providers' own compactions `native` and `auto` choose from (default: those shadowlog knows). */
  readonly natives?: readonly NativeCompaction[];
  /** Told each prune and each compaction (done or failed), before the step goes on; awaited. */
  readonly onNotice?: (notice: CompactionNotice) => void | Promise<void>;
}

/** A manual compaction that found no range worth shadowing: it wrote nothing. */
export interface NothingToCompact {
  readonly status: 'nothing';
  readonly message: string;
}

export type ManualOutcome = CompactionOutcome | NothingToCompact;

/** What a manual compaction would do now (CompactionCapability.previewNow). */
export type CompactionPreview =
  | NothingToCompact
  | { readonly status: 'ready'; readonly shadowedSeqs: readonly number[]; readonly tokensBefore: number };
