// `shadowlog tune [ids or files…] [--all]`: every session replayed under each policy of a grid
// and the baselines of other harnesses, from its record (no model is called), with a table of
// what each would have sent, kept and cost, and the policy the evidence recommends.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { importFiles, readImportInputs } from '../../importers/index.js';
import { SessionNotFoundError } from '../../log/index.js';
import { isEstimatorName } from '../../meter/index.js';
import { checkOutputTarget, MemoryLogStore, resolveSessionId, writeOutputFile } from '../../store/index.js';
import {
  checkTuneReportTarget,
  meterLines,
  missLines,
  type PriceTable,
  parseGrid,
  planProbes,
  refusalLines,
  runProbes,
  settingLines,
  sharedPrefixLines,
  TEXT_TABLE_COLUMNS,
  type TunePolicy,
  type TuneReport,
  type TuneSession,
  textTable,
  tunePolicies,
  tuneSessions,
  windowLines,
  writeTuneReport,
} from '../../tune/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { pricesOption } from '../price-option.js';
import { probeLines, probePlanLines } from '../probe-text.js';
import { createProgressBar } from '../progress-bar.js';
import { createCliRegistry } from '../registry.js';
import { rendererFor } from '../renderers.js';
import { openStore, parseStoreSpec } from '../store-option.js';
import { UsageError } from '../usage-error.js';
import { assertAdapter, whatifTargets } from '../whatif-target.js';

export interface TuneCommandOptions {
  readonly all: boolean;
  readonly window?: number;
  readonly reserve?: number;
  readonly grid: readonly string[];
  readonly strategies?: string;
  readonly baselines?: string;
  /** Named presets replayed beside the defaults (`dsh`). */
  readonly preset?: string;
  readonly prices?: string;
  readonly margin?: string;
  readonly lookahead?: string;
  readonly estimator?: string;
  readonly out?: string;
  readonly policyFile?: string;
  /** Replace existing --out report files and --policy-file. */
  readonly force?: boolean;
  /** Every column of the table, not only the measures that decide. */
  readonly wide?: boolean;
  /** Probes: questions asked of a model at each compaction point of each policy (see docs/tune.md). */
  readonly probe?: boolean;
  readonly provider?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly maxProbeCalls?: string;
  readonly probeStore?: string;
  /** The window of the model asked, when the limits table does not know it. */
  readonly probeWindow?: number;
}

const list = (text: string | undefined) =>
  text === undefined
    ? undefined
    : text
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== '');

export async function tuneCommand(context: CommandContext, inputs: readonly string[], options: TuneCommandOptions): Promise<number> {
  if (inputs.length === 0 && !options.all) throw new UsageError('tune needs session ids, session files or directories, or --all');
  const margin = options.margin === undefined ? undefined : Number(options.margin);
  if (margin !== undefined && !(Number.isFinite(margin) && margin >= 0 && margin <= 1))
    throw new UsageError(`--margin is a share of retention from 0 to 1 (0.02 is two points), found ${JSON.stringify(options.margin)}`);
  const lookahead = options.lookahead === undefined ? undefined : Number(options.lookahead);
  if (lookahead !== undefined && !(Number.isInteger(lookahead) && lookahead >= 1))
    throw new UsageError(`--lookahead is a whole number of calls from 1 (default 10), found ${JSON.stringify(options.lookahead)}`);
  if (options.estimator !== undefined && !isEstimatorName(options.estimator))
    throw new UsageError(
      `--estimator takes chars4, script-aware, o200k_base, cl100k_base or llama3, found ${JSON.stringify(options.estimator)}`,
    );
  const grid = parseGrid(options.grid);
  const probe = probeOptions(options);
  const prices = pricesOption(context, options.prices);
  if (options.force === true && options.out === undefined && options.policyFile === undefined)
    throw new UsageError('--force replaces the files of --out and --policy-file; give one of them with it');
  const force = { force: options.force === true };
  // Refused before the replay, which can take minutes; checked again when written.
  if (options.out !== undefined) await checkTuneReportTarget(resolve(context.io.cwd, options.out), force);
  if (options.policyFile !== undefined) await checkOutputTarget(resolve(context.io.cwd, options.policyFile), force);

  const { sessions, failedFiles } = await sessionsOf(context, inputs, options.all);
  if (sessions.length === 0) throw new UsageError('no sessions to tune: the store holds none, and no files were given');
  const bar = createProgressBar(context.io.stderr, { label: 'tuning' });
  const strategies = list(options.strategies);
  const baselines = list(options.baselines);
  const presets = list(options.preset);
  const policies = tunePolicies({
    grid,
    ...(strategies === undefined ? {} : { strategies }),
    ...(baselines === undefined ? {} : { baselines }),
    ...(presets === undefined ? {} : { presets }),
  });
  let report = await tuneSessions(sessions, {
    policies,
    prices,
    ...(options.window === undefined ? {} : { window: options.window }),
    ...(options.reserve === undefined ? {} : { reserve: options.reserve }),
    ...(margin === undefined ? {} : { margin }),
    ...(lookahead === undefined ? {} : { lookaheadCalls: lookahead }),
    ...(options.estimator === undefined ? {} : { estimator: options.estimator as never }),
    onProgress: (progress) =>
      bar.update({
        done: progress.session - 1 + progress.call / Math.max(1, progress.calls),
        total: progress.sessions,
        detail: `${progress.session}/${progress.sessions} sessions, call ${progress.call}/${progress.calls}, ${progress.sessionId}`,
      }),
  });
  bar.finish();
  if (probe !== undefined) report = await askProbes(context, report, sessions, policies, probe, options, prices);
  if (options.out !== undefined) await writeTuneReport(report, resolve(context.io.cwd, options.out), force);
  if (options.policyFile !== undefined && report.recommendation !== null) {
    await writeOutputFile(
      resolve(context.io.cwd, options.policyFile),
      `${JSON.stringify(report.recommendation.policyFile ?? report.recommendation.config, null, 2)}\n`,
      force,
    );
  }
  if (context.json) context.printJson(report);
  else printReport(context, report, options);
  return failedFiles > 0 ? 1 : 0;
}

