// The windows a tune run measured in, in words: each window, the rule that gave it and its
// evidence, grouped over sessions, and a warning with the flag to give when a window was guessed.

import type { ResolvedWindow, WindowRule } from '../compaction/session-window.js';
import type { SessionResult } from './session-replay.js';

const count = (value: number) => value.toLocaleString('en-US');

export const WINDOW_RULE_NAMES: Record<WindowRule, string> = {
  option: '--window',
  recorded: 'recorded',
  'harness-compaction': "the harness's compactions",
  'client-default': "the client's default (guessed)",
  'model-table': 'the model table (guessed)',
};

/** One line for a resolved window: `200,000 (the harness's compactions: …)`. */
export function describeWindow(window: ResolvedWindow): string {
  return `${count(window.window)} (${WINDOW_RULE_NAMES[window.rule]}: ${window.evidence})`;
}

/** The window lines of a run's text output; `option` is the --window given, if any. */
export function windowLines(sessions: readonly SessionResult[], option: number | undefined): string[] {
  if (option !== undefined) return [`window ${count(option)} tokens for every call (--window)`];
  // window → rule → the sessions, and the evidence of each distinct model.
  const byWindow = new Map<number, Map<WindowRule, { sessions: Set<string>; evidence: Set<string> }>>();
  for (const session of sessions) {
    for (const window of session.windowRules) {
      const rules = byWindow.get(window.window) ?? new Map();
      byWindow.set(window.window, rules);
      const group = rules.get(window.rule) ?? { sessions: new Set<string>(), evidence: new Set<string>() };
      rules.set(window.rule, group);
      group.sessions.add(session.sessionId);
      group.evidence.add(window.evidence);
    }
  }
  const lines: string[] = [];
  for (const [window, rules] of [...byWindow].sort((a, b) => a[0] - b[0])) {
    const total = new Set([...rules.values()].flatMap((group) => [...group.sessions])).size;
    lines.push(`window ${count(window)} tokens in ${plural(total, 'session')}:`);
    for (const [rule, group] of rules) {
      const [first, ...others] = group.evidence;
      const more = others.length === 0 ? '' : ` (and ${plural(others.length, 'other model')})`;
      lines.push(`  ${plural(group.sessions.size, 'session')} by ${WINDOW_RULE_NAMES[rule]}: ${first}${more}`);
    }
  }
  const guessed = sessions.filter((session) => session.windowRules.some((window) => window.guessed));
  if (guessed.length > 0) {
    lines.push(
      `warning: ${guessed.length} of ${plural(sessions.length, 'session')} ran in a guessed window: nothing in them shows it. ` +
        'If they ran in another, give --window TOKENS.',
    );
  }
  return lines;
}

const plural = (value: number, noun: string) => `${count(value)} ${noun}${value === 1 ? '' : 's'}`;
