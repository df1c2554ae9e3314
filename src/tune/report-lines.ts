// The lines of a tune report a person reads besides the table: why a policy was refused, what the
// worst misses are and where the session introduced them, and what a large meter error means.

import type { Miss } from './session-replay.js';
import type { PolicySummary, TuneReport } from './tune-report.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => `${(100 * value).toFixed(1)} %`;

const KIND_NAMES: Record<string, string> = { path: 'a file path', identifier: 'an identifier', error: 'an error name', number: 'a number' };

/** One miss in words: `src/a.ts` (a file path from a Read result, #123), missed at 4 calls from call 17. */
export function describeMiss(miss: Miss): string {
  const what = KIND_NAMES[miss.kind] ?? miss.kind;
  const from = miss.introducedBy === undefined ? '' : ` from ${miss.introducedBy} at #${miss.introducedSeq}`;
  return `\`${miss.artifact}\` (${what}${from}), missed at ${count(miss.misses)} call${miss.misses === 1 ? '' : 's'} from call ${miss.firstCall}${miss.sessionId === undefined ? '' : ` of ${miss.sessionId}`}`;
}

/** Each refusal: the policy, the session and the configuration error that refused it. */
export function refusalLines(policies: readonly PolicySummary[]): string[] {
  const lines: string[] = [];
  for (const policy of policies) {
    for (const where of policy.infeasible) {
      if (where.refused === null) continue;
      lines.push(`refused: ${policy.policy} in ${where.sessionId}, ${where.refused}`);
    }
  }
  return lines;
}

/** The worst misses of `policy`, at most `limit`, one a line. */
export function missLines(policy: PolicySummary, limit = 3): string[] {
  const misses = policy.retention.worstMisses.slice(0, limit);
  if (misses.length === 0) return [];
  return [`worst misses of ${policy.policy}:`, ...misses.map((miss) => `  ${describeMiss(miss)}`)];
}

/** A meter error past this is explained, not printed bare. */
export const LARGE_METER_ERROR = 0.1;

/** The meter error over the sessions that reported usage, and what it means when it is large. */
export function meterLines(report: TuneReport): string[] {
  const measured = report.sessions.filter((session) => session.meterError !== null);
  if (measured.length === 0) return ['meter error: no session reported its input tokens; the figures are the meter’s alone'];
  const calls = measured.reduce((sum, session) => sum + (session.meterError?.calls ?? 0), 0);
  const worst = measured.reduce((top, session) =>
    (session.meterError?.medianAbsError ?? 0) > (top.meterError?.medianAbsError ?? 0) ? session : top,
  );
  const error = worst.meterError;
  if (error === null) return [];
  const head = `meter error (as stats --calls computes it, over ${count(calls)} call${calls === 1 ? '' : 's'} of ${measured.length} session${measured.length === 1 ? '' : 's'}): worst median ${percent(error.medianAbsError)} in ${worst.sessionId}`;
  if (error.medianAbsError < LARGE_METER_ERROR) return [`${head}.`];
  const under = error.meanError < 0;
  const reasons = [
    under
      ? `the meter counts ${percent(-error.meanError)} less than the provider on average`
      : `the meter counts ${percent(error.meanError)} more than the provider on average`,
  ];
  if (worst.models.some((model) => model.startsWith('claude')))
    reasons.push("Claude's tokenizer counts about 1.27× o200k_base on English and code");
  if (worst.models.some((model) => /codex|gpt-5|o3|o4/.test(model)))
    reasons.push('encrypted reasoning is counted as input on later calls of a turn, and the record holds none of it');
  reasons.push(
    `the system prompt and tools the record lacks are one fixed part (${count(worst.fixedTokens)} tokens), set by the first call`,
  );
  return [
    `${head}: ${reasons.join('; ')}.`,
    '  Every policy is priced by the same meter, so their order holds; their absolute tokens and cost are off by about that much.',
  ];
}

const HARNESS_NAMES: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex', pi: 'pi', opencode: 'opencode' };

/** The recommendation as each harness's own setting: what to set, where, and what the harness cannot express. */
export function settingLines(settings: TuneReport['harnessSettings']): string[] {
  const lines: string[] = [];
  for (const setting of settings) {
    const name = HARNESS_NAMES[setting.harness] ?? setting.harness;
    if (setting.closest === null) {
      // The harness cannot run in the window at all: nothing to set, and the reason.
      lines.push(
        `for ${name} (${setting.sessions} session${setting.sessions === 1 ? '' : 's'}, window ${count(setting.window.contextWindow)}): no setting applies; ${setting.where}`,
      );
      continue;
    }
    lines.push(
      `for ${name} (${setting.sessions} session${setting.sessions === 1 ? '' : 's'}, window ${count(setting.window.contextWindow)}): ${setting.setting}, in ${setting.where}`,
    );
    const measured = setting.measured;
    const cost =
      measured === null
        ? ''
        : `; measured on its sessions: $${measured.costUsd.toFixed(2)} and ${percent(measured.retention)} retention, against the recommended policy's $${measured.recommendedCostUsd.toFixed(2)} and ${percent(measured.recommendedRetention)}`;
    lines.push(`  ${setting.exact ? 'exact: ' : 'closest it can get: '}${setting.note}${cost}`);
  }
  return lines;
}

/**
 * Branches whose prefix another session of the run counts (SPEC §14: a shared prefix counted
 * once): how many, the calls left out of them, and where each is counted. Empty without such branches.
 */
export function sharedPrefixLines(report: TuneReport): string[] {
  const branches = report.sessions.filter((session) => session.sharedPrefix !== undefined);
  const prefixOnly = report.prefixOnlyBranches ?? [];
  const empty =
    prefixOnly.length === 0
      ? []
      : [
          `branches left out: ${prefixOnly.join(', ')}, with no model call of ${prefixOnly.length === 1 ? 'its' : 'their'} own (${prefixOnly.length === 1 ? 'its prefix is' : 'their prefixes are'} counted in the session${prefixOnly.length === 1 ? '' : 's'} ${prefixOnly.length === 1 ? 'it forks' : 'they fork'})`,
        ];
  if (branches.length === 0) return empty;
  const calls = branches.reduce((sum, session) => sum + (session.sharedPrefix?.calls ?? 0), 0);
  const where = branches
    .map((session) => `${session.sessionId} after #${count(session.sharedPrefix?.forkSeq ?? 0)} of ${session.sharedPrefix?.countedIn}`)
    .join(', ');
  return [
    `branches: ${count(branches.length)} branch${branches.length === 1 ? '' : 'es'} counted from ${branches.length === 1 ? 'its fork point' : 'their fork points'} on (a shared prefix is counted once, in the session it belongs to): ${where}; ${count(calls)} prefix call${calls === 1 ? '' : 's'} replayed there and not counted again`,
    ...empty,
  ];
}
