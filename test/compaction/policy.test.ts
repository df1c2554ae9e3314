// The compaction policy of SPEC §6: the vectors, the crossover, every validation rule, and
// properties of the trigger formula and of the "largest value that works" in its errors.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMPACTION_DEFAULTS,
  type CompactionConfig,
  PolicyBudgetError,
  type PolicyTarget,
  parseCompactionConfig,
  resolvePolicy,
} from '../../src/compaction/policy.js';
import { compactionPreset } from '../../src/compaction/presets.js';
import { ConfigError, ShadowlogError } from '../../src/log/errors.js';

// SPEC §6's vectors and the errors below are worked out for DSH's numbers (0.8, 65,536, 0.16),
// the defaults until docs/evidence.md chose others; they are the `dsh` preset now.
const dshConfig = compactionPreset('dsh').config;
const dsh = parseCompactionConfig(dshConfig);

function resolveWith(config: unknown, target: PolicyTarget) {
  return resolvePolicy(parseCompactionConfig(config), target);
}

/** The ConfigError that `run` throws. */
function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(ShadowlogError.isInstance(error)).toBe(true);
    expect((error as ConfigError).code).toBe('INVALID_CONFIG');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, and nothing was thrown');
}

function budgetError(run: () => unknown): PolicyBudgetError {
  const error = configError(run);
  expect(error).toBeInstanceOf(PolicyBudgetError);
  return error as PolicyBudgetError;
}

describe("the SPEC §6 vectors, for DSH's numbers (--preset dsh)", () => {
  it.each([
    [1_048_576, 256_000, 727_040, 126_812, 'headroom'],
    [1_000_000, 0, 800_000, 160_000, 'ratio'],
    [1_000_000, 256_000, 678_464, 119_040, 'headroom'],
  ] as const)('W %i, reserve %i → threshold %i, retain %i', (contextWindow, reserve, threshold, retain, decidedBy) => {
    const policy = resolvePolicy(dsh, { contextWindow, reserve });
    expect(policy).toMatchObject({ threshold, retain, decidedBy, messageBudget: contextWindow - reserve });
    expect(policy.pressureBudget).toBe(contextWindow - reserve - 65_536);
  });

  it('meets at W = 327,680 with reserve 0: both terms are 262,144', () => {
    const policy = resolvePolicy(dsh, { contextWindow: 327_680, reserve: 0 });
    expect(policy.crossoverWindow).toBe(327_680);
    expect(policy.threshold).toBe(262_144);
    expect(policy.pressureBudget).toBe(262_144);
    expect(327_680 * 0.8).toBe(262_144);
  });

  it('lets the headroom decide below the crossover and the ratio from it up', () => {
    const below = resolvePolicy(dsh, { contextWindow: 327_679, reserve: 0 });
    expect(below).toMatchObject({ decidedBy: 'headroom', threshold: 262_143, pressureBudget: 262_143 });
    expect(resolvePolicy(dsh, { contextWindow: 327_680, reserve: 0 }).decidedBy).toBe('ratio');
    const above = resolvePolicy(dsh, { contextWindow: 327_681, reserve: 0 });
    expect(above).toMatchObject({ decidedBy: 'ratio', threshold: 262_144, pressureBudget: 262_145 });
    expect(resolvePolicy(dsh, { contextWindow: 100_000, reserve: 0 })).toMatchObject({ decidedBy: 'headroom', threshold: 34_464 });
  });

  it('moves the crossover with the reserve: (reserve + headroom) / (1 − ratio)', () => {
    expect(resolvePolicy(dsh, { contextWindow: 1_048_576, reserve: 256_000 }).crossoverWindow).toBe(1_607_680);
    // 65,536 / 0.3 = 218,453.3…: the first whole window where the ratio term is the smaller.
    const policy = resolveWith({ ...dshConfig, thresholdRatio: 0.7 }, { contextWindow: 300_000, reserve: 0 });
    expect(policy.crossoverWindow).toBe(218_454);
    expect(218_454 * 7 <= (218_454 - 65_536) * 10).toBe(true);
    expect(218_453 * 7 <= (218_453 - 65_536) * 10).toBe(false);
  });

  it('has no crossover when one term decides at every window', () => {
    expect(resolveWith({ ...dshConfig, thresholdRatio: 1 }, { contextWindow: 300_000, reserve: 0 })).toMatchObject({
      crossoverWindow: null,
      decidedBy: 'headroom',
    });
    expect(resolveWith({ ...dshConfig, headroomTokens: 0 }, { contextWindow: 300_000, reserve: 0 })).toMatchObject({
      crossoverWindow: null,
      decidedBy: 'ratio',
      threshold: 240_000,
    });
  });

  it('floors values that are whole numbers on paper to those numbers, not one below', () => {
    // In binary floating point 100 × 0.29 is 28.999999999999996 and 100 × 0.57 is 56.99999999999999.
    const policy = resolveWith({ thresholdRatio: 0.57, headroomTokens: 0, retainRatio: 0.29 }, { contextWindow: 100, reserve: 0 });
    expect(policy).toMatchObject({ threshold: 57, retain: 29 });
    expect(resolveWith(dshConfig, { contextWindow: 1_000_000, reserve: 256_000 }).retain).toBe(119_040);
  });
});

