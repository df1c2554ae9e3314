// Choosing a way to count tokens by name (SPEC §10). The heuristics are at hand synchronously;
// the exact tokenizers load on first use, so createEstimator is asynchronous.

import { ConfigError } from '../log/errors.js';
import { chars4Estimator } from './chars4-estimator.js';
import { scriptAwareEstimator } from './script-aware.js';
import type { EstimatorName, TokenEstimator } from './token-estimator.js';
import { loadTokenizer, TOKENIZER_NAMES } from './tokenizers.js';

export type HeuristicEstimatorName = 'chars4' | 'script-aware';

const HEURISTICS: Readonly<Record<HeuristicEstimatorName, TokenEstimator>> = {
  chars4: chars4Estimator,
  'script-aware': scriptAwareEstimator,
};

export const HEURISTIC_ESTIMATOR_NAMES: readonly HeuristicEstimatorName[] = ['chars4', 'script-aware'];

/** Every estimator, heuristics first. */
export const ESTIMATOR_NAMES: readonly EstimatorName[] = [...HEURISTIC_ESTIMATOR_NAMES, ...TOKENIZER_NAMES];

/** The estimator a policy gets when it names none. */
export const DEFAULT_ESTIMATOR: HeuristicEstimatorName = 'script-aware';

export function isEstimatorName(value: unknown): value is EstimatorName {
  return typeof value === 'string' && (ESTIMATOR_NAMES as readonly string[]).includes(value);
}

export function isHeuristicEstimatorName(value: unknown): value is HeuristicEstimatorName {
  return typeof value === 'string' && (HEURISTIC_ESTIMATOR_NAMES as readonly string[]).includes(value);
}

/** A heuristic estimator, synchronously (no vocabulary to load). */
export function heuristicEstimator(name: HeuristicEstimatorName): TokenEstimator {
  return HEURISTICS[name];
}

/**
 * The estimator `name`. Tokenizers load on the first request for them; an unknown name is a
 * ConfigError, and a tokenizer whose package cannot load is a TokenizerUnavailableError.
 */
export async function createEstimator(name: EstimatorName): Promise<TokenEstimator> {
  if (isHeuristicEstimatorName(name)) return HEURISTICS[name];
  if (!isEstimatorName(name)) {
    throw new ConfigError(
      'estimator',
      `expected an estimator name (${ESTIMATOR_NAMES.join(', ')}), found ${JSON.stringify(name)}; ${DEFAULT_ESTIMATOR} is the default`,
    );
  }
  return loadTokenizer(name);
}
