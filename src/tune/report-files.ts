// `tune --out DIR`: the report as files — report.md (the table, the recommendation and its
// evidence, each session's figures and where each policy breaks), report.json (what --json
// prints), policy.json (the recommended policy file) and the SVG plots.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { costRetentionSvg, tokensPerCallSvg } from './svg-plots.js';
import type { TuneReport } from './tune-report.js';
import { markdownTable } from './tune-table.js';

/** Sessions plotted one by one: the longest, so that a whole history does not write thousands of files. */
export const PLOTTED_SESSIONS = 12;

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/** The file name a session's plot gets (ids may hold dots; they stay, nothing else is needed). */
export function plotName(position: number, sessionId: string): string {
  return `tokens-${String(position + 1).padStart(2, '0')}-${sessionId}.svg`;
}

export async function writeTuneReport(report: TuneReport, directory: string): Promise<string[]> {
  await mkdir(directory, { recursive: true });
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    await writeFile(join(directory, name), text);
    written.push(name);
  };
  await write('report.json', `${JSON.stringify(report, null, 2)}\n`);
  if (report.recommendation !== null) await write('policy.json', `${JSON.stringify(report.recommendation.config, null, 2)}\n`);
  if (report.policies.length > 0) await write('cost-retention.svg', costRetentionSvg(report.policies));
  const plotted = [...report.sessions].sort((a, b) => b.calls - a.calls).slice(0, PLOTTED_SESSIONS);
  const plots: string[] = [];
  for (const [position, session] of plotted.entries()) {
    const name = plotName(position, session.sessionId);
    await write(
      name,
      tokensPerCallSvg(
        session,
        session.policies.map((policy) => policy.policy),
      ),
    );
    plots.push(name);
  }
  await write('report.md', markdownReport(report, plots));
  return written;
}

export function markdownReport(report: TuneReport, plots: readonly string[]): string {
  const calls = report.sessions.reduce((sum, session) => sum + session.calls, 0);
  const lines: string[] = [
    '# shadowlog tune report',
    '',
    `${report.sessions.length} sessions, ${count(calls)} model calls, ${report.policies.length} policies; token counts by the ${report.estimator} estimator; prices of ${report.prices.date} (${report.prices.source}). What each measure means: docs/tune.md.`,
    '',
    ...markdownTable(report.policies),
    '',
  ];
  const recommendation = report.recommendation;
  if (recommendation === null) lines.push('**Recommendation:** none — no feasible policy that a policy file can express.', '');
  else {
    lines.push(
      `**Recommendation: ${recommendation.policy}** — ${recommendation.reason}.`,
      '',
      'The policy file (policy.json here), for `shadowlog chat --compaction-config`, `shadowlog compact --compaction-config` and `createCompaction({config})`:',
      '',
      '```json',
      JSON.stringify(recommendation.config, null, 2),
      '```',
      '',
    );
  }
  if (report.unfitSessions.length > 0) lines.push(`Left out (no policy fits their window): ${report.unfitSessions.join(', ')}.`, '');
  lines.push('![cost against retention](cost-retention.svg)', '', '## Sessions', '');
  lines.push(
    '| session | calls | window | fixed tokens | meter error (mean, max) | infeasible policies |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  );
  for (const session of report.sessions) {
    const error =
      session.meterError === null ? '–' : `${percent(session.meterError.meanError)}, ${percent(session.meterError.maxAbsoluteError)}`;
    const infeasible = session.policies
      .filter((policy) => !policy.feasible)
      .map((policy) => (policy.refused !== null ? `${policy.policy} (refused)` : `${policy.policy} (call ${policy.firstCallOverWindow})`))
      .join(', ');
    lines.push(
      `| ${session.sessionId} | ${count(session.calls)} | ${session.windows.map(count).join(', ')} | ${count(session.fixedTokens)} | ${error} | ${infeasible || '–'} |`,
    );
  }
  lines.push('');
  for (const plot of plots) lines.push(`![tokens per call](${plot})`, '');
  lines.push('## Worst misses', '');
  for (const policy of report.policies) {
    if (policy.retention.worstMisses.length === 0) continue;
    const misses = policy.retention.worstMisses.map(
      (miss) => `\`${miss.artifact}\` (${miss.kind}, ${miss.misses}×, first at call ${miss.firstCall})`,
    );
    lines.push(`- ${policy.policy}: ${misses.join('; ')}`);
  }
  lines.push('');
  return lines.join('\n');
}