describe('resolvePolicy errors', () => {
  it('names headroomTokens, the numbers and the largest value that works (W 200,000, reserve 150,000)', () => {
    const error = budgetError(() => resolvePolicy(dsh, { contextWindow: 200_000, reserve: 150_000 }));
    expect(error.key).toBe('headroomTokens');
    expect(error.problem).toBe('no-pressure-budget');
    expect(error.largestWorkingValue).toBe(41_999);
    expect(error.message).toBe(
      'headroomTokens 65,536 leaves no pressure budget: with a context window W of 200,000 and a reserve of 150,000 completion tokens, ' +
        'messageBudget = W − reserve = 50,000 and pressureBudget = messageBudget − headroomTokens = 50,000 − 65,536 = -15,536, ' +
        'and it must be above 0. The largest headroomTokens that works here is 41,999 (messageBudget − retain − 1, so that the ' +
        'threshold stays above the retained tail of 8,000 tokens); set headroomTokens to at most 41,999, or reserve at most 121,980 completion tokens',
    );
    expect(resolveWith({ ...dshConfig, headroomTokens: 41_999 }, { contextWindow: 200_000, reserve: 150_000 })).toMatchObject({
      threshold: 8_001,
      retain: 8_000,
    });
    expect(() => resolveWith({ ...dshConfig, headroomTokens: 42_000 }, { contextWindow: 200_000, reserve: 150_000 })).toThrow(
      PolicyBudgetError,
    );
    expect(resolvePolicy(dsh, { contextWindow: 200_000, reserve: 121_980 }).threshold).toBeGreaterThan(0);
    expect(() => resolvePolicy(dsh, { contextWindow: 200_000, reserve: 121_981 })).toThrow(PolicyBudgetError);
  });

  it('suggests messageBudget − 1 when nothing is retained', () => {
    const error = budgetError(() =>
      resolveWith({ thresholdRatio: 0.8, headroomTokens: 65_536, retainTokens: 0 }, { contextWindow: 60_000, reserve: 0 }),
    );
    expect(error.largestWorkingValue).toBe(59_999);
    expect(error.message).toContain('The largest headroomTokens that works here is 59,999 (messageBudget − 1)');
  });

  it('names reserve, and says no headroomTokens works, when the reserve fills the window', () => {
    const error = budgetError(() => resolvePolicy(dsh, { contextWindow: 100_000, reserve: 150_000 }));
    expect(error.key).toBe('reserve');
    expect(error.problem).toBe('no-message-budget');
    expect(error.message).toContain('messageBudget = W − reserve = -50,000');
    expect(error.message).toContain('no headroomTokens value works');
    expect(error.message).toContain('the largest reserve that works with this configuration is 21,980');
    expect(configError(() => resolvePolicy(dsh, { contextWindow: 100_000, reserve: 100_000 })).key).toBe('reserve');
  });

  it('says that no value works when the retained tail alone fills the budget', () => {
    const error = budgetError(() =>
      resolveWith({ thresholdRatio: 0.8, headroomTokens: 65_536, retainTokens: 70_000 }, { contextWindow: 60_000, reserve: 0 }),
    );
    expect(error.key).toBe('headroomTokens');
    expect(error.largestWorkingValue).toBeNull();
    expect(error.message).toContain('No headroomTokens value works here');
    expect(error.message).toContain('lower retainTokens first');
  });

  it('names retainRatio, the numbers and the largest ratio that works', () => {
    const error = budgetError(() =>
      resolveWith({ thresholdRatio: 0.8, retainRatio: 0.5, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 }),
    );
    expect(error.key).toBe('retainRatio');
    expect(error.problem).toBe('retain-not-below-threshold');
    expect(error.message).toBe(
      'retainRatio 0.5 keeps a tail that is not below the threshold: with a context window W of 100,000 and a reserve of 50,000 completion tokens, ' +
        'retain = floor(messageBudget × retainRatio) = floor(50,000 × 0.5) = 25,000, and it must be below threshold = ' +
        'floor(min(W × thresholdRatio, pressureBudget)) = floor(min(80,000, 20,000)) = 20,000. The largest retainRatio with 4 decimal places ' +
        'that works here is 0.3999; set retainRatio to at most 0.3999, or give retainTokens of at most 19,999 instead',
    );
    expect(error.largestWorkingValue).toBe(0.3999);
    expect(
      resolveWith({ thresholdRatio: 0.8, retainRatio: 0.3999, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 }).retain,
    ).toBe(19_995);
    expect(() =>
      resolveWith({ thresholdRatio: 0.8, retainRatio: 0.4, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 }),
    ).toThrow(PolicyBudgetError);
  });

  it('names retainTokens and the largest count that works', () => {
    const error = budgetError(() =>
      resolveWith({ retainTokens: 30_000, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 }),
    );
    expect(error.key).toBe('retainTokens');
    expect(error.largestWorkingValue).toBe(19_999);
    expect(error.message).toContain('The largest retainTokens that works here is 19,999');
    expect(() => resolveWith({ retainTokens: 20_000, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 })).toThrow(
      PolicyBudgetError,
    );
    expect(resolveWith({ retainTokens: 19_999, headroomTokens: 30_000 }, { contextWindow: 100_000, reserve: 50_000 }).retain).toBe(19_999);
  });

  it('says no retain works when the threshold is 0', () => {
    const error = budgetError(() =>
      resolveWith({ thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 0 }, { contextWindow: 1, reserve: 0 }),
    );
    expect(error.largestWorkingValue).toBeNull();
    expect(error.message).toContain('No retain value works: the threshold is 0');
  });

  it('names the model policy a failing value came from', () => {
    const config = { modelPolicies: [{ provider: 'openai', model: 'gpt-4.1', headroomTokens: 1_100_000 }] };
    const error = budgetError(() =>
      resolveWith(config, { provider: 'openai', model: 'gpt-4.1', contextWindow: 1_047_576, reserve: 32_768 }),
    );
    expect(error.key).toBe('modelPolicies[0].headroomTokens');
    expect(error.message).toContain('set modelPolicies[0].headroomTokens to at most');
    const retain = budgetError(() =>
      resolveWith(
        { modelPolicies: [{ provider: 'a', model: 'b', retainRatio: 0.9 }] },
        { provider: 'a', model: 'b', contextWindow: 100_000, reserve: 0 },
      ),
    );
    expect(retain.key).toBe('modelPolicies[0].retainRatio');
  });

  it.each([
    [{ contextWindow: 0, reserve: 0 }, 'contextWindow'],
    [{ contextWindow: 1.5, reserve: 0 }, 'contextWindow'],
    [{ contextWindow: Number.NaN, reserve: 0 }, 'contextWindow'],
    [{ contextWindow: 1_000, reserve: -1 }, 'reserve'],
    [{ contextWindow: 1_000, reserve: 0.5 }, 'reserve'],
  ])('rejects the target %o', (target, key) => {
    const error = configError(() => resolvePolicy(dsh, target));
    expect(error.key).toBe(key);
    expect(error.message).toMatch(new RegExp(`^${key} must be a whole number from \\d to .*, found .*; `));
  });
});

