// Turns a policy's strategy name into the strategy that runs for one model: `native` must be
// offered by the model's provider (else a typed error naming it), `auto` is native where it is
// offered and summary elsewhere.

import { ShadowlogError } from '../../log/errors.js';
import type { LanguageModel } from '../../providers/language-model.js';
import { createMaskStrategy } from './mask-strategy.js';
import { type NativeCompaction, nativeStrategyFor } from './native-compactions.js';
import { createRecallStrategy } from './recall-strategy.js';
import type { CompactionStrategy, StrategyName } from './strategy.js';
import { createSummaryStrategy } from './summary-strategy.js';

/** How to make the strategies that need nothing from the provider (default: with their default options). */
export interface StrategyFactories {
  readonly summary?: () => CompactionStrategy;
  readonly mask?: () => CompactionStrategy;
  readonly recall?: () => CompactionStrategy;
}

export interface ResolveStrategyOptions {
  readonly model: LanguageModel;
  readonly natives?: readonly NativeCompaction[];
  readonly factories?: StrategyFactories;
}

export class NativeCompactionUnavailableError extends ShadowlogError {
  constructor(
    readonly provider: string,
    readonly model: string,
  ) {
    super(
      'NATIVE_COMPACTION_UNAVAILABLE',
      `strategy "native" needs the provider's own compaction, but ${provider} offers none for ${model}; choose strategy "auto" to fall back to "summary" where a provider has none, or "summary", "mask" or "recall"`,
    );
  }
}

export function resolveStrategy(name: StrategyName, options: ResolveStrategyOptions): CompactionStrategy {
  const { model, factories = {} } = options;
  switch (name) {
    case 'native': {
      const native = nativeStrategyFor(model, options.natives);
      if (native === undefined) throw new NativeCompactionUnavailableError(model.provider, model.modelId);
      return native;
    }
    case 'auto': {
      // Summary also where the provider has a compaction but not for so small a range (Anthropic's trigger minimum).
      const summary = factories.summary ?? createSummaryStrategy;
      return nativeStrategyFor(model, options.natives, { fallback: summary }) ?? summary();
    }
    case 'summary':
      return (factories.summary ?? createSummaryStrategy)();
    case 'mask':
      return (factories.mask ?? createMaskStrategy)();
    case 'recall':
      return (factories.recall ?? createRecallStrategy)();
  }
}
