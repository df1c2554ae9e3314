// The built-in model limits, matched by family prefix, and their override.

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import {
  acceptsTemperature,
  describeModelLimits,
  knownModelLimits,
  matchModelLimits,
  resolveModelLimits,
} from '../../src/providers/model-limits.js';
import { parseModelLimits } from '../../src/providers/model-limits-file.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';

describe('model limits', () => {
  it('knows each listed family, dated ids included', () => {
    const cases: [string, number, number][] = [
      ['gpt-4o', 128_000, 16_384],
      ['gpt-4o-2024-08-06', 128_000, 16_384],
      ['gpt-4o-mini-2024-07-18', 128_000, 16_384],
      ['gpt-4.1', 1_047_576, 32_768],
      ['gpt-4.1-mini-2025-04-14', 1_047_576, 32_768],
      ['gpt-4.1-nano-2025-04-14', 1_047_576, 32_768],
      ['o3', 200_000, 100_000],
      ['o3-2025-04-16', 200_000, 100_000],
      ['o4-mini-2025-04-16', 200_000, 100_000],
      ['gpt-5', 400_000, 128_000],
      ['gpt-5-mini-2025-08-07', 400_000, 128_000],
      ['gpt-5-nano', 400_000, 128_000],
      ['gpt-5-chat-latest', 128_000, 16_384],
      ['deepseek-chat', 128_000, 4_096],
      ['deepseek-reasoner', 128_000, 32_768],
      ['claude-opus-4-20250514', 200_000, 32_000],
      ['claude-opus-4-1-20250805', 200_000, 32_000],
      ['claude-opus-4-5-20251101', 200_000, 64_000],
      ['claude-opus-4-6', 1_000_000, 128_000],
      ['claude-opus-4-7', 1_000_000, 128_000],
      ['claude-sonnet-4-20250514', 200_000, 64_000],
      ['claude-sonnet-4-5-20250929', 200_000, 64_000],
      ['claude-3-7-sonnet-20250219', 200_000, 64_000],
      ['claude-3-7-sonnet-latest', 200_000, 64_000],
      ['claude-3-5-haiku-20241022', 200_000, 8_192],
      ['claude-haiku-4-5-20251001', 200_000, 64_000],
    ];
    for (const [model, contextWindow, defaultMaxOutputTokens] of cases) {
      expect({ model, limits: knownModelLimits(model) }).toEqual({ model, limits: { contextWindow, defaultMaxOutputTokens } });
    }
  });

  it('matches a family only at a boundary, not any id that starts with its letters', () => {
    for (const model of ['gpt-4', 'gpt-4-turbo', 'o3x', 'gpt-4oz', 'deepseek-chatter', 'claude-2.1', 'llama3.1:8b']) {
      expect({ model, limits: knownModelLimits(model) }).toEqual({ model, limits: undefined });
    }
  });

  it('refuses an unknown model without limits, saying which options to pass', () => {
    expect(() => resolveModelLimits('qwen3:8b')).toThrow(ConfigError);
    expect(() => resolveModelLimits('qwen3:8b')).toThrow(
      'no built-in limits for model "qwen3:8b"; pass contextWindow and defaultMaxOutputTokens in the model options',
    );
    expect(() => resolveModelLimits('qwen3:8b', { contextWindow: 32_768 })).toThrow(/pass contextWindow and defaultMaxOutputTokens/);
    expect(() => createOpenAIChatModel({ model: 'qwen3:8b', baseUrl: 'http://127.0.0.1:1/v1', env: {} })).toThrow(ConfigError);
    expect(() => createAnthropicMessagesModel({ model: 'claude-2.1', apiKey: 'k', env: {} })).toThrow(ConfigError);
  });

  it('takes an override for an unknown model, and field by field for a known one', () => {
    expect(resolveModelLimits('qwen3:8b', { contextWindow: 32_768, defaultMaxOutputTokens: 4_096 })).toEqual({
      contextWindow: 32_768,
      defaultMaxOutputTokens: 4_096,
    });
    expect(resolveModelLimits('gpt-4o', { contextWindow: 64_000 })).toEqual({ contextWindow: 64_000, defaultMaxOutputTokens: 16_384 });
    const model = createOpenAIChatModel({
      model: 'qwen3:8b',
      baseUrl: 'http://127.0.0.1:1/v1',
      env: {},
      contextWindow: 40_960,
      defaultMaxOutputTokens: 8_192,
    });
    expect(model.limits).toEqual({ contextWindow: 40_960, defaultMaxOutputTokens: 8_192 });
    const claude = createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'k', env: {}, defaultMaxOutputTokens: 1_000 });
    expect(claude.limits).toEqual({ contextWindow: 200_000, defaultMaxOutputTokens: 1_000 });
  });

  it('refuses overrides that are not positive integers or exceed the window', () => {
    expect(() => resolveModelLimits('gpt-4o', { contextWindow: 0 })).toThrow('contextWindow must be a positive integer, found 0');
    expect(() => resolveModelLimits('gpt-4o', { defaultMaxOutputTokens: 1.5 })).toThrow(ConfigError);
    expect(() => resolveModelLimits('gpt-4o', { contextWindow: 1_000 })).toThrow(/must not exceed contextWindow/);
  });
});