describe('parseCompactionConfig', () => {
  it('applies the defaults', () => {
    expect(parseCompactionConfig(undefined)).toEqual(COMPACTION_DEFAULTS);
    // The three numbers docs/evidence.md chose (test/tune/evidence-defaults.test.ts checks them against it).
    expect(parseCompactionConfig({})).toEqual({
      thresholdRatio: 0.7,
      headroomTokens: 0,
      retain: { kind: 'ratio', ratio: 0.05 },
      modelPolicies: [],
      summarizer: { kind: 'session-model' },
      maxSummaryTokens: 8_192,
      compactionRetries: 1,
      maxOverflowRetries: 1,
      auto: true,
      estimator: 'script-aware',
      strategy: 'summary',
      mask: { kind: 'tail' },
    });
    expect(Object.isFrozen(COMPACTION_DEFAULTS)).toBe(true);
  });

  it('takes every key', () => {
    const config: CompactionConfig = {
      thresholdRatio: 1,
      headroomTokens: 0,
      retainTokens: 0,
      modelPolicies: [{ provider: 'anthropic', model: 'claude-sonnet-4-5', estimator: 'chars4', retainRatio: 0.2 }],
      summarizer: { provider: 'openai', model: 'gpt-4.1-mini' },
      maxSummaryTokens: 1,
      compactionRetries: 0,
      maxOverflowRetries: 0,
      auto: false,
      estimator: 'o200k_base',
      strategy: 'mask',
      mask: { keepResults: 2 },
    };
    expect(parseCompactionConfig(config)).toEqual({
      thresholdRatio: 1,
      headroomTokens: 0,
      retain: { kind: 'tokens', tokens: 0 },
      modelPolicies: [{ provider: 'anthropic', model: 'claude-sonnet-4-5', estimator: 'chars4', retain: { kind: 'ratio', ratio: 0.2 } }],
      summarizer: { kind: 'model', provider: 'openai', model: 'gpt-4.1-mini' },
      maxSummaryTokens: 1,
      compactionRetries: 0,
      maxOverflowRetries: 0,
      auto: false,
      estimator: 'o200k_base',
      strategy: 'mask',
      mask: { kind: 'results', results: 2 },
    });
  });

  it('drops the retainRatio default when retainTokens is given', () => {
    expect(parseCompactionConfig({ retainTokens: 5_000 }).retain).toEqual({ kind: 'tokens', tokens: 5_000 });
  });

  it('rejects a root that is not an object', () => {
    for (const input of [null, 5, 'x', [], true]) {
      const error = configError(() => parseCompactionConfig(input));
      expect(error.key).toBe('');
      expect(error.message).toMatch(/^the compaction configuration must be an object, found /);
    }
  });

  const TOP =
    'thresholdRatio, headroomTokens, retainRatio, retainTokens, modelPolicies, summarizer, maxSummaryTokens, compactionRetries, maxOverflowRetries, auto, estimator, strategy, mask, calibrationFactor, chosenFor';
  const MODEL_POLICY = 'provider, model, thresholdRatio, headroomTokens, retainRatio, retainTokens, estimator, strategy, calibrationFactor';

  it.each([
    [{ treshold: 0.8 }, 'treshold', `expected one of ${TOP}, found "treshold"; remove it`],
    [{ retainratio: 0.1 }, 'retainratio', `expected one of ${TOP}, found "retainratio"; did you mean retainRatio? Rename or remove it`],
    [
      { modelPolicies: [{ provider: 'a', model: 'b', window: 1 }] },
      'modelPolicies[0].window',
      `a model policy: expected one of ${MODEL_POLICY}`,
    ],
    [
      {
        modelPolicies: [
          { provider: 'a', model: 'b' },
          { provider: 'a', model: 'c', auto: false },
        ],
      },
      'modelPolicies[1].auto',
      `modelPolicies[1].auto is not a key of a model policy: expected one of ${MODEL_POLICY}, found "auto"`,
    ],
    [
      { summarizer: { provider: 'a', model: 'b', temperature: 0 } },
      'summarizer.temperature',
      'the summarizer: expected one of kind, provider, model',
    ],
  ])('rejects the unknown key in %o, naming the allowed ones', (input, key, fragment) => {
    const error = configError(() => parseCompactionConfig(input));
    expect(error.key).toBe(key);
    expect(error.message).toContain(fragment);
    expect(error.message).toMatch(new RegExp(`^${key.replace(/[[\]]/g, '\\$&')} is not a key of `));
  });

  const ratioUpToOne = [0, -0.5, 1.0000001, Number.NaN, Number.POSITIVE_INFINITY, '0.8', null, true];
  const ratioBelowOne = [0, 1, -0.1, Number.NaN, '0.16'];
  const nonNegativeInteger = [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '10', null];
  const positiveInteger = [0, -1, 0.5, Number.NaN, '8192'];
  const rejected: Array<[string, unknown, string]> = [
    ...ratioUpToOne.map((value): [string, unknown, string] => ['thresholdRatio', value, 'a number above 0 and at most 1']),
    ...ratioBelowOne.map((value): [string, unknown, string] => ['retainRatio', value, 'a number above 0 and below 1']),
    ...nonNegativeInteger.flatMap(
      (value): Array<[string, unknown, string]> =>
        ['headroomTokens', 'retainTokens', 'compactionRetries', 'maxOverflowRetries'].map((key) => [
          key,
          value,
          'a whole number from 0 to',
        ]),
    ),
    ...positiveInteger.map((value): [string, unknown, string] => ['maxSummaryTokens', value, 'a whole number from 1 to']),
    ['auto', 'yes', 'true or false'],
    ['auto', 0, 'true or false'],
    ['estimator', 'chars5', 'one of "chars4", "script-aware", "o200k_base", "cl100k_base", "llama3"'],
    ['estimator', 4, 'one of "chars4"'],
    ['modelPolicies', {}, 'an array of { provider, model, … } objects'],
    ['summarizer', 'openai', 'an object'],
  ];

  it.each(rejected)('rejects %s = %o with expected, found and a fix', (key, value, expected) => {
    const error = configError(() => parseCompactionConfig({ [key]: value }));
    expect(error.key).toBe(key);
    expect(error.message).toContain(expected);
    expect(error.message).toMatch(/, found .+; .+/);
  });

  it('shows what was found, typed', () => {
    expect(configError(() => parseCompactionConfig({ thresholdRatio: '0.8' })).message).toContain('found the string "0.8"');
    expect(configError(() => parseCompactionConfig({ thresholdRatio: Number.NaN })).message).toContain('found NaN');
    expect(configError(() => parseCompactionConfig({ headroomTokens: 1.5 })).message).toContain('found 1.5');
    expect(configError(() => parseCompactionConfig({ auto: null })).message).toContain('found null');
    expect(configError(() => parseCompactionConfig({ estimator: 'chars5' })).message).toContain('did you mean "chars4"?');
  });

  it('accepts the boundaries', () => {
    expect(parseCompactionConfig({ thresholdRatio: 1 }).thresholdRatio).toBe(1);
    expect(parseCompactionConfig({ thresholdRatio: Number.MIN_VALUE }).thresholdRatio).toBe(Number.MIN_VALUE);
    expect(parseCompactionConfig({ retainRatio: 0.999999 }).retain).toEqual({ kind: 'ratio', ratio: 0.999999 });
    expect(parseCompactionConfig({ headroomTokens: 0, compactionRetries: 0, maxOverflowRetries: 0, maxSummaryTokens: 1 })).toMatchObject({
      headroomTokens: 0,
      compactionRetries: 0,
      maxOverflowRetries: 0,
      maxSummaryTokens: 1,
    });
    expect(parseCompactionConfig({ headroomTokens: Number.MAX_SAFE_INTEGER }).headroomTokens).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('treats retainRatio and retainTokens as exclusive, at the top and in a model policy', () => {
    const top = configError(() => parseCompactionConfig({ retainRatio: 0.16, retainTokens: 1_000 }));
    expect(top.key).toBe('retainTokens');
    expect(top.message).toBe(
      'retainRatio and retainTokens are exclusive: expected one of them, found both (retainRatio 0.16, retainTokens 1000); ' +
        'keep retainRatio for a share of the message budget or retainTokens for a fixed number of tokens, and remove the other',
    );
    const nested = configError(() =>
      parseCompactionConfig({ modelPolicies: [{ provider: 'a', model: 'b', retainRatio: 0.1, retainTokens: 1 }] }),
    );
    expect(nested.key).toBe('modelPolicies[0].retainTokens');
    expect(nested.message).toMatch(/^modelPolicies\[0\]\.retainRatio and modelPolicies\[0\]\.retainTokens are exclusive/);
  });

  it('checks the values inside a model policy, with their paths', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ provider: 'a', model: 'b', retainRatio: 1 }, 'modelPolicies[0].retainRatio'],
      [{ provider: 'a', model: 'b', thresholdRatio: 0 }, 'modelPolicies[0].thresholdRatio'],
      [{ provider: 'a', model: 'b', headroomTokens: -1 }, 'modelPolicies[0].headroomTokens'],
      [{ provider: 'a', model: 'b', estimator: 'gpt2' }, 'modelPolicies[0].estimator'],
      [{ model: 'b' }, 'modelPolicies[0].provider'],
      [{ provider: 'a' }, 'modelPolicies[0].model'],
      [{ provider: '', model: 'b' }, 'modelPolicies[0].provider'],
    ];
    for (const [policy, key] of cases) {
      const error = configError(() => parseCompactionConfig({ modelPolicies: [policy] }));
      expect(error.key).toBe(key);
      expect(error.message.startsWith(`${key} must be`)).toBe(true);
    }
    expect(configError(() => parseCompactionConfig({ modelPolicies: ['openai'] })).key).toBe('modelPolicies[0]');
    expect(
      configError(() =>
        parseCompactionConfig({
          modelPolicies: [
            { provider: 'a', model: 'b' },
            { provider: 'a', model: 'c', retainRatio: 2 },
          ],
        }),
      ).key,
    ).toBe('modelPolicies[1].retainRatio');
  });

  it('rejects a duplicate provider and model', () => {
    const error = configError(() =>
      parseCompactionConfig({
        modelPolicies: [
          { provider: 'openai', model: 'gpt-4.1' },
          { provider: 'openai', model: 'gpt-4.1-mini' },
          { provider: 'openai', model: 'gpt-4.1', thresholdRatio: 0.5 },
        ],
      }),
    );
    expect(error.key).toBe('modelPolicies[2]');
    expect(error.message).toBe(
      'modelPolicies[2] must name a provider and model that no other policy names, found provider "openai" model "gpt-4.1" again ' +
        '(first in modelPolicies[0]); merge the two entries into one',
    );
    // The same model under another provider, or another case, is another policy.
    expect(
      parseCompactionConfig({
        modelPolicies: [
          { provider: 'openai', model: 'gpt-4.1' },
          { provider: 'azure', model: 'gpt-4.1' },
          { provider: 'openai', model: 'GPT-4.1' },
        ],
      }).modelPolicies,
    ).toHaveLength(3);
  });

  describe('summarizer', () => {
    it('is the session model by default, and for {}', () => {
      expect(parseCompactionConfig({}).summarizer).toEqual({ kind: 'session-model' });
      expect(parseCompactionConfig({ summarizer: {} }).summarizer).toEqual({ kind: 'session-model' });
      expect(parseCompactionConfig({ summarizer: { kind: 'session-model' } }).summarizer).toEqual({ kind: 'session-model' });
    });

    it('names a model with both provider and model', () => {
      expect(parseCompactionConfig({ summarizer: { provider: 'openai', model: 'gpt-4.1-mini' } }).summarizer).toEqual({
        kind: 'model',
        provider: 'openai',
        model: 'gpt-4.1-mini',
      });
      expect(parseCompactionConfig({ summarizer: { kind: 'model', provider: 'openai', model: 'o3' } }).summarizer).toEqual({
        kind: 'model',
        provider: 'openai',
        model: 'o3',
      });
    });

    it('chooses the extractive summarizer explicitly', () => {
      expect(parseCompactionConfig({ summarizer: { kind: 'extractive' } }).summarizer).toEqual({ kind: 'extractive' });
    });

    it('rejects one of provider and model without the other', () => {
      const onlyProvider = configError(() => parseCompactionConfig({ summarizer: { provider: 'openai' } }));
      expect(onlyProvider.key).toBe('summarizer.model');
      expect(onlyProvider.message).toBe(
        "summarizer must give both provider and model, or neither, found only provider; add summarizer.model, or remove summarizer to summarize with the session's own model",
      );
      expect(configError(() => parseCompactionConfig({ summarizer: { model: 'o3' } })).key).toBe('summarizer.provider');
      expect(configError(() => parseCompactionConfig({ summarizer: { kind: 'model' } })).message).toContain(
        'found neither with kind "model"',
      );
    });

    it('rejects a model named beside a kind that takes none, an unknown kind, and empty names', () => {
      const extra = configError(() => parseCompactionConfig({ summarizer: { kind: 'extractive', model: 'o3' } }));
      expect(extra.key).toBe('summarizer.model');
      expect(extra.message).toContain('must be absent when summarizer.kind is "extractive"');
      const kind = configError(() => parseCompactionConfig({ summarizer: { kind: 'extract' } }));
      expect(kind.key).toBe('summarizer.kind');
      expect(kind.message).toContain('one of "session-model", "model", "extractive", found the string "extract"');
      expect(configError(() => parseCompactionConfig({ summarizer: { provider: '', model: 'o3' } })).key).toBe('summarizer.provider');
    });
  });
});

