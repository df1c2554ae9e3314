// The provider hook for the `native` strategy: each entry says which models a provider's own
// compaction serves and makes the strategy for one. `auto` resolves to the first entry that
// offers compaction for the session's model, and to `summary` where none does.

import type { LanguageModel } from '../../providers/language-model.js';
import { createNativeStrategy, type NativeStrategyOptions } from './native-strategy.js';
import type { CompactionStrategy } from './strategy.js';

export interface NativeCompaction {
  /** The provider whose compaction this is, as LanguageModel.provider names it. */
  readonly provider: string;
  /** Whether this provider compacts for `model` (its provider, wire protocol, model id). */
  offers(model: LanguageModel): boolean;
  /** The strategy that asks `model`'s provider to compact (`fallback`: for a range the provider will not compact). */
  create(model: LanguageModel, options?: NativeStrategyOptions): CompactionStrategy;
}

/** An adapter's own compaction (LanguageModel.nativeCompaction), for the provider it speaks for. */
function adapterCompaction(provider: string): NativeCompaction {
  return {
    provider,
    offers: (model) => model.provider === provider && model.nativeCompaction !== undefined,
    create: (model, options) => createNativeStrategy(model, options),
  };
}

/** The providers' own compactions shadowlog knows: Anthropic's compaction block, the Responses API's compaction item. */
export const NATIVE_COMPACTIONS: readonly NativeCompaction[] = [adapterCompaction('anthropic'), adapterCompaction('openai-responses')];

/** The native strategy for `model`, or undefined when no provider entry offers one. */
export function nativeStrategyFor(
  model: LanguageModel,
  natives: readonly NativeCompaction[] = NATIVE_COMPACTIONS,
  options?: NativeStrategyOptions,
): CompactionStrategy | undefined {
  return natives.find((native) => native.offers(model))?.create(model, options);
}