/**
 * The sessions named: a path that exists is imported into a scratch store; anything else is a
 * session id in the store. Under a directory, files that are not sessions are skipped and damaged
 * ones reported on stderr, and the rest are tuned (`failedFiles` counts the damaged).
 */
async function sessionsOf(
  context: CommandContext,
  inputs: readonly string[],
  all: boolean,
): Promise<{ sessions: TuneSession[]; failedFiles: number }> {
  const sessions: TuneSession[] = [];
  const paths = inputs.filter((input) => existsSync(resolve(context.io.cwd, input)));
  const ids = inputs.filter((input) => !paths.includes(input));
  if (all || ids.length > 0) {
    const store = await context.store();
    if (all) for (const session of await store.listSessions()) sessions.push({ store, sessionId: session.id });
    for (const given of ids) {
      const sessionId = await resolveSessionId(store, given).catch((error: unknown) => {
        if (!(error instanceof SessionNotFoundError)) throw error;
        throw new UsageError(`${given} is neither a file nor a session in the store; give a path, or an id from \`shadowlog sessions\``);
      });
      if (!sessions.some((session) => session.sessionId === sessionId)) sessions.push({ store, sessionId });
    }
  }
  if (paths.length > 0) {
    const scratch = new MemoryLogStore();
    const summary = await importFiles(scratch, await readImportInputs(paths, context.io.cwd), {
      format: 'auto',
      registry: createCliRegistry(),
    });
    for (const file of summary.files) for (const session of file.sessions) sessions.push({ store: scratch, sessionId: session.sessionId });
    for (const file of summary.skipped) context.io.stderr.write(`shadowlog: skipped ${file.path}: ${file.reason}\n`);
    for (const file of summary.failed) {
      context.io.stderr.write(
        `shadowlog: failed: ${file.path}${file.line === null ? '' : ` line ${file.line}`}: ${file.code}: ${file.message}; tuning the other files\n`,
      );
    }
    return { sessions, failedFiles: summary.failed.length };
  }
  return { sessions, failedFiles: 0 };
}

