// The recommended policy as each harness's own setting: Claude Code's override is a share of its
// effective window and can only lower its threshold; Codex takes the threshold in tokens; pi takes
// the reserve and the tail, both as they are.

import { describe, expect, it } from 'vitest';
import { harnessSetting } from '../../src/tune/harness-settings.js';

const window = { contextWindow: 200_000, reserve: 16_384 };

describe('harness settings', () => {
  it('writes a threshold of 120,000 of 200,000 as CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=66 (of the 180,000 effective window)', () => {
    const setting = harnessSetting('claude-code', { thresholdRatio: 0.6, headroomTokens: 0, retainTokens: 0 }, window);
    expect(setting.setting).toBe('CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=66');
    expect(setting.exact).toBe(true);
    expect(JSON.parse(setting.file.text)).toEqual({ env: { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '66' } });
  });

  it("says Claude Code keeps its default when the policy's threshold is above it, and that it keeps no tail", () => {
    const setting = harnessSetting('claude-code', { thresholdRatio: 0.9, headroomTokens: 0, retainRatio: 0.16 }, window);
    expect(setting.exact).toBe(false);
    expect(setting.note).toMatch(/keeps no verbatim tail/);
    expect(setting.note).toMatch(/default 167,000/);
    // A value at or above the default would change nothing: the setting is to leave the override unset.
    expect(setting.setting).toMatch(/^CLAUDE_AUTOCOMPACT_PCT_OVERRIDE unset/);
    expect(JSON.parse(setting.file.text)).toEqual({ env: {} });
    expect(setting.closest).toEqual({ thresholdRatio: 167_000 / 200_000, headroomTokens: 0, retainTokens: 0 });
  });

  it('says Claude Code has no setting in a window smaller than its own margin below the window, rather than a negative threshold', () => {
    const setting = harnessSetting(
      'claude-code',
      { thresholdRatio: 0.7, headroomTokens: 0, retainRatio: 0.05 },
      { contextWindow: 32_768, reserve: 8_192 },
    );
    expect(setting.setting).toBe('none');
    expect(setting.where).toBe('Claude Code cannot run in a window of 32,768 tokens: it compacts 33,000 tokens below the window');
    expect(setting.closest).toBeNull();
    expect(setting.exact).toBe(false);
  });

  it('writes Codex its limit in tokens and pi its reserve and tail', () => {
    const config = { thresholdRatio: 0.6, headroomTokens: 0, retainTokens: 20_000 };
    expect(harnessSetting('codex', config, window).setting).toBe('model_auto_compact_token_limit = 120000');
    const pi = harnessSetting('pi', config, window);
    expect(JSON.parse(pi.file.text)).toEqual({ compaction: { enabled: true, reserveTokens: 80_000, keepRecentTokens: 20_000 } });
    expect(pi.exact).toBe(true);
  });
});
