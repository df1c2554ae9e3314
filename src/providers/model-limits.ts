// Context window and default output budget of the models the adapters know, so that the meter
// and the compaction trigger need no configuration for common models.

import { ConfigError } from '../log/errors.js';
import type { ModelLimits } from './language-model.js';

/** Matched by prefix, longest first, so dated ids (claude-sonnet-4-5-20250929) find their family. */
const KNOWN_LIMITS: Readonly<Record<string, ModelLimits>> = {
  'gpt-4o': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'gpt-4o-mini': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'gpt-4.1': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  o3: { contextWindow: 200_000, defaultMaxOutputTokens: 100_000 },
  'o4-mini': { contextWindow: 200_000, defaultMaxOutputTokens: 100_000 },
  'gpt-5': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000 },
  'gpt-5-mini': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000 },
  'gpt-5-nano': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000 },
  'gpt-5-chat': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'deepseek-chat': { contextWindow: 128_000, defaultMaxOutputTokens: 4_096 },
  'deepseek-reasoner': { contextWindow: 128_000, defaultMaxOutputTokens: 32_768 },
  'claude-opus-4': { contextWindow: 200_000, defaultMaxOutputTokens: 32_000 },
  'claude-opus-4-5': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-sonnet-4': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-3-7-sonnet': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-3-5-haiku': { contextWindow: 200_000, defaultMaxOutputTokens: 8_192 },
  'claude-haiku-4-5': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
};

const PREFIXES = Object.keys(KNOWN_LIMITS).sort((a, b) => b.length - a.length);

/** The models the table knows, by family prefix, in the table's order. */
export function knownModelFamilies(): ReadonlyArray<readonly [string, ModelLimits]> {
  return Object.entries(KNOWN_LIMITS);
}

export interface ModelLimitsOverride {
  readonly contextWindow?: number;
  readonly defaultMaxOutputTokens?: number;
}

/** The built-in limits of a model id, or undefined for a model this table does not know. */
export function knownModelLimits(modelId: string): ModelLimits | undefined {
  // A family prefix matches the id itself or the id followed by a version, date or tag.
  const prefix = PREFIXES.find((candidate) => modelId.startsWith(candidate) && /^(?:$|[-.:@])/.test(modelId.slice(candidate.length)));
  return prefix === undefined ? undefined : KNOWN_LIMITS[prefix];
}

/** Limits for a model: the override's fields where given, else the table's. */
export function resolveModelLimits(modelId: string, override: ModelLimitsOverride = {}): ModelLimits {
  for (const key of ['contextWindow', 'defaultMaxOutputTokens'] as const) {
    const value = override[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new ConfigError(key, `${key} must be a positive integer, found ${String(value)}`);
    }
  }
  const known = knownModelLimits(modelId);
  const contextWindow = override.contextWindow ?? known?.contextWindow;
  const defaultMaxOutputTokens = override.defaultMaxOutputTokens ?? known?.defaultMaxOutputTokens;
  if (contextWindow === undefined || defaultMaxOutputTokens === undefined) {
    throw new ConfigError(
      contextWindow === undefined ? 'contextWindow' : 'defaultMaxOutputTokens',
      `no built-in limits for model ${JSON.stringify(modelId)}; pass contextWindow and defaultMaxOutputTokens in the model options`,
    );
  }
  if (defaultMaxOutputTokens > contextWindow) {
    throw new ConfigError(
      'defaultMaxOutputTokens',
      `defaultMaxOutputTokens (${defaultMaxOutputTokens}) must not exceed contextWindow (${contextWindow}) for model ${JSON.stringify(modelId)}`,
    );
  }
  return { contextWindow, defaultMaxOutputTokens };
}