function printReport(context: CommandContext, report: TuneReport, options: TuneCommandOptions): void {
  const say = (line: string) => {
    for (const part of wrapLine(line, TEXT_TABLE_COLUMNS)) context.print(part);
  };
  const calls = report.sessions.reduce((sum, session) => sum + session.calls, 0);
  say(
    `${plural(report.sessions.length, 'session')}, ${plural(calls, 'model call', { separators: true })}; prices of ${report.prices.date}; ${report.estimator} estimates`,
  );
  for (const line of sharedPrefixLines(report)) say(line);
  for (const line of windowLines(report.sessions, options.window)) say(line);
  for (const line of textTable(report.policies, { wide: options.wide === true })) context.print(line);
  for (const line of refusalLines(report.policies)) say(line);
  if (report.unfitSessions.length > 0) say(`left out, no policy fits their window: ${report.unfitSessions.join(', ')}`);
  const recommendation = report.recommendation;
  if (recommendation === null) say('recommendation: none (no feasible policy that a policy file can express)');
  else {
    say(`recommendation: ${recommendation.policy}: ${recommendation.reason}`);
    say(
      `policy file: ${JSON.stringify(recommendation.policyFile ?? recommendation.config)
        .replace(/,"/g, ', "')
        .replace(/":/g, '": ')}${options.policyFile === undefined ? '' : ` (written to ${options.policyFile})`}`,
    );
    for (const line of settingLines(report.harnessSettings)) say(line);
    const chosen = report.policies.find((policy) => policy.policy === recommendation.policy);
    if (chosen !== undefined) for (const line of missLines(chosen)) say(line);
  }
  for (const line of meterLines(report)) say(line);
  for (const line of probeLines(report)) say(line);
  if (options.out !== undefined) say(`report: ${join(options.out, 'report.md')}`);
}

interface ProbeFlags {
  readonly provider: string;
  readonly model: string;
  readonly maxProbeCalls: number;
}

/** --probe's flags checked before the replay: the cap a whole number from 1, the provider one shadowlog has an adapter for. */
function probeOptions(options: TuneCommandOptions): ProbeFlags | undefined {
  if (options.probe !== true) {
    const stray = (['provider', 'model', 'baseUrl', 'maxProbeCalls', 'probeStore', 'probeWindow'] as const).find(
      (key) => options[key] !== undefined,
    );
    if (stray !== undefined)
      throw new UsageError(
        `--${stray.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} is a flag of --probe; give --probe with it`,
      );
    return undefined;
  }
  if (options.maxProbeCalls === undefined)
    throw new UsageError('--probe needs --max-probe-calls N, the most probe and judge calls it may send; nothing was sent');
  const cap = Number(options.maxProbeCalls);
  if (!/^-?\d+$/.test(options.maxProbeCalls.trim()) || !Number.isSafeInteger(cap) || cap < 1)
    throw new UsageError(
      `--max-probe-calls must allow at least one call (a whole number from 1), found ${JSON.stringify(options.maxProbeCalls)}; nothing was sent, nothing was written`,
    );
  if (options.provider === undefined || options.model === undefined)
    throw new UsageError('--probe asks a model: give it with --provider P --model M [--base-url URL]; nothing was sent');
  assertAdapter(options.provider);
  return { provider: options.provider, model: options.model, maxProbeCalls: cap };
}

/** Plans the probes, prints what they will spend, asks them, and returns the report with their scores. */
async function askProbes(
  context: CommandContext,
  report: TuneReport,
  sessions: readonly TuneSession[],
  policies: readonly TunePolicy[],
  probe: ProbeFlags,
  options: TuneCommandOptions,
  prices: PriceTable,
): Promise<TuneReport> {
  // Stdout holds one JSON document with --json: what is said before sending goes to stderr then.
  const say = (line: string) => (context.json ? context.io.stderr.write(`${line}\n`) : context.print(line));
  const store =
    options.probeStore === undefined
      ? await context.store()
      : await openStore(parseStoreSpec(options.probeStore, context.io.cwd, '--probe-store'), 'write', (message) =>
          context.io.stderr.write(`shadowlog: ${message}\n`),
        );
  const registry = createCliRegistry();
  const bar = createProgressBar(context.io.stderr, { label: 'probe surfaces' });
  const plan = await planProbes(report, sessions, policies, store, {
    registry,
    resolveRenderer: rendererFor,
    target: whatifTargets({
      windowFlag: '--probe-window',
      provider: probe.provider,
      model: probe.model,
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.probeWindow !== undefined
        ? { window: options.probeWindow }
        : options.window === undefined
          ? {}
          : { window: options.window }),
    }),
    maxProbeCalls: probe.maxProbeCalls,
    prices,
    onPoint: (done, total) => bar.update({ done, total, detail: `compaction point ${done}/${total}` }),
  });
  bar.finish();
  for (const line of probePlanLines(plan, probe)) say(line);
  const asked = await runProbes(report, plan, {
    registry,
    ...(context.io.signal === undefined ? {} : { signal: context.io.signal }),
  });
  return asked;
}

