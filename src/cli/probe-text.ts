// `tune --probe` in words: what the probes will spend, printed before anything is sent, and
// each policy's probe score beside its model-free retention once they are asked.

import { type ProbePlan, shortPolicyName, type TuneReport } from '../tune/index.js';
import { plural } from './plural.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

/** The plan: probes generated and asked, the calls and their estimate, what the cap left out, the policies not probed. */
export function probePlanLines(plan: ProbePlan, flags: { readonly provider: string; readonly model: string }): string[] {
  const { estimate } = plan;
  const calls = estimate.probeCalls + estimate.judgeCalls;
  const policies = new Set(plan.probes.map((probe) => probe.policy)).size;
  const lines = [
    `probes: ${plural(plan.generated, 'probe')} generated at ${count(plan.points - plan.pointsNotReached)} of ${plural(plan.points, 'compaction point')}; asking ${plural(plan.probes.length, 'probe')} of ${plural(policies, 'policy', { plural: 'policies' })} of ${flags.provider}/${flags.model}: ${plural(calls, 'call')} (${count(estimate.probeCalls)} probe, ${count(estimate.judgeCalls)} judge) within --max-probe-calls ${count(plan.maxProbeCalls)}`,
    `estimate: ~${count(estimate.inputTokens)} input tokens, at most ${count(estimate.outputTokens)} output tokens, ${estimate.costUsd === null ? `unpriced (${flags.model} is not in the price table of ${estimate.priceDate})` : `~$${estimate.costUsd.toFixed(4)} at the prices of ${estimate.priceDate}`}`,
  ];
  const capped = plan.skipped - plan.overWindow;
  if (plan.skipped > 0)
    lines.push(
      `skipped: ${plural(plan.skipped, 'probe')}${capped > 0 ? `, ${count(capped)} by --max-probe-calls ${count(plan.maxProbeCalls)} (spread over the policies evenly)` : ''}${plan.overWindow > 0 ? `, ${count(plan.overWindow)} whose request would not fit the window` : ''}`,
    );
  if (plan.pointsNotReached > 0)
    lines.push(
      `not reached: ${plural(plan.pointsNotReached, 'compaction point')}, whose surfaces were not built once --max-probe-calls ${count(plan.maxProbeCalls)} was spent`,
    );
  for (const unprobed of plan.unprobed)
    lines.push(`not probed: ${unprobed.policy} (${plural(unprobed.points, 'point')} where it cut): ${unprobed.reason}`);
  return lines;
}

/** Each probed policy's score beside its retention; nothing without probes. */
export function probeLines(report: TuneReport): string[] {
  const run = report.probe;
  if (run === undefined) return [];
  const rows = [['policy', 'retention', 'probes', 'score', 'unscored', 'calls', 'recall', 'files', 'next', 'decision']];
  const score = (value: number | null) => (value === null ? '–' : percent(value));
  for (const policy of report.policies) {
    const probe = policy.probe;
    if (probe === undefined || probe === null) continue;
    rows.push([
      shortPolicyName(policy.policy),
      percent(policy.retention.share),
      count(probe.probes),
      score(probe.score),
      count(probe.unscored),
      count(probe.calls),
      score(probe.kinds.recall.score),
      score(probe.kinds.artifacts.score),
      score(probe.kinds.continuation.score),
      score(probe.kinds.decision.score),
    ]);
  }
  const lines = [
    '',
    `probes of ${run.provider}/${run.model}: ${plural(run.results.length, 'probe')} asked, ${plural(run.calls, 'call')} spent of ${count(run.maxProbeCalls)} allowed; ${plural(run.skipped, 'probe')} not asked`,
  ];
  if (rows.length === 1) return [...lines, 'no probe was asked'];
  const widths = (rows[0] as string[]).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  for (const row of rows)
    lines.push(
      row
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0)))
        .join('  ')
        .trimEnd(),
    );
  lines.push(
    'score: the mean over scored probes, and per kind (recall of a cut fact, the files read or changed, the next step, a decision and its reason); paths, identifiers and numbers matched exactly, other answers judged by the model with the rubric; every call is recorded in a probe session (--json lists them)',
  );
  return lines;
}
