/// <reference lib="dom" />
// A tune report (`view --tune report.json`): the policies compared, the sessions, and the
// recommendation. The report was checked against tune's one schema (tune/tune-report-schema.ts)
// before it was embedded; it is read here field by field anyway, and every value shown as text.

import { el } from './text.js';

type Row = Record<string, unknown>;

const integer = (value: unknown) => (typeof value === 'number' ? Math.round(value).toLocaleString('en-US') : '—');
const percent = (value: unknown) => (typeof value === 'number' ? `${(100 * value).toFixed(1)} %` : '—');

/** The columns of the policy table: a heading and how a policy's cell reads. */
const COLUMNS: ReadonlyArray<readonly [string, (policy: Row) => string]> = [
  ['policy', (policy) => String(policy.policy ?? '—')],
  ['feasible', (policy) => (policy.feasible === true ? 'yes' : 'no')],
  ['calls over window', (policy) => integer(policy.callsOverWindow)],
  ['tokens sent', (policy) => integer(policy.tokensSent)],
  ['peak tokens', (policy) => integer(policy.peakTokens)],
  ['compactions', (policy) => integer(policy.compactions)],
  [
    'summarizer in / out',
    (policy) => {
      const tokens = asRecord(policy.summarizerTokens);
      return tokens.input === 0 ? '–' : `${integer(tokens.input)} / ${integer(tokens.output)}`;
    },
  ],
  ['cache prefix', (policy) => percent(policy.cachePrefixShare)],
  ['cost', (policy) => (typeof policy.costUsd === 'number' ? `$${policy.costUsd.toFixed(2)}` : '—')],
  ['retention', (policy) => (policy.feasible === true ? percent(asRecord(policy.retention).share) : 'infeasible')],
];

/** With `tune --probe`: each policy's probe score beside its retention, the probes and the calls spent. */
const PROBE_COLUMNS: ReadonlyArray<readonly [string, (policy: Row) => string]> = [
  ['probe score', (policy) => percent(asRecord(policy.probe).score)],
  ['probes', (policy) => integer(asRecord(policy.probe).probes)],
  ['probe calls', (policy) => integer(asRecord(policy.probe).calls)],
];

function asRecord(value: unknown): Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Row) : {};
}

export function renderTune(panel: HTMLElement, report: unknown): void {
  const data = asRecord(report);
  const prices = asRecord(data.prices);
  const parts: HTMLElement[] = [
    el('h2', '', 'Tune report'),
    el('p', 'muted', `${String(data.estimator ?? '?')} estimates; prices of ${String(prices.date ?? '?')}`),
  ];
  const recommendation = asRecord(data.recommendation);
  const box = el(
    'p',
    'recommendation',
    recommendation.policy === undefined
      ? 'No recommendation: no feasible policy a policy file can express.'
      : `Recommended: ${String(recommendation.policy)} — ${String(recommendation.reason ?? '')}`,
  );
  box.id = 'tune-recommendation';
  parts.push(box);
  const policies = Array.isArray(data.policies) ? data.policies : [];
  const probe = asRecord(data.probe);
  const columns = data.probe === undefined ? COLUMNS : [...COLUMNS, ...PROBE_COLUMNS];
  if (data.probe !== undefined)
    parts.push(
      el(
        'p',
        'muted',
        `probes of ${String(probe.provider ?? '?')}/${String(probe.model ?? '?')}: ${integer(Array.isArray(probe.results) ? probe.results.length : undefined)} asked, ${integer(probe.calls)} calls spent of ${integer(probe.maxProbeCalls)} allowed`,
      ),
    );
  const table = el('table', 'tune-table');
  table.id = 'tune-policies';
  const header = el('tr');
  for (const [name] of columns) header.append(el('th', '', name));
  table.append(header);
  for (const entry of policies) {
    const row = el('tr');
    const policy = asRecord(entry);
    if (policy.feasible === false) row.className = 'infeasible';
    for (const [, read] of columns) row.append(el('td', '', read(policy)));
    const description = policy.description;
    if (typeof description === 'string') row.title = description;
    table.append(row);
  }
  parts.push(el('h3', '', `${policies.length} ${policies.length === 1 ? 'policy' : 'policies'}`), table);
  const sessions = Array.isArray(data.sessions) ? data.sessions : [];
  const list = el('ul', 'tune-sessions');
  for (const session of sessions) {
    const record = asRecord(session);
    list.append(el('li', '', `${String(record.sessionId ?? '?')}: ${integer(record.calls)} ${record.calls === 1 ? 'call' : 'calls'}`));
  }
  parts.push(el('h3', '', `${sessions.length} ${sessions.length === 1 ? 'session' : 'sessions'}`), list);
  const unfit = Array.isArray(data.unfitSessions) ? data.unfitSessions : [];
  if (unfit.length > 0) parts.push(el('p', 'muted', `left out, no policy fits their window: ${unfit.map(String).join(', ')}`));
  panel.replaceChildren(...parts);
}