describe('model policies', () => {
  const config = parseCompactionConfig({
    retainTokens: 10_000,
    modelPolicies: [
      { provider: 'openai', model: 'gpt-4.1', thresholdRatio: 0.5, headroomTokens: 1_000, retainRatio: 0.1, estimator: 'o200k_base' },
      { provider: 'anthropic', model: 'claude-sonnet-4-5', estimator: 'chars4' },
    ],
  });
  const window = { contextWindow: 1_000_000, reserve: 0 };

  it('applies every override to the exact provider and model', () => {
    const policy = resolvePolicy(config, { provider: 'openai', model: 'gpt-4.1', ...window });
    expect(policy).toMatchObject({
      thresholdRatio: 0.5,
      headroomTokens: 1_000,
      retainSetting: { kind: 'ratio', ratio: 0.1 },
      estimator: 'o200k_base',
      threshold: 500_000,
      retain: 100_000,
    });
    expect(policy.modelPolicy?.model).toBe('gpt-4.1');
  });

  it('keeps the general values for keys a policy does not override', () => {
    const policy = resolvePolicy(config, { provider: 'anthropic', model: 'claude-sonnet-4-5', ...window });
    const general = resolvePolicy(parseCompactionConfig({ retainTokens: 10_000 }), window);
    expect(policy).toMatchObject({
      estimator: 'chars4',
      thresholdRatio: COMPACTION_DEFAULTS.thresholdRatio,
      headroomTokens: COMPACTION_DEFAULTS.headroomTokens,
      retain: 10_000,
      threshold: general.threshold,
    });
  });

  it.each([
    ['openai', 'gpt-4.1-mini'],
    ['OpenAI', 'gpt-4.1'],
    ['azure', 'gpt-4.1'],
    ['openai', 'gpt-4.1 '],
    [undefined, undefined],
  ])('does not apply to provider %s, model %s', (provider, model) => {
    const target = { ...window, ...(provider === undefined ? {} : { provider }), ...(model === undefined ? {} : { model }) };
    const policy = resolvePolicy(config, target);
    const general = resolvePolicy(parseCompactionConfig({ retainTokens: 10_000 }), window);
    expect(policy).toMatchObject({
      modelPolicy: null,
      estimator: 'script-aware',
      thresholdRatio: COMPACTION_DEFAULTS.thresholdRatio,
      retain: 10_000,
      threshold: general.threshold,
    });
  });
});