describe('model limits as data a user extends', () => {
  const file = parseModelLimits(
    JSON.stringify({
      'qwen3-coder-local': { contextWindow: 32_768, defaultMaxOutputTokens: 4_096 },
      'gpt-4o': { contextWindow: 64_000, defaultMaxOutputTokens: 8_192 },
      'claude-opus-5': { contextWindow: 1_000_000, defaultMaxOutputTokens: 128_000, acceptsTemperature: false },
    }),
    'limits.json',
  );

  it("adds models the table does not know, and wins over the table's entry of the same key", () => {
    expect(resolveModelLimits('qwen3-coder-local', {}, file)).toEqual({ contextWindow: 32_768, defaultMaxOutputTokens: 4_096 });
    expect(resolveModelLimits('gpt-4o-2024-08-06', {}, file)).toEqual({ contextWindow: 64_000, defaultMaxOutputTokens: 8_192 });
    // A longer built-in key still wins: the longest match decides, whoever wrote it.
    expect(resolveModelLimits('gpt-4o-mini', {}, file)).toEqual({ contextWindow: 128_000, defaultMaxOutputTokens: 16_384 });
    expect(resolveModelLimits('qwen3-coder-local', { contextWindow: 16_384 }, file)).toEqual({
      contextWindow: 16_384,
      defaultMaxOutputTokens: 4_096,
    });
    const model = createOpenAIChatModel({ model: 'qwen3-coder-local', baseUrl: 'http://127.0.0.1:1/v1', env: {}, modelLimits: file });
    expect(model.limits).toEqual({ contextWindow: 32_768, defaultMaxOutputTokens: 4_096 });
  });

  it('says which entry it used, and when it matched by prefix', () => {
    expect(matchModelLimits('claude-opus-4-1-20250805')).toMatchObject({ prefix: 'claude-opus-4', source: 'the built-in table' });
    expect(describeModelLimits('claude-opus-4-1-20250805')).toBe('entry "claude-opus-4" of the built-in table (matched by prefix)');
    expect(describeModelLimits('claude-opus-4-6')).toBe('entry "claude-opus-4-6" of the built-in table');
    expect(describeModelLimits('qwen3-coder-local', {}, file)).toBe('entry "qwen3-coder-local" of limits.json');
    expect(describeModelLimits('qwen3:8b', { contextWindow: 1, defaultMaxOutputTokens: 1 })).toBe('the model options');
    expect(describeModelLimits('gpt-4o', { contextWindow: 64_000 })).toBe(
      'contextWindow from the model options, the rest from entry "gpt-4o" of the built-in table',
    );
  });

  it('knows which models take no temperature, from the table or the file', () => {
    for (const model of ['gpt-5', 'o3', 'o4-mini', 'claude-opus-4-7', 'claude-opus-4-8-20260528'])
      expect({ model, takes: acceptsTemperature(model) }).toEqual({ model, takes: false });
    for (const model of ['gpt-4o', 'gpt-5-chat-latest', 'claude-sonnet-4-5', 'claude-opus-4-6', 'qwen3:8b'])
      expect({ model, takes: acceptsTemperature(model) }).toEqual({ model, takes: true });
    expect(acceptsTemperature('claude-opus-5-20260801', file)).toBe(false);
  });

  it('refuses a file that is not an object of well-formed entries, naming the file and the entry', () => {
    const cases: [string, RegExp][] = [
      ['not json', /^limits\.json is not valid JSON/],
      ['[1]', /^limits\.json must hold a JSON object of entries by model id or family prefix, found an array/],
      ['{"m": 3}', /^limits\.json: entry "m" must be an object \{contextWindow, defaultMaxOutputTokens\}, found 3/],
      [
        '{"m": {"contextWindow": 10}}',
        /^limits\.json: entry "m": defaultMaxOutputTokens must be a positive integer of tokens, found nothing/,
      ],
      ['{"m": {"contextWindow": 10.5, "defaultMaxOutputTokens": 1}}', /contextWindow must be a positive integer of tokens, found 10\.5/],
      ['{"m": {"contextWindow": 10, "defaultMaxOutputTokens": 20}}', /defaultMaxOutputTokens \(20\) must not exceed contextWindow \(10\)/],
      [
        '{"m": {"contextWindow": 10, "defaultMaxOutputTokens": 2, "window": 3}}',
        /unknown field "window"; the fields are contextWindow, defaultMaxOutputTokens, acceptsTemperature/,
      ],
      ['{"m": {"contextWindow": 10, "defaultMaxOutputTokens": 2, "acceptsTemperature": "no"}}', /acceptsTemperature must be true or false/],
      ['{"": {"contextWindow": 10, "defaultMaxOutputTokens": 2}}', /an entry has an empty model id/],
    ];
    for (const [text, message] of cases) {
      expect(() => parseModelLimits(text, 'limits.json'), text).toThrow(ConfigError);
      expect(() => parseModelLimits(text, 'limits.json'), text).toThrow(message);
    }
  });
});
