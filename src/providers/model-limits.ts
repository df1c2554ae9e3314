// Context window and default output budget of the models the adapters know, so that the meter
// and the compaction trigger need no configuration for common models. The table is data: a
// user extends it with entries of the same shape (a JSON file; see model-limits-file.ts), and
// every lookup can say which entry it used.

import { ConfigError } from '../log/errors.js';
import type { ModelLimits } from './language-model.js';

export interface ModelLimitsEntry {
  readonly contextWindow: number;
  readonly defaultMaxOutputTokens: number;
  /**
   * false: the model refuses a temperature (OpenAI's reasoning models take only their default;
   * Claude from Opus 4.7 on takes none), so a harness that sets one is refused when it is built.
   */
  readonly acceptsTemperature?: boolean;
}

/** Entries by model id or family prefix. */
export type ModelLimitsTable = Readonly<Record<string, ModelLimitsEntry>>;

/** Entries a user added, and where they come from (a file's path), for messages that name them. */
export interface UserModelLimits {
  readonly source: string;
  readonly entries: ModelLimitsTable;
}

/** Matched by prefix, longest first, so dated ids (claude-sonnet-4-5-20250929) find their family. */
const BUILT_IN: ModelLimitsTable = {
  'gpt-4o': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'gpt-4o-mini': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'gpt-4.1': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, defaultMaxOutputTokens: 32_768 },
  o3: { contextWindow: 200_000, defaultMaxOutputTokens: 100_000, acceptsTemperature: false },
  'o4-mini': { contextWindow: 200_000, defaultMaxOutputTokens: 100_000, acceptsTemperature: false },
  'gpt-5': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
  'gpt-5-mini': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
  'gpt-5-nano': { contextWindow: 400_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
  'gpt-5-chat': { contextWindow: 128_000, defaultMaxOutputTokens: 16_384 },
  'deepseek-chat': { contextWindow: 128_000, defaultMaxOutputTokens: 4_096 },
  'deepseek-reasoner': { contextWindow: 128_000, defaultMaxOutputTokens: 32_768 },
  'claude-opus-4': { contextWindow: 200_000, defaultMaxOutputTokens: 32_000 },
  'claude-opus-4-5': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-opus-4-6': { contextWindow: 1_000_000, defaultMaxOutputTokens: 128_000 },
  'claude-opus-4-7': { contextWindow: 1_000_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
  'claude-opus-4-8': { contextWindow: 1_000_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
  'claude-sonnet-4': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-3-7-sonnet': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
  'claude-3-5-haiku': { contextWindow: 200_000, defaultMaxOutputTokens: 8_192 },
  'claude-haiku-4-5': { contextWindow: 200_000, defaultMaxOutputTokens: 64_000 },
};

export const BUILT_IN_SOURCE = 'the built-in table';

/** The models the table knows, by family prefix, in the table's order. */
export function knownModelFamilies(): ReadonlyArray<readonly [string, ModelLimits]> {
  return Object.entries(BUILT_IN).map(([prefix, entry]) => [prefix, limitsOf(entry)] as const);
}

export interface ModelLimitsOverride {
  readonly contextWindow?: number;
  readonly defaultMaxOutputTokens?: number;
}

export interface ModelLimitsMatch {
  /** The key that matched: the model id itself, or the family prefix it starts with. */
  readonly prefix: string;
  readonly entry: ModelLimitsEntry;
  /** BUILT_IN_SOURCE, or the source of the user's entries. */
  readonly source: string;
}

/**
 * The entry for a model id: the longest key that is the id or a prefix of it followed by a
 * version, date or tag; a user's entry wins over a built-in one of the same key.
 */
export function matchModelLimits(modelId: string, user?: UserModelLimits): ModelLimitsMatch | undefined {
  const candidates = [
    ...(user === undefined ? [] : Object.entries(user.entries).map(([prefix, entry]) => ({ prefix, entry, source: user.source }))),
    ...Object.entries(BUILT_IN).map(([prefix, entry]) => ({ prefix, entry, source: BUILT_IN_SOURCE })),
  ];
  let best: ModelLimitsMatch | undefined;
  for (const candidate of candidates) {
    if (!matchesFamily(modelId, candidate.prefix)) continue;
    if (best === undefined || candidate.prefix.length > best.prefix.length) best = candidate;
  }
  return best;
}

/** A family prefix matches the id itself or the id followed by a version, date or tag. */
function matchesFamily(modelId: string, prefix: string): boolean {
  return modelId.startsWith(prefix) && /^(?:$|[-.:@])/.test(modelId.slice(prefix.length));
}

/** The built-in limits of a model id, or undefined for a model this table does not know. */
export function knownModelLimits(modelId: string): ModelLimits | undefined {
  const match = matchModelLimits(modelId);
  return match === undefined ? undefined : limitsOf(match.entry);
}

/** Limits for a model: the override's fields where given, else the user's entries', else the table's. */
export function resolveModelLimits(modelId: string, override: ModelLimitsOverride = {}, user?: UserModelLimits): ModelLimits {
  for (const key of ['contextWindow', 'defaultMaxOutputTokens'] as const) {
    const value = override[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
      throw new ConfigError(key, `${key} must be a positive integer, found ${String(value)}`);
    }
  }
  const known = matchModelLimits(modelId, user)?.entry;
  const contextWindow = override.contextWindow ?? known?.contextWindow;
  const defaultMaxOutputTokens = override.defaultMaxOutputTokens ?? known?.defaultMaxOutputTokens;
  if (contextWindow === undefined || defaultMaxOutputTokens === undefined) {
    throw new ConfigError(
      contextWindow === undefined ? 'contextWindow' : 'defaultMaxOutputTokens',
      `no built-in limits for model ${JSON.stringify(modelId)}; pass contextWindow and defaultMaxOutputTokens in the model options (shadowlog chat: --context-window and --max-output-tokens), or add the model to a limits file (--model-limits FILE or SHADOWLOG_MODEL_LIMITS)`,
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

/**
 * Where the limits of a model come from, in words: "entry claude-opus-4 of the built-in table",
 * "the model options", or both when the options override one field of an entry.
 */
export function describeModelLimits(modelId: string, override: ModelLimitsOverride = {}, user?: UserModelLimits): string {
  const match = matchModelLimits(modelId, user);
  const given = (['contextWindow', 'defaultMaxOutputTokens'] as const).filter((key) => override[key] !== undefined);
  const entry =
    match === undefined
      ? undefined
      : `entry ${JSON.stringify(match.prefix)} of ${match.source}${match.prefix === modelId ? '' : ` (matched by prefix)`}`;
  if (given.length === 2 || entry === undefined) return 'the model options';
  if (given.length === 0) return entry;
  return `${given[0]} from the model options, the rest from ${entry}`;
}

/** Whether the model takes a temperature; true unless its entry says otherwise. */
export function acceptsTemperature(modelId: string, user?: UserModelLimits): boolean {
  return matchModelLimits(modelId, user)?.entry.acceptsTemperature !== false;
}

function limitsOf(entry: ModelLimitsEntry): ModelLimits {
  return { contextWindow: entry.contextWindow, defaultMaxOutputTokens: entry.defaultMaxOutputTokens };
}
