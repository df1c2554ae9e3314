// The provider hook for the `native` strategy: each entry says which models a provider's own
// compaction serves and makes the strategy for one. `auto` resolves to the first entry that
// offers compaction for the session's model, and to `summary` where none does.

import type { LanguageModel } from '../../providers/language-model.js';
import type { CompactionStrategy } from './strategy.js';

export interface NativeCompaction {
  /** The provider whose compaction this is, as LanguageModel.provider names it. */
  readonly provider: string;
  /** Whether this provider compacts for `model` (its provider, wire protocol, model id). */
  offers(model: LanguageModel): boolean;
  /** The strategy that asks `model`'s provider to compact. */
  create(model: LanguageModel): CompactionStrategy;
}

/** The providers' own compactions shadowlog knows. */
export const NATIVE_COMPACTIONS: readonly NativeCompaction[] = [];

/** The native strategy for `model`, or undefined when no provider entry offers one. */
export function nativeStrategyFor(
  model: LanguageModel,
  natives: readonly NativeCompaction[] = NATIVE_COMPACTIONS,
): CompactionStrategy | undefined {
  return natives.find((native) => native.offers(model))?.create(model);
}
