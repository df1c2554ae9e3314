// The built-in model limits, matched by family prefix, and their override.

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/log/errors.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import { knownModelLimits, resolveModelLimits } from '../../src/providers/model-limits.js';
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
