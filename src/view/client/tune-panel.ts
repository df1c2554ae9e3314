/// <reference lib="dom" />
// A tune report (`view --tune report.json`): the policies compared, the sessions, and the
// recommendation. Checked against its schema on the server; read here field by field anyway,
// and every value shown as text.

import { el } from './text.js';

const COLUMNS = [
  'policy',
  'feasible',
  'tokensSent',
  'peakTokens',
  'compactions',
  'summarizerTokens',
  'cachePrefixShare',
  'costUsd',
  'retention',
];

function cell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(4);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function renderTune(panel: HTMLElement, report: unknown): void {
  const data = asRecord(report);
  const parts: HTMLElement[] = [el('h2', '', 'Tune report')];
  const recommendation = asRecord(data.recommendation);
  if (recommendation.policy !== undefined) {
    const box = el('p', 'recommendation', `Recommended: ${cell(recommendation.policy)} — ${cell(recommendation.reason)}`);
    box.id = 'tune-recommendation';
    parts.push(box);
  }
  const policies = Array.isArray(data.policies) ? data.policies : [];
  const table = el('table', 'tune-table');
  table.id = 'tune-policies';
  const header = el('tr');
  for (const column of COLUMNS) header.append(el('th', '', column));
  table.append(header);
  for (const entry of policies) {
    const row = el('tr');
    const record = asRecord(entry);
    if (record.feasible === false) row.className = 'infeasible';
    for (const column of COLUMNS) row.append(el('td', '', cell(record[column])));
    table.append(row);
  }
  parts.push(el('h3', '', `${policies.length} policies`), table);
  const sessions = Array.isArray(data.sessions) ? data.sessions : [];
  const list = el('ul', 'tune-sessions');
  for (const session of sessions) {
    const record = asRecord(session);
    list.append(
      el(
        'li',
        '',
        typeof record.sessionId === 'string' ? `${record.sessionId}: ${cell(record.policies ?? record.events ?? '')}` : cell(session),
      ),
    );
  }
  parts.push(el('h3', '', `${sessions.length} sessions`), list);
  panel.replaceChildren(...parts);
}
