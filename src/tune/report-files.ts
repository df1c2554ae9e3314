// `tune --out DIR`: the report as files — report.md (the table, the recommendation and its
// evidence, each session's figures and where each policy breaks), report.json (what --json
// prints), policy.json (the recommended policy file) and the SVG plots. They are written as every
// output file is (store/output-file.ts): an existing one is refused unless `force`, and all of
// them are written to temporary files first, so that a full disk leaves none.

import { rmdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { FileError } from '../store/file-errors.js';
import {
  checkOutputDirectory,
  checkOutputTarget,
  type OutputFileOptions,
  prepareOutputDirectory,
  type StagedOutputFile,
  stageOutputFile,
} from '../store/output-file.js';
import { settingLines, sharedPrefixLines } from './report-lines.js';
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

/** The files every report with a recommendation and a policy writes, checked before a replay starts. */
const FIXED_FILES = ['report.json', 'report.md', 'policy.json', 'cost-retention.svg'];

export interface TuneReportFileOptions {
  /** Replace report files already in the directory (others there are left alone). Default false: FILE_EXISTS. */
  readonly force?: boolean;
}

/**
 * Refuses a report directory that `writeTuneReport` would refuse, before the replay that fills
 * it: a path that is not a directory, or (without `force`) one that holds a report already.
 */
export async function checkTuneReportTarget(directory: string, options: TuneReportFileOptions = {}): Promise<void> {
  await checkOutputDirectory(directory);
  for (const name of FIXED_FILES) await checkOutputTarget(join(directory, name), options);
}

export async function writeTuneReport(report: TuneReport, directory: string, options: TuneReportFileOptions = {}): Promise<string[]> {
  const files = reportFiles(report);
  const target = resolve(directory);
  const fileOptions: OutputFileOptions = { force: options.force === true };
  await checkOutputDirectory(target);
  // Every file is checked before any is written: a report is refused whole, not half replaced.
  for (const [name] of files) await checkOutputTarget(join(target, name), fileOptions);
  const made = await prepareOutputDirectory(target);
  const staged: StagedOutputFile[] = [];
  let published = 0;
  try {
    for (const [name, text] of files) staged.push(await stageOutputFile(join(target, name), text, fileOptions));
    for (const file of staged) {
      await file.publish();
      published++;
    }
  } catch (error) {
    // Every temporary file not yet named goes; the one whose naming failed says so in the error.
    let thrown: unknown = error;
    const left: string[] = [];
    for (const [index, file] of staged.entries()) {
      if (index < published) continue;
      if (index === published && staged.length === files.length) thrown = await file.discard(error);
      else {
        const path = await file.remove();
        if (path !== undefined) left.push(path);
      }
    }
    // A directory made for this report and left empty goes again (rmdir removes only an empty one).
    if (made && published === 0) await rmdir(target).catch(() => undefined);
    if (published > 0 || left.length > 0) throw withReportNote(thrown, files.slice(0, published), left);
    throw thrown;
  }
  return files.map(([name]) => name);
}

/** The error of a report written in part: which files were named before it, and which temporary files stayed. */
function withReportNote(error: unknown, written: ReadonlyArray<[string, string]>, left: readonly string[]): unknown {
  if (!(error instanceof FileError)) return error;
  const notes: string[] = [];
  if (written.length > 0) notes.push(`${written.map(([name]) => name).join(', ')} had been written already`);
  if (left.length > 0) notes.push(`the temporary files ${left.join(', ')} could not be removed: remove them by hand`);
  return new FileError(error.problem, error.path, `${error.message}; ${notes.join('; ')}`, {
    cause: error,
    ...(error.systemCode === undefined ? {} : { systemCode: error.systemCode }),
  });
}

/** The report's files, by name, in the order they are written. */
function reportFiles(report: TuneReport): Array<[name: string, text: string]> {
  const files: Array<[string, string]> = [['report.json', `${JSON.stringify(report, null, 2)}\n`]];
  if (report.recommendation !== null) {
    files.push(['policy.json', `${JSON.stringify(report.recommendation.policyFile ?? report.recommendation.config, null, 2)}\n`]);
    // Each source harness's own setting, beside the policy file.
    for (const setting of report.harnessSettings) files.push([setting.file.name, setting.file.text]);
  }
  if (report.policies.length > 0) files.push(['cost-retention.svg', costRetentionSvg(report.policies)]);
  const plotted = [...report.sessions].sort((a, b) => b.calls - a.calls).slice(0, PLOTTED_SESSIONS);
  const plots: string[] = [];
  for (const [position, session] of plotted.entries()) {
    const name = plotName(position, session.sessionId);
    files.push([
      name,
      tokensPerCallSvg(
        session,
        session.policies.map((policy) => policy.policy),
      ),
    ]);
    plots.push(name);
  }
  files.push(['report.md', markdownReport(report, plots)]);
  return files;
}

export function markdownReport(report: TuneReport, plots: readonly string[]): string {
  const calls = report.sessions.reduce((sum, session) => sum + session.calls, 0);
  const lines: string[] = [
    '# shadowlog tune report',
    '',
    `${report.sessions.length} session${report.sessions.length === 1 ? '' : 's'}, ${count(calls)} model call${calls === 1 ? '' : 's'}, ${report.policies.length} ${report.policies.length === 1 ? 'policy' : 'policies'}; token counts by the ${report.estimator} estimator; prices of ${report.prices.date} (${report.prices.source}). What each measure means: docs/tune.md.`,
    '',
    ...sharedPrefixLines(report).flatMap((line) => [line, '']),
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
      JSON.stringify(recommendation.policyFile ?? recommendation.config, null, 2),
      '```',
      '',
    );
    if (report.harnessSettings.length > 0) {
      lines.push('The same policy as each source harness sets it (each file is here too):', '');
      for (const line of settingLines(report.harnessSettings)) lines.push(line.startsWith('  ') ? `  ${line.trim()}` : `- ${line}`);
      lines.push('');
    }
  }
  if (report.unfitSessions.length > 0) lines.push(`Left out (no policy fits their window): ${report.unfitSessions.join(', ')}.`, '');
  lines.push(...probeMarkdown(report));
  lines.push('![cost against retention](cost-retention.svg)', '', '## Sessions', '');
  lines.push(
    '| session | calls | window | fixed tokens | meter error (median |error|, mean) | infeasible policies |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  );
  for (const session of report.sessions) {
    const error =
      session.meterError === null
        ? '–'
        : `median ${percent(session.meterError.medianAbsError)}, mean ${percent(session.meterError.meanError)}`;
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

/** With probes: each probed policy's score beside its retention, then every probe with its score and where it is recorded. */
function probeMarkdown(report: TuneReport): string[] {
  const run = report.probe;
  if (run === undefined) return [];
  const lines = [
    '## Probes',
    '',
    `${run.results.length} probe${run.results.length === 1 ? '' : 's'} asked of ${run.provider}/${run.model} at the policies' compaction points, ${count(run.calls)} calls spent of ${count(run.maxProbeCalls)} allowed; ${count(run.skipped)} not asked. Scores: the share of the expected paths, identifiers and numbers named (match), or the model's verdict with the rubric (judge). What each probe is: docs/tune.md, "Probes".`,
    '',
    '| policy | retention | probes | probe score | unscored | calls |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const score = (value: number | null) => (value === null ? '–' : percent(value));
  for (const policy of report.policies) {
    const probe = policy.probe;
    if (probe === undefined || probe === null) continue;
    lines.push(
      `| ${policy.policy} | ${percent(policy.retention.share)} | ${count(probe.probes)} | ${score(probe.score)} | ${count(probe.unscored)} | ${count(probe.calls)} |`,
    );
  }
  lines.push('', '| policy | call | kind | scoring | score | recorded in |', '| --- | ---: | --- | --- | ---: | --- |');
  for (const result of run.results) {
    const recorded = result.judgeSession === null ? result.probeSession : `${result.probeSession}, ${result.judgeSession}`;
    lines.push(
      `| ${result.policy} | #${result.requestSeq} of ${result.sessionId} | ${result.kind} | ${result.scoring} | ${result.score === null ? `unscored: ${(result.unscored ?? '').replace(/\|/g, '\\|')}` : score(result.score)} | ${recorded} |`.replace(
        /\n/g,
        ' ',
      ),
    );
  }
  lines.push('');
  return lines;
}
