// parseCompactionConfig: checks a compaction configuration against SPEC §6 and fills in the
// defaults. Everything a user can get wrong is caught here, with the dotted path of the value.

import { ConfigError } from '../../log/errors.js';
import type { EstimatorName } from '../../meter/token-estimator.js';
import { STRATEGY_NAMES } from '../strategies/strategy.js';
import {
  childPath,
  describeFound,
  invalid,
  readBoolean,
  readChoice,
  readInteger,
  readNonEmptyString,
  readRatio,
  readRecord,
} from './config-checks.js';
import { ESTIMATOR_NAMES } from './estimator-names.js';
import {
  COMPACTION_DEFAULTS,
  type CompactionConfig,
  type CompactionPolicyConfig,
  type MaskSetting,
  type ModelPolicy,
  type ModelPolicyConfig,
  type RetainSetting,
  type SummarizerChoice,
} from './policy-config.js';

// Records keyed by the input types, so that adding a key to a type without accepting it here
// (or the reverse) does not compile.
const TOP_LEVEL_KEYS = Object.keys({
  thresholdRatio: true,
  headroomTokens: true,
  retainRatio: true,
  retainTokens: true,
  modelPolicies: true,
  summarizer: true,
  maxSummaryTokens: true,
  compactionRetries: true,
  maxOverflowRetries: true,
  auto: true,
  estimator: true,
  strategy: true,
  mask: true,
  calibrationFactor: true,
  chosenFor: true,
} satisfies Record<keyof CompactionConfig, true>);

const MODEL_POLICY_KEYS = Object.keys({
  provider: true,
  model: true,
  thresholdRatio: true,
  headroomTokens: true,
  retainRatio: true,
  retainTokens: true,
  estimator: true,
  strategy: true,
  calibrationFactor: true,
} satisfies Record<keyof ModelPolicyConfig, true>);

const SUMMARIZER_KEYS = ['kind', 'provider', 'model'] as const;
const SUMMARIZER_KINDS = ['session-model', 'model', 'extractive'] as const;

const FIX = {
  thresholdRatio: 'it is the share of the context window at which compaction starts, e.g. 0.8',
  headroomTokens: 'it is a number of tokens kept free below the message budget, e.g. 65536',
  retainRatio: 'it is the share of the message budget kept verbatim, e.g. 0.16 (or give retainTokens instead)',
  retainTokens: 'it is a number of tokens kept verbatim, e.g. 20000 (or give retainRatio instead)',
  maxSummaryTokens: 'it is the token limit of a summary, e.g. 8192',
  compactionRetries: 'it counts further compactions per step while still above the threshold; 0 means none, e.g. 1',
  maxOverflowRetries: 'it counts retries of a request the provider rejected as too long; 0 means none, e.g. 1',
  auto: 'false means compaction runs only when asked',
  calibrationFactor:
    'it is the tokens the provider counts per estimated token, e.g. 1.28; leave it out to use the measured factor of the model family',
} as const;

/** Every key but the retain pair, which is read together (the two are exclusive). */
type SingleKey = Exclude<keyof CompactionPolicyConfig, 'retain' | 'calibrationFactor'>;

const READERS: { readonly [Key in SingleKey]: (value: unknown, path: string) => CompactionPolicyConfig[Key] } = {
  thresholdRatio: (value, path) => readRatio(value, path, 'upToOne', FIX.thresholdRatio),
  headroomTokens: (value, path) => readInteger(value, path, 0, FIX.headroomTokens),
  modelPolicies: (value, path) => readModelPolicies(value, path),
  summarizer: (value, path) => readSummarizer(value, path),
  maxSummaryTokens: (value, path) => readInteger(value, path, 1, FIX.maxSummaryTokens),
  compactionRetries: (value, path) => readInteger(value, path, 0, FIX.compactionRetries),
  maxOverflowRetries: (value, path) => readInteger(value, path, 0, FIX.maxOverflowRetries),
  auto: (value, path) => readBoolean(value, path, FIX.auto),
  estimator: (value, path) => readEstimator(value, path),
  strategy: (value, path) => readChoice(value, path, STRATEGY_NAMES),
  mask: (value, path) => readMask(value, path),
};