// ——— properties ———

const ratioUpToOne = fc.oneof(
  fc.integer({ min: 1, max: 1_000 }).map((thousandths) => thousandths / 1_000),
  fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }),
);
const ratioBelowOne = fc.oneof(
  fc.integer({ min: 1, max: 999 }).map((thousandths) => thousandths / 1_000),
  fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true, maxExcluded: true }),
);
const retain = fc.oneof(
  ratioBelowOne.map((retainRatio) => ({ retainRatio })),
  fc.integer({ min: 0, max: 400_000 }).map((retainTokens) => ({ retainTokens })),
  fc.constant({}),
);
const validConfig = fc
  .record({ thresholdRatio: ratioUpToOne, headroomTokens: fc.integer({ min: 0, max: 300_000 }), retain })
  .map(({ retain: retainKeys, ...rest }) => ({ ...rest, ...retainKeys }));
const windowAndReserve = fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.integer({ min: 1, max: 2 ** 40 })).chain((contextWindow) =>
  fc.record({
    contextWindow: fc.constant(contextWindow),
    reserve: fc.oneof(fc.integer({ min: 0, max: contextWindow }), fc.nat(2 ** 41)),
  }),
);

/** The next value above a suggestion: +1 for counts, one step in the last decimal place for a ratio. */
function nextAbove(key: string, value: number): number {
  if (!key.endsWith('retainRatio')) return value + 1;
  const places = Math.max(4, (String(value).split('.')[1] ?? '').length);
  const digits = Math.round(value * 10 ** places);
  return Number(`${digits + 1}e-${places}`);
}

