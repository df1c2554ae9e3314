// The window the page's header shows, and the rule that gave it: a compaction policy the
// session recorded (shadowlog's own harness decided with it), else the window the session ran in
// as the library resolves it (compaction/session-window: what the record states, the source
// harness's own compactions, the client's default, the model table), labelled with its rule.

import type { ResolvedWindow, SessionWindow as RunWindow, WindowRule } from '../compaction/session-window.js';
import type { CallView, PolicyView } from './view-data.js';

export interface SessionWindow {
  /** The window in tokens; null when the log records none. */
  readonly tokens: number | null;
  /** What gave it, in words (the page shows it beside the figure). */
  readonly rule: string;
  /** Other windows the calls record, when they do not agree. */
  readonly others: readonly number[];
}

const RULE_WORDS: Readonly<Record<WindowRule, string>> = {
  option: 'given with --window',
  recorded: 'recorded',
  'harness-compaction': "from the harness's own compactions",
  'client-default': "the client's default for the model (a guess: nothing in the session states it)",
  'model-table': "the model table's entry for the model (a guess: nothing in the session states it)",
};

/** `run` is the library's answer for the session (compaction/session-window's resolveSessionWindow). */
export function sessionWindowOf(calls: readonly CallView[], policies: readonly PolicyView[], run: RunWindow): SessionWindow {
  const policy = policies.at(-1);
  const windows = [...new Set(calls.map((call) => call.contextWindow).filter((window): window is number => window !== null))];
  if (policy !== undefined && policy.contextWindow > 0) {
    return {
      tokens: policy.contextWindow,
      rule: `the compaction policy recorded at #${policy.seq}${policy.decidedBy === null ? '' : ` (set by ${policy.decidedBy})`}`,
      others: windows.filter((window) => window !== policy.contextWindow),
    };
  }
  const primary: ResolvedWindow | undefined = run.primary;
  if (primary === undefined) return { tokens: null, rule: 'no rule gives a window for this session’s models', others: [] };
  const others = [...run.models.values()].map((each) => each.window).filter((window) => window !== primary.window);
  return {
    tokens: primary.window,
    rule: `${RULE_WORDS[primary.rule]}: ${primary.evidence}`,
    others: [...new Set(others)],
  };
}