/**
 * Checks a configuration read from JSON (or any value of unknown shape) and returns it typed as
 * written, for `createCompaction({config})`; a ConfigError names the first wrong value.
 */
export function readCompactionConfig(input: unknown): CompactionConfig {
  parseCompactionConfig(input);
  return (input ?? {}) as CompactionConfig;
}

/** Checks `input` (undefined means all defaults) and returns the configuration with defaults applied. */
export function parseCompactionConfig(input: unknown): CompactionPolicyConfig {
  if (input === undefined) return COMPACTION_DEFAULTS;
  const record = readRecord(input, '', 'the compaction configuration', TOP_LEVEL_KEYS);
  const read = <Key extends SingleKey>(key: Key): CompactionPolicyConfig[Key] =>
    record[key] === undefined ? COMPACTION_DEFAULTS[key] : READERS[key](record[key], key);
  return {
    thresholdRatio: read('thresholdRatio'),
    headroomTokens: read('headroomTokens'),
    retain: readRetain(record, '') ?? COMPACTION_DEFAULTS.retain,
    modelPolicies: read('modelPolicies'),
    summarizer: read('summarizer'),
    maxSummaryTokens: read('maxSummaryTokens'),
    compactionRetries: read('compactionRetries'),
    maxOverflowRetries: read('maxOverflowRetries'),
    auto: read('auto'),
    estimator: read('estimator'),
    strategy: read('strategy'),
    mask: read('mask'),
    ...(record.calibrationFactor === undefined
      ? {}
      : { calibrationFactor: readCalibrationFactor(record.calibrationFactor, 'calibrationFactor') }),
  };
}

function readMask(value: unknown, path: string): MaskSetting {
  const record = readRecord(value, path, 'the mask options', ['keepResults', 'keepTokens']);
  if (record.keepResults !== undefined && record.keepTokens !== undefined) {
    throw new ConfigError(
      childPath(path, 'keepTokens'),
      `${childPath(path, 'keepResults')} and ${childPath(path, 'keepTokens')} are exclusive: expected one of them, found both; keep keepResults for a number of recent tool results or keepTokens for their tokens, and remove the other`,
    );
  }
  if (record.keepResults !== undefined)
    return {
      kind: 'results',
      results: readInteger(record.keepResults, childPath(path, 'keepResults'), 0, 'it is how many recent tool results stay whole, e.g. 3'),
    };
  if (record.keepTokens !== undefined)
    return {
      kind: 'tokens',
      tokens: readInteger(
        record.keepTokens,
        childPath(path, 'keepTokens'),
        0,
        'it is how many tokens of recent tool results stay whole, e.g. 8000',
      ),
    };
  return { kind: 'tail' };
}

/** The smallest and largest calibration factors accepted: beyond them no tokenizer differs, the configuration does. */
export const CALIBRATION_FACTOR_RANGE = { min: 0.25, max: 4 } as const;

function readCalibrationFactor(value: unknown, path: string): number {
  const { min, max } = CALIBRATION_FACTOR_RANGE;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    return invalid(path, `a number from ${min} to ${max}`, value, FIX.calibrationFactor);
  }
  return value;
}

function readEstimator(value: unknown, path: string): EstimatorName {
  return readChoice(value, path, ESTIMATOR_NAMES);
}

/** retainRatio or retainTokens of the object at `path`; undefined when neither is given. */
function readRetain(record: Record<string, unknown>, path: string): RetainSetting | undefined {
  const ratio = record.retainRatio;
  const tokens = record.retainTokens;
  if (ratio !== undefined && tokens !== undefined) {
    const tokensPath = childPath(path, 'retainTokens');
    throw new ConfigError(
      tokensPath,
      `${childPath(path, 'retainRatio')} and ${tokensPath} are exclusive: expected one of them, found both ` +
        `(retainRatio ${String(ratio)}, retainTokens ${String(tokens)}); keep retainRatio for a share of the message budget ` +
        'or retainTokens for a fixed number of tokens, and remove the other',
    );
  }
  if (ratio !== undefined) return { kind: 'ratio', ratio: readRatio(ratio, childPath(path, 'retainRatio'), 'belowOne', FIX.retainRatio) };
  if (tokens !== undefined) return { kind: 'tokens', tokens: readInteger(tokens, childPath(path, 'retainTokens'), 0, FIX.retainTokens) };
  return undefined;
}

