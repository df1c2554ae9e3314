// The table of a tune report, one row per policy: as aligned text for the terminal and as
// markdown for report.md and the docs. Ratios are against drop-oldest measured in the same run,
// the cut a user gets without compaction; an infeasible policy shows where it breaks, and is
// never divided by.

import type { PolicySummary } from './tune-report.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;
/** A share after compactions, with what it is of; a dash where there was nothing to count. */
const after = (share: number | null, of: number) => (share === null ? '–' : `${percent(share)} of ${count(of)}`);

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
      '–',
      '–',
      '–',
      '–',
      '–',
    ];
  }
  const cuts = policy.drops > 0 ? `${count(policy.drops)} drop${policy.drops === 1 ? '' : 's'}` : count(policy.compactions);
  return [
    policy.policy,
    count(policy.tokensSent),
    baselineTokens === undefined || baselineTokens === 0 ? '–' : `${(policy.tokensSent / baselineTokens).toFixed(2)}×`,
    `${percent(policy.meanWindowShare)} / ${percent(policy.peakWindowShare)}`,
    cuts,
    count(policy.prunes),
    policy.summarizerTokens.input === 0 ? '–' : `${count(policy.summarizerTokens.input)} / ${count(policy.summarizerTokens.output)}`,
    percent(policy.cachePrefixShare),
    `${dollars(policy.costUsd)}${policy.unpricedCalls > 0 ? ` (+${count(policy.unpricedCalls)} unpriced)` : ''}`,
    count(policy.callsOverWindow),
    retention,
    worst,
    after(policy.afterCompaction.aheadShare, policy.afterCompaction.aheadUsed),
    after(policy.afterCompaction.openShare, policy.afterCompaction.openRequests),
    after(policy.afterCompaction.instructionShare, policy.afterCompaction.instructions),
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
  "after compaction: next calls' artifacts held",
  'open requests held',
  'last instruction held',
];

/**
 * The policy ratios are taken against: drop-oldest when it ran and fit every window, else `none`,
 * else the first feasible policy; undefined when none did.
 */
export function ratioBaseline(policies: readonly PolicySummary[]): PolicySummary | undefined {
  const ran = policies.filter((policy) => policy.feasible && policy.calls > 0 && policy.tokensSent > 0);
  return ran.find((policy) => policy.policy === 'drop-oldest') ?? ran.find((policy) => policy.policy === 'none') ?? ran[0];
}

function rowsOf(policies: readonly PolicySummary[]): string[][] {
  const baseline = ratioBaseline(policies);
  const lookahead = policies[0]?.afterCompaction.lookaheadCalls;
  const header = TABLE_HEADER.map((cell, column) =>
    column === 2
      ? `÷ ${baseline?.policy ?? 'baseline'}`
      : column === 12 && lookahead !== undefined
        ? `after compaction: next ${lookahead} calls' artifacts held`
        : cell,
  );
  return [header, ...policies.map((policy) => policyRow(policy, baseline?.tokensSent))];
}

/** The widest the default terminal table may be. */
export const TEXT_TABLE_COLUMNS = 120;

/** Aligned lines for a terminal: the measures that decide, within 120 columns; `wide` gives every column. */
export function textTable(policies: readonly PolicySummary[], options: { readonly wide?: boolean } = {}): string[] {
  if (options.wide === true) return aligned(rowsOf(policies), 0);
  const baseline = ratioBaseline(policies);
  const header = [...COMPACT_HEADER];
  header[2] = `÷ ${baseline?.policy ?? 'baseline'}`;
  const lookahead = policies[0]?.afterCompaction.lookaheadCalls ?? 10;
  return [
    ...aligned([header, ...policies.map((policy) => compactRow(policy, baseline?.tokensSent))], 1),
    `held after: of what the ${lookahead} calls from each compaction use, the share the surface held right after it (--wide: more)`,
    ...unpricedLegend(policies),
  ];
}

/** What `+N` in the cost column means (the wide table says `(+N unpriced)`; the default one has no room for the word), when a policy has calls the price table does not know. */
function unpricedLegend(policies: readonly PolicySummary[]): string[] {
  if (!policies.some((policy) => policy.unpricedCalls > 0)) return [];
  return ['cost +N: N calls of models the price table does not know, not in the dollars (--prices FILE gives their prices)'];
}

