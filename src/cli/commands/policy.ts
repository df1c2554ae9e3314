// `shadowlog policy --window W [--reserve R] [config options]`: the compaction threshold and
// retained tail for one window (SPEC §6), which term sets the threshold, and the crossover
// window where that changes. A configuration that cannot work fails with the library's message.

import type { Command } from 'commander';
import {
  COMPACTION_DEFAULTS,
  type CompactionPolicyConfig,
  compactionPreset,
  formatCount,
  parseCompactionConfig,
  type ResolvedPolicy,
  resolvePolicy,
} from '../../compaction/index.js';
import { ShadowlogError } from '../../log/index.js';
import { knownModelFamilies } from '../../providers/index.js';
import { DEFAULT_MAX_OUTPUT_TOKENS } from '../../spine/index.js';
import type { RunCommand } from '../command-kit.js';
import { layeredPolicy } from '../compact-policy-layers.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../usage-error.js';

/** The option values as typed on the command line; the library checks them. */
export interface PolicyCommandOptions {
  /** Required unless `models` is set. */
  readonly window?: string;
  /** A table over the models shadowlog knows, with the reserve the harness uses for each. */
  readonly models?: boolean;
  readonly reserve?: string;
  readonly thresholdRatio?: string;
  readonly headroomTokens?: string;
  readonly retainRatio?: string;
  readonly retainTokens?: string;
  /** A named preset (`dsh`) under the flags. */
  readonly preset?: string;
}

/** The default retained tail as the flag states it. */
export function defaultRetainText(): string {
  const retain = COMPACTION_DEFAULTS.retain;
  return retain.kind === 'ratio' ? String(retain.ratio) : `${retain.tokens} tokens`;
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/**
 * A number when the text is one (thousands separators "," and "_" allowed), else the text
 * itself, so that the library's message reports what was typed: found the string "0,8x".
 */
function numberOrText(text: string): number | string {
  const bare = /^[-+]?\d{1,3}(?:[,_]\d{3})+(?:\.\d*)?$/.test(text) ? text.replace(/[,_]/g, '') : text;
  return NUMBER.test(bare) ? Number(bare) : text;
}

/** The policy options a command line gave (--threshold-ratio, --headroom-tokens, …), as configuration keys. */
export type PolicyFlags = Pick<PolicyCommandOptions, 'thresholdRatio' | 'headroomTokens' | 'retainRatio' | 'retainTokens'>;

export function policyFlagsConfig(options: PolicyFlags): Record<string, number | string> {
  const config: Record<string, number | string> = {};
  for (const key of ['thresholdRatio', 'headroomTokens', 'retainRatio', 'retainTokens'] as const) {
    const value = options[key];
    if (value !== undefined) config[key] = numberOrText(value);
  }
  return config;
}

export async function policyCommand(context: CommandContext, options: PolicyCommandOptions): Promise<number> {
  const preset = options.preset === undefined ? {} : { ...compactionPreset(options.preset).config };
  const config = parseCompactionConfig(layeredPolicy([preset, policyFlagsConfig(options)]));
  if (options.models === true) {
    if (options.window !== undefined || options.reserve !== undefined)
      throw new UsageError("policy --models takes each model's own window and reserve; leave out --window and --reserve");
    return printModels(context, config);
  }
  if (options.window === undefined) throw new UsageError('policy needs --window TOKENS (or --models for the models shadowlog knows)');
  const policy = resolvePolicy(config, {
    contextWindow: numberOrText(options.window) as number,
    reserve: (options.reserve === undefined ? 0 : numberOrText(options.reserve)) as number,
  });
  if (context.json) {
    context.printJson({
      threshold: policy.threshold,
      retain: policy.retain,
      messageBudget: policy.messageBudget,
      pressureBudget: policy.pressureBudget,
      crossoverWindow: policy.crossoverWindow,
      decidedBy: policy.decidedBy,
      contextWindow: policy.contextWindow,
      reserve: policy.reserve,
      thresholdRatio: policy.thresholdRatio,
      headroomTokens: policy.headroomTokens,
      retainRatio: policy.retainSetting.kind === 'ratio' ? policy.retainSetting.ratio : null,
      retainTokens: policy.retainSetting.kind === 'tokens' ? policy.retainSetting.tokens : null,
    });
    return 0;
  }
  printTable(context, policy);
  return 0;
}

function printTable(context: CommandContext, policy: ResolvedPolicy): void {
  const setting = policy.retainSetting;
  const rows: Array<[string, string, string]> = [
    ['window W', formatCount(policy.contextWindow), "the model's context window"],
    ['reserve', formatCount(policy.reserve), 'completion tokens reserved for the answer'],
    ['messageBudget', formatCount(policy.messageBudget), 'W − reserve'],
    ['pressureBudget', formatCount(policy.pressureBudget), `messageBudget − headroomTokens (${formatCount(policy.headroomTokens)})`],
    [
      'threshold',
      formatCount(policy.threshold),
      `floor(min(W × thresholdRatio (${policy.thresholdRatio}), pressureBudget)): ${decidingTerm(policy)}`,
    ],
    [
      'retain',
      formatCount(policy.retain),
      setting.kind === 'ratio' ? `floor(messageBudget × retainRatio (${setting.ratio}))` : 'retainTokens',
    ],
    ['crossoverWindow', policy.crossoverWindow === null ? 'none' : formatCount(policy.crossoverWindow), crossoverNote(policy)],
  ];
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => value.length));
  for (const [label, value, note] of rows) context.print(`${label.padEnd(labelWidth)}  ${value.padStart(valueWidth)}  ${note}`);
}