function withValue(config: Record<string, unknown>, target: PolicyTarget, key: string, value: number) {
  if (key === 'reserve') return { config, target: { ...target, reserve: value } };
  if (key === 'retainRatio' || key === 'retainTokens') {
    const { retainRatio: _ratio, retainTokens: _tokens, ...rest } = config;
    return { config: { ...rest, [key]: value }, target };
  }
  return { config: { ...config, [key]: value }, target };
}

describe('properties of the trigger', () => {
  it('resolves to threshold ≤ W × ratio, ≤ pressureBudget, retain < threshold; or fails with a value that works and a next one that does not', () => {
    fc.assert(
      fc.property(validConfig, windowAndReserve, (config, target) => {
        let policy: ReturnType<typeof resolvePolicy>;
        try {
          policy = resolveWith(config, target);
        } catch (error) {
          expect(error).toBeInstanceOf(PolicyBudgetError);
          const budget = error as PolicyBudgetError;
          expect(['reserve', 'headroomTokens', 'retainRatio', 'retainTokens']).toContain(budget.key);
          const largest = budget.largestWorkingValue;
          if (largest === null) {
            expect(budget.message).toMatch(/[Nn]o (headroomTokens|retain|reserve) value works|no reserve works/);
            return;
          }
          const working = withValue(config, target, budget.key, largest);
          expect(() => resolveWith(working.config, working.target)).not.toThrow();
          const failing = withValue(config, target, budget.key, nextAbove(budget.key, largest));
          // A step past the largest either breaks the budget or leaves the key's range (retainRatio 1).
          expect(() => resolveWith(failing.config, failing.target)).toThrow(ConfigError);
          return;
        }
        const { contextWindow, reserve } = target;
        expect(policy.messageBudget).toBe(contextWindow - reserve);
        expect(policy.pressureBudget).toBe(contextWindow - reserve - policy.headroomTokens);
        expect(Number.isSafeInteger(policy.threshold)).toBe(true);
        expect(policy.threshold).toBeLessThanOrEqual(contextWindow * policy.thresholdRatio * (1 + 2 ** -50));
        expect(policy.threshold).toBeGreaterThan(
          Math.min(contextWindow * policy.thresholdRatio, policy.pressureBudget) * (1 - 2 ** -50) - 1,
        );
        expect(policy.threshold).toBeLessThanOrEqual(policy.pressureBudget);
        expect(policy.retain).toBeGreaterThanOrEqual(0);
        expect(policy.retain).toBeLessThan(policy.threshold);
      }),
      { numRuns: 2_000 },
    );
  });

  it('puts the crossover exactly where the ratio term becomes the smaller one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: 0, max: 500_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        (thousandths, reserve, headroomTokens) => {
          fc.pre(reserve + headroomTokens > 0);
          const config = parseCompactionConfig({ thresholdRatio: thousandths / 1_000, headroomTokens, retainTokens: 0 });
          const crossover = resolvePolicy(config, { contextWindow: 10 ** 12, reserve }).crossoverWindow;
          expect(crossover).not.toBeNull();
          const ratioIsSmaller = (window: number) => window * thousandths <= (window - reserve - headroomTokens) * 1_000;
          expect(ratioIsSmaller(crossover as number)).toBe(true);
          expect(ratioIsSmaller((crossover as number) - 1)).toBe(false);
        },
      ),
    );
  });
});