/** A line cut at spaces to `width` columns; continuation lines are indented by two spaces. */
function wrapLine(line: string, width: number): string[] {
  const parts: string[] = [];
  let rest = line;
  const indent = /^ */.exec(line)?.[0] ?? '';
  while (rest.length > width) {
    const cut = rest.lastIndexOf(' ', width);
    if (cut <= indent.length + 2) break;
    parts.push(rest.slice(0, cut));
    rest = `${indent}  ${rest.slice(cut + 1)}`;
  }
  parts.push(rest);
  return parts;
}

/** Registers `shadowlog tune` on the program. */
export function registerTuneCommand(program: Command, run: RunCommand): void {
  program
    .command('tune [inputs...]')
    .description(
      'replay recorded sessions (ids, or files and directories of any importable format) under compaction policies and baselines: tokens, cost, retention, and a recommended policy file',
    )
    .option('--all', 'every session in the store')
    .option('--window <tokens>', "every call's context window, instead of the recorded one", (value) => integerArgument(value, 'tokens', 1))
    .option('--reserve <tokens>', 'completion tokens reserved per call, instead of the recorded max output (else 0)', (value) =>
      integerArgument(value, 'tokens'),
    )
    .option(
      '--grid <key=v1,v2...>',
      'policy values to replay, e.g. thresholdRatio=0.6,0.8 retainRatio=0.05,0.16 pruner=on,off',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--strategies <list>', 'the strategies each grid point runs with (default summary)')
    .option('--baselines <list>', 'the baselines to compare, by name: pi, claude-code, codex, opencode, drop-oldest, none (default all)')
    .option(
      '--preset <names>',
      "named policies to replay beside the defaults, e.g. dsh (DSH's numbers: 0.8, 65536, 0.16, pruner 8192/4096/1024)",
    )
    .option('--prices <file>', 'a JSON price table laid over the built-in one')
    .option('--margin <share>', 'how far below the best retention the recommendation may be (default 0.02)')
    .option('--lookahead <calls>', 'after each compaction, how many calls from it on its surface is judged against (default 10)')
    .option('--estimator <name>', 'how tokens are counted (default script-aware)')
    .option(
      '--out <dir>',
      'write report.md, report.json, policy.json and SVG plots there (made if missing; its report files must not exist yet, unless --force)',
    )
    .option(
      '--wide',
      'every column of the table (summarizer tokens, cache prefix, window shares, prunes, worst miss), not only those that decide',
    )
    .option('--policy-file <file>', 'write the recommended policy there (it must not exist yet, unless --force)')
    .option(
      '--probe',
      'ask a model probe questions at each compaction point of each policy, with its surface (needs --provider, --model, --max-probe-calls)',
    )
    .option(
      '--provider <provider>',
      'with --probe: the provider asked: openai (and OpenAI-compatible servers), openai-responses, anthropic',
    )
    .option('--model <model>', 'with --probe: the model asked, which also judges the answers no exact match scores')
    .option('--base-url <url>', 'with --probe: the server to ask (an OpenAI-compatible server: http://127.0.0.1:8080/v1)')
    .option('--max-probe-calls <n>', 'with --probe: the most probe and judge calls to send, in all (required)')
    .option(
      '--probe-window <tokens>',
      "with --probe: the asked model's context window (default: the limits table's, the recorded one for the recorded model, else --window)",
      (value) => integerArgument(value, 'tokens', 1),
    )
    .option(
      '--probe-store <store>',
      'with --probe: where the probe sessions are recorded, sqlite:PATH or postgres://… (default: the store)',
    )
    .option(
      '--force',
      'replace the report files of --out and the --policy-file if they exist (the files themselves: a symbolic link is replaced, not followed)',
    )
    .action(
      (
        inputs: string[],
        options: {
          all?: boolean;
          window?: number;
          reserve?: number;
          grid: string[];
          strategies?: string;
          baselines?: string;
          preset?: string;
          prices?: string;
          margin?: string;
          lookahead?: string;
          estimator?: string;
          out?: string;
          policyFile?: string;
          force?: boolean;
          wide?: boolean;
          probe?: boolean;
          provider?: string;
          model?: string;
          baseUrl?: string;
          maxProbeCalls?: string;
          probeStore?: string;
          probeWindow?: number;
        },
      ) =>
        // Probes are recorded: in --probe-store, else in the store, which is then written.
        run(options.probe === true && options.probeStore === undefined ? 'write' : 'read', (context) =>
          tuneCommand(context, inputs, { ...options, all: options.all === true }),
        )(),
    );
}