function decidingTerm(policy: ResolvedPolicy): string {
  const term = policy.decidedBy === 'ratio' ? 'the ratio decides' : 'the headroom decides';
  if (policy.crossoverWindow === null) return `${term} at every window`;
  const where = policy.decidedBy === 'ratio' ? 'at or above' : 'below';
  return `${term} (W is ${where} the crossover ${formatCount(policy.crossoverWindow)})`;
}

function crossoverNote(policy: ResolvedPolicy): string {
  if (policy.crossoverWindow !== null)
    return 'for this reserve: from this window up the ratio sets the threshold, below it the headroom does';
  return policy.decidedBy === 'ratio'
    ? 'none: with no reserve and no headroom the ratio sets the threshold at every window'
    : 'none: the headroom sets the threshold at every window (thresholdRatio 1 never goes below it)';
}

interface ModelRow {
  readonly model: string;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** The reserve a harness uses by default: DEFAULT_MAX_OUTPUT_TOKENS, or the model's maximum when smaller. */
  readonly reserve: number;
  /** The threshold with that reserve, and with the model's maximum output as the reserve; null when refused. */
  readonly threshold: number | null;
  readonly thresholdAtMaxOutput: number | null;
  readonly retain: number | null;
}

/** The trigger for every model the table knows, with the harness's default reserve and with the model's maximum. */
function printModels(context: CommandContext, config: CompactionPolicyConfig): number {
  const thresholdFor = (contextWindow: number, reserve: number) => {
    try {
      return resolvePolicy(config, { contextWindow, reserve });
    } catch (error) {
      if (ShadowlogError.isInstance(error) && error.code === 'INVALID_CONFIG') return null;
      throw error;
    }
  };
  const rows: ModelRow[] = knownModelFamilies().map(([model, limits]) => {
    const reserve = Math.min(DEFAULT_MAX_OUTPUT_TOKENS, limits.defaultMaxOutputTokens);
    const resolved = thresholdFor(limits.contextWindow, reserve);
    return {
      model,
      contextWindow: limits.contextWindow,
      maxOutputTokens: limits.defaultMaxOutputTokens,
      reserve,
      threshold: resolved?.threshold ?? null,
      thresholdAtMaxOutput: thresholdFor(limits.contextWindow, limits.defaultMaxOutputTokens)?.threshold ?? null,
      retain: resolved?.retain ?? null,
    };
  });
  if (context.json) {
    context.printJson({ defaultReserve: DEFAULT_MAX_OUTPUT_TOKENS, models: rows });
    return 0;
  }
  const share = (value: number | null, window: number) =>
    value === null ? 'refused' : `${formatCount(value)} (${Math.round((value / window) * 100)} %)`;
  const table = [
    ['model', 'window', 'max output', 'reserve', 'threshold', 'with max output as reserve', 'retain'],
    ...rows.map((row) => [
      row.model,
      formatCount(row.contextWindow),
      formatCount(row.maxOutputTokens),
      formatCount(row.reserve),
      share(row.threshold, row.contextWindow),
      share(row.thresholdAtMaxOutput, row.contextWindow),
      row.retain === null ? '–' : formatCount(row.retain),
    ]),
  ];
  const widths = (table[0] as string[]).map((_, column) => Math.max(...table.map((line) => (line[column] as string).length)));
  for (const line of table)
    context.print(
      line
        .map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number)))
        .join('  '),
    );
  context.print(
    `reserve: the completion tokens a harness reserves by default, ${formatCount(DEFAULT_MAX_OUTPUT_TOKENS)} or the model's maximum when smaller (maxOutputTokens overrides it)`,
  );
  return 0;
}

/** Registers `shadowlog policy` on the program. */
export function registerPolicyCommand(program: Command, run: RunCommand): void {
  program
    .command('policy')
    .description('the compaction threshold and retained tail for a context window, which term decides, and the crossover window')
    .option('--window <tokens>', "the model's context window W")
    .option('--models', 'a table for every model shadowlog knows, each with its own window and the reserve a harness uses')
    .option('--reserve <tokens>', 'completion tokens reserved for the answer (default 0)')
    .option('--preset <name>', "a named policy under the flags: dsh (DSH's numbers: 0.8, 65536, 0.16)")
    .option('--threshold-ratio <ratio>', `compact at this share of the window, in (0, 1] (default ${COMPACTION_DEFAULTS.thresholdRatio})`)
    .option('--headroom-tokens <tokens>', `tokens kept free below the message budget (default ${COMPACTION_DEFAULTS.headroomTokens})`)
    .option('--retain-ratio <ratio>', `share of the message budget kept verbatim, in (0, 1) (default ${defaultRetainText()})`)
    .option('--retain-tokens <tokens>', 'tokens kept verbatim, instead of --retain-ratio')
    .action((options: PolicyCommandOptions) => run('read', (context) => policyCommand(context, options))());
}
