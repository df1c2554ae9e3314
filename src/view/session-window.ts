// The window the page's header shows, and the rule that gave it. This is the one place that
// decides it: until the library can say which window a session ran in (from what its source
// states, the harness's own compactions, or the client's default), it is the window the log
// records, labelled with where that figure came from, which is not a claim about how the
// session ran.

import type { CallView, PolicyView } from './view-data.js';

export interface SessionWindow {
  /** The window in tokens; null when the log records none. */
  readonly tokens: number | null;
  /** What gave it, in words (the page shows it beside the figure). */
  readonly rule: string;
  /** Other windows the calls record, when they do not agree. */
  readonly others: readonly number[];
}

const RECORDED_BY: Readonly<Record<CallView['provenance'], string>> = {
  sent: 'recorded with its request by the harness that sent it',
  imported:
    "recorded by the importer: the source's own figure, the --window given to import, or else the model table's entry for the model (not checked against how the session ran)",
  proxied: "recorded by the proxy from the model table's entry for the model (not checked against how the session ran)",
};

export function sessionWindowOf(calls: readonly CallView[], policies: readonly PolicyView[]): SessionWindow {
  const policy = policies.at(-1);
  const windows = [...new Set(calls.map((call) => call.contextWindow).filter((window): window is number => window !== null))];
  if (policy !== undefined && policy.contextWindow > 0) {
    return {
      tokens: policy.contextWindow,
      rule: `the compaction policy recorded at #${policy.seq}${policy.decidedBy === null ? '' : ` (set by ${policy.decidedBy})`}`,
      others: windows.filter((window) => window !== policy.contextWindow),
    };
  }
  const last = [...calls].reverse().find((call) => call.contextWindow !== null);
  if (last === undefined || last.contextWindow === null)
    return { tokens: null, rule: 'the log records no window for this session', others: [] };
  return {
    tokens: last.contextWindow,
    rule: `the last call's window, ${RECORDED_BY[last.provenance]}`,
    others: windows.filter((window) => window !== last.contextWindow),
  };
}
