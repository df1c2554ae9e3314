// The recommended policy written as each harness's own setting, where the harness has one: the
// value, the file it goes in, and what the harness cannot express of the policy. The closest
// configuration each harness can reach is a shadowlog policy too, so that `tune` measures it in
// the same run (closestPolicy).

import type { PolicyWindow } from '../compaction/peer-policies.js';
import { type CompactionConfig, parseCompactionConfig, resolvePolicy } from '../compaction/policy.js';
import { CLAUDE_CODE_COMPACTION_MARGIN } from '../compaction/session-window.js';
import type { ForeignSource } from '../log/foreign-event.js';

export type SettingHarness = ForeignSource | 'opencode';

export interface HarnessSetting {
  readonly harness: SettingHarness;
  /** What to set, as the user writes it. */
  readonly setting: string;
  /** Where it goes. */
  readonly where: string;
  /** A file `--out` writes beside policy.json, and its content. */
  readonly file: { readonly name: string; readonly text: string };
  /** True when the harness runs the recommended threshold and tail as they are. */
  readonly exact: boolean;
  /** What the harness cannot express, and what it runs instead. */
  readonly note: string;
  /** The configuration the harness does run, as a shadowlog policy (for measuring it); null when it cannot run in the window at all. */
  readonly closest: CompactionConfig | null;
}

const count = (value: number) => value.toLocaleString('en-US');

/** Claude Code's effective window: W − min(max output, 20,000). */
const CLAUDE_CODE_OUTPUT_RESERVE = 20_000;

/** The threshold and retained tail `config` resolves to in `window`. */
function resolved(config: CompactionConfig, window: PolicyWindow): { threshold: number; retain: number } {
  const policy = resolvePolicy(parseCompactionConfig(config), window);
  return { threshold: policy.threshold, retain: policy.retain };
}

/** The recommended `config` as `harness`'s setting for `window`. */
export function harnessSetting(harness: SettingHarness, config: CompactionConfig, window: PolicyWindow): HarnessSetting {
  const { threshold, retain } = resolved(config, window);
  const W = window.contextWindow;
  if (harness === 'claude-code') {
    const effective = W - CLAUDE_CODE_OUTPUT_RESERVE;
    const defaultThreshold = W - CLAUDE_CODE_COMPACTION_MARGIN;
    if (defaultThreshold <= 0) {
      // Claude Code keeps 33,000 tokens below the window: in a window that small it has no threshold to set.
      return {
        harness,
        setting: 'none',
        where: `Claude Code cannot run in a window of ${count(W)} tokens: it compacts ${count(CLAUDE_CODE_COMPACTION_MARGIN)} tokens below the window`,
        file: { name: 'claude-code-settings.json', text: `${JSON.stringify({ env: {} }, null, 2)}\n` },
        exact: false,
        note: `no setting of Claude Code runs in ${count(W)} tokens (the policy compacts at ${count(threshold)})`,
        closest: null,
      };
    }
    // The override is a share of the effective window, and only lowers the threshold (Math.min with the default).
    const percent = Math.max(1, Math.min(100, Math.floor((100 * threshold) / effective)));
    const runs = Math.min(Math.floor((effective * percent) / 100), defaultThreshold);
    const atDefault = runs >= defaultThreshold;
    const tailNote = retain > 0 ? `Claude Code keeps no verbatim tail (the policy keeps ${count(retain)} tokens); ` : '';
    const thresholdNote = atDefault
      ? `Claude Code compacts at its default ${count(defaultThreshold)} of ${count(W)}, the nearest to the policy's ${count(threshold)} (the override cannot raise it)`
      : `it compacts at ${count(runs)} of ${count(W)} (the policy: ${count(threshold)})`;
    // At or above the default the override changes nothing: say to leave it unset rather than name a value that does nothing.
    return {
      harness,
      setting: atDefault
        ? "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE unset (Claude Code's default threshold is already the nearest)"
        : `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE=${percent}`,
      where: atDefault
        ? 'the environment claude starts in and "env" in ~/.claude/settings.json (remove it from both, if it is set)'
        : 'the environment claude starts in (export it in your shell), or "env" in ~/.claude/settings.json',
      file: {
        name: 'claude-code-settings.json',
        text: `${JSON.stringify({ env: atDefault ? {} : { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: String(percent) } }, null, 2)}\n`,
      },
      exact: retain === 0 && Math.abs(runs - threshold) <= 0.01 * W,
      note: `${tailNote}${thresholdNote}`,
      closest: { thresholdRatio: runs / W, headroomTokens: 0, retainTokens: 0 },
    };
  }
  if (harness === 'codex') {
    const tailNote =
      retain > 0 ? `Codex keeps only recent user messages, not a verbatim tail (the policy keeps ${count(retain)} tokens); ` : '';
    return {
      harness,
      setting: `model_auto_compact_token_limit = ${threshold}`,
      where: '~/.codex/config.toml',
      file: {
        name: 'codex-config.toml',
        text: `# shadowlog tune: compact at ${count(threshold)} tokens of ${count(W)}\nmodel_auto_compact_token_limit = ${threshold}\n`,
      },
      exact: retain === 0,
      note: `${tailNote}it compacts at ${count(threshold)} of ${count(W)}`,
      closest: { thresholdRatio: threshold / W, headroomTokens: 0, retainTokens: 0 },
    };
  }
  if (harness === 'pi') {
    const reserveTokens = Math.max(0, W - threshold);
    const settings = { compaction: { enabled: true, reserveTokens, keepRecentTokens: retain } };
    return {
      harness,
      setting: `"compaction": {"reserveTokens": ${reserveTokens}, "keepRecentTokens": ${retain}}`,
      where: '~/.pi/agent/settings.json (or .pi/settings.json in the project)',
      file: { name: 'pi-settings.json', text: `${JSON.stringify(settings, null, 2)}\n` },
      exact: true,
      note: `it compacts above ${count(threshold)} of ${count(W)} and keeps about ${count(retain)} tokens verbatim`,
      closest: { thresholdRatio: 1, headroomTokens: Math.max(0, reserveTokens - window.reserve), retainTokens: retain },
    };
  }
  const reserved = Math.max(0, W - threshold);
  return {
    harness,
    setting: `"compaction": {"auto": true, "reserved": ${reserved}}`,
    where: 'opencode.json (the project) or ~/.config/opencode/opencode.json',
    file: { name: 'opencode.json', text: `${JSON.stringify({ compaction: { auto: true, reserved } }, null, 2)}\n` },
    exact: false,
    note: `it compacts ${count(reserved)} tokens below the window; opencode chooses its own kept tail (2,000–15,000 tokens)`,
    closest: {
      thresholdRatio: 1,
      headroomTokens: Math.max(0, reserved - window.reserve),
      retainTokens: Math.min(15_000, Math.max(2_000, retain)),
    },
  };
}