/** Dollars and cents, with thousands separators: $12,345.67. */
function dollars(value: number): string {
  return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** Cells padded to their column's width; column `spanFrom`'s cell of an infeasible row may run over the columns after it. */
function aligned(rows: readonly string[][], spanFrom: number): string[] {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (spanFrom > 0 && row.length === 2 && column >= spanFrom ? 0 : (row[column] ?? '').length))),
  );
  return rows.map((row) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : row.length === 2 ? cell : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd(),
  );
}

// 33 + the widest other cells (tokens sent up to 999,999,999, ÷ ratio, an unpriced cost, retention, held after,
// compactions, over W) and their separators stay within TEXT_TABLE_COLUMNS.
const POLICY_COLUMN = 33;

/** A grid point's name in few characters: `summary thresholdRatio=0.6 headroomTokens=0` → `ratio 0.6 headroom 0`. */
export function shortPolicyName(name: string): string {
  const short = name
    .replace(/^summary (?=\w+=)/, '')
    .replace(/thresholdRatio=/g, 'ratio ')
    .replace(/headroomTokens=/g, 'headroom ')
    .replace(/retainRatio=/g, 'retain ')
    .replace(/retainTokens=/g, 'retain tokens ')
    .replace(/maxSummaryTokens=/g, 'summary ≤ ')
    .replace(/compactionRetries=/g, 'retries ')
    .replace(/pruner=/g, 'pruner ');
  return short.length <= POLICY_COLUMN ? short : `${short.slice(0, POLICY_COLUMN - 1)}…`;
}

/** `held after`: of the artifacts the calls after each compaction use, the share the surface held right after it. */
const COMPACT_HEADER = ['policy', 'tokens sent', '÷ baseline', 'cost', 'retention', 'held after', 'compactions', 'over W'];

/** The default table's cells: an infeasible policy is its name and where it breaks, nothing else. */
export function compactRow(policy: PolicySummary, baselineTokens: number | undefined): string[] {
  const name = shortPolicyName(policy.policy);
  if (!policy.feasible) return [name, breaksAt(policy)];
  return [
    name,
    count(policy.tokensSent),
    baselineTokens === undefined || baselineTokens === 0 ? '–' : `${(policy.tokensSent / baselineTokens).toFixed(2)}×`,
    `${dollars(policy.costUsd)}${policy.unpricedCalls > 0 ? ` +${count(policy.unpricedCalls)}` : ''}`,
    percent(policy.retention.share),
    policy.afterCompaction.aheadShare === null ? '–' : percent(policy.afterCompaction.aheadShare),
    policy.drops > 0 ? `${count(policy.drops)} drop${policy.drops === 1 ? '' : 's'}` : count(policy.compactions),
    count(policy.callsOverWindow),
  ];
}

/** Where and why an infeasible policy breaks, in a few words. */
export function breaksAt(policy: PolicySummary): string {
  const first = policy.infeasible[0];
  const others =
    policy.infeasible.length > 1 ? ` (and ${policy.infeasible.length - 1} more session${policy.infeasible.length === 2 ? '' : 's'})` : '';
  if (first === undefined) return 'infeasible';
  if (first.refused !== null) return `refused in ${shortId(first.sessionId)}${others}: see below`;
  return `over the window from call ${first.firstCallOverWindow} of ${shortId(first.sessionId)}${others}, ${count(policy.callsOverWindow)} call${policy.callsOverWindow === 1 ? '' : 's'} over`;
}

/** A session id cut to what tells sessions apart in a table. */
export function shortId(sessionId: string): string {
  return sessionId.length <= 28 ? sessionId : `${sessionId.slice(0, 27)}…`;
}

/** A markdown table. */
export function markdownTable(policies: readonly PolicySummary[]): string[] {
  const [header, ...body] = rowsOf(policies);
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header ?? []), line((header ?? []).map((_, column) => (column === 0 ? '---' : '---:'))), ...body.map(line)];
}