function readModelPolicies(value: unknown, path: string): readonly ModelPolicy[] {
  if (!Array.isArray(value)) {
    throw new ConfigError(
      path,
      `${path} must be an array of { provider, model, … } objects, found ${describeFound(value)}; write [] for none`,
    );
  }
  const policies: ModelPolicy[] = [];
  const seen = new Map<string, number>();
  value.forEach((entry: unknown, index) => {
    const entryPath = `${path}[${index}]`;
    const policy = readModelPolicy(entry, entryPath);
    const identity = JSON.stringify([policy.provider, policy.model]);
    const first = seen.get(identity);
    if (first !== undefined) {
      throw new ConfigError(
        entryPath,
        `${entryPath} must name a provider and model that no other policy names, found provider ${JSON.stringify(policy.provider)} ` +
          `model ${JSON.stringify(policy.model)} again (first in ${path}[${first}]); merge the two entries into one`,
      );
    }
    seen.set(identity, index);
    policies.push(policy);
  });
  return policies;
}

function readModelPolicy(value: unknown, path: string): ModelPolicy {
  const record = readRecord(value, path, 'a model policy', MODEL_POLICY_KEYS);
  const retain = readRetain(record, path);
  const at = (key: string) => childPath(path, key);
  return {
    provider: readNonEmptyString(record.provider, at('provider'), 'give the exact provider name the policy applies to, e.g. "openai"'),
    model: readNonEmptyString(record.model, at('model'), 'give the exact model id the policy applies to, e.g. "gpt-4.1"'),
    ...(record.thresholdRatio === undefined
      ? {}
      : { thresholdRatio: readRatio(record.thresholdRatio, at('thresholdRatio'), 'upToOne', FIX.thresholdRatio) }),
    ...(record.headroomTokens === undefined
      ? {}
      : { headroomTokens: readInteger(record.headroomTokens, at('headroomTokens'), 0, FIX.headroomTokens) }),
    ...(retain === undefined ? {} : { retain }),
    ...(record.estimator === undefined ? {} : { estimator: readEstimator(record.estimator, at('estimator')) }),
    ...(record.strategy === undefined ? {} : { strategy: readChoice(record.strategy, at('strategy'), STRATEGY_NAMES) }),
    ...(record.calibrationFactor === undefined
      ? {}
      : { calibrationFactor: readCalibrationFactor(record.calibrationFactor, at('calibrationFactor')) }),
  };
}

function readSummarizer(value: unknown, path: string): SummarizerChoice {
  const record = readRecord(value, path, 'the summarizer', SUMMARIZER_KEYS);
  const kind = record.kind === undefined ? undefined : readChoice(record.kind, childPath(path, 'kind'), SUMMARIZER_KINDS);
  const named = (['provider', 'model'] as const).filter((key) => record[key] !== undefined);
  if (kind === 'extractive' || kind === 'session-model') {
    const extra = named[0];
    if (extra !== undefined) {
      throw new ConfigError(
        childPath(path, extra),
        `${childPath(path, extra)} must be absent when ${childPath(path, 'kind')} is "${kind}", found ${describeFound(record[extra])}; ` +
          'remove it, or remove kind to name a summarizer model',
      );
    }
    return { kind };
  }
  if (named.length === 1 || (kind === 'model' && named.length === 0)) {
    const missing = record.provider === undefined ? 'provider' : 'model';
    const present = missing === 'provider' ? 'model' : 'provider';
    throw new ConfigError(
      childPath(path, missing),
      `${path} must give both provider and model, or neither, found ${named.length === 0 ? 'neither with kind "model"' : `only ${present}`}; ` +
        `add ${childPath(path, missing)}, or remove ${path} to summarize with the session's own model`,
    );
  }
  if (named.length === 0) return { kind: 'session-model' };
  const fix = 'name the model that writes summaries, e.g. provider "openai", model "gpt-4.1-mini"';
  return {
    kind: 'model',
    provider: readNonEmptyString(record.provider, childPath(path, 'provider'), fix),
    model: readNonEmptyString(record.model, childPath(path, 'model'), fix),
  };
}
