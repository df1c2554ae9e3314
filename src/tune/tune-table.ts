// The table of a tune report, one row per policy: as aligned text for the terminal and as
// markdown for report.md and the docs. Ratios are against drop-oldest measured in the same run,
// the cut a user gets without compaction; an infeasible policy shows where it breaks, and is
// never divided by.

import type { PolicySummary } from './tune-report.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/** The table's cells for one policy; an infeasible one shows where it breaks instead of its totals. */
export function policyRow(policy: PolicySummary, baselineTokens: number | undefined): string[] {
  const recall = policy.retention.reachable > policy.retention.kept ? ` (recallable ${percent(policy.retention.recallable)})` : '';
  const retention = `${percent(policy.retention.share)} of ${count(policy.retention.used)}${recall}`;
  const miss = policy.retention.worstMisses[0];
  const worst = miss === undefined ? '–' : `${miss.artifact} (${miss.misses}×)`;
  if (!policy.feasible) {
    const first = policy.infeasible[0];
    const where =
      first === undefined
        ? ''
        : first.refused !== null
          ? `refused in ${first.sessionId}`
          : `from call ${first.firstCallOverWindow} of ${first.sessionId}`;
    return [
      policy.policy,
      `infeasible: ${policy.infeasible.length} session(s), ${where}`,
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      '–',
      count(policy.callsOverWindow),
      retention,
      worst,
    ];
  }
  const cuts = policy.drops > 0 ? `${count(policy.drops)} drops` : count(policy.compactions);
  return [
    policy.policy,
    count(policy.tokensSent),
    baselineTokens === undefined || baselineTokens === 0 ? '–' : `${(policy.tokensSent / baselineTokens).toFixed(2)}×`,
    `${percent(policy.meanWindowShare)} / ${percent(policy.peakWindowShare)}`,
    cuts,
    count(policy.prunes),
    policy.summarizerTokens.input === 0 ? '–' : `${count(policy.summarizerTokens.input)} / ${count(policy.summarizerTokens.output)}`,
    percent(policy.cachePrefixShare),
    `$${policy.costUsd.toFixed(2)}${policy.unpricedCalls > 0 ? ` (+${count(policy.unpricedCalls)} unpriced)` : ''}`,
    count(policy.callsOverWindow),
    retention,
    worst,
  ];
}

export const TABLE_HEADER = [
  'policy',
  'input tokens sent',
  '÷ drop-oldest',
  'per call: mean / peak of W',
  'compactions',
  'prunes',
  'summarizer in / out',
  'cache prefix',
  'cost',
  'over W',
  'retention',
  'worst miss',
];

function rowsOf(policies: readonly PolicySummary[]): string[][] {
  const baseline = policies.find((policy) => policy.policy === 'drop-oldest' && policy.feasible)?.tokensSent;
  return [TABLE_HEADER, ...policies.map((policy) => policyRow(policy, baseline))];
}

/** Aligned lines for a terminal. */
export function textTable(policies: readonly PolicySummary[]): string[] {
  const rows = rowsOf(policies);
  const widths = TABLE_HEADER.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** A markdown table. */
export function markdownTable(policies: readonly PolicySummary[]): string[] {
  const [header, ...body] = rowsOf(policies);
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header ?? []), line((header ?? []).map((_, column) => (column === 0 ? '---' : '---:'))), ...body.map(line)];
}
