// `shadowlog policy --window W [--reserve R] [config options]`: the compaction threshold and
// retained tail for one window (SPEC §6), which term sets the threshold, and the crossover
// window where that changes. A configuration that cannot work fails with the library's message.

import { formatCount, parseCompactionConfig, type ResolvedPolicy, resolvePolicy } from '../../compaction/policy.js';
import type { CommandContext } from '../context.js';

/** The option values as typed on the command line; the library checks them. */
export interface PolicyCommandOptions {
  readonly window: string;
  readonly reserve?: string;
  readonly thresholdRatio?: string;
  readonly headroomTokens?: string;
  readonly retainRatio?: string;
  readonly retainTokens?: string;
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
  const config = parseCompactionConfig(policyFlagsConfig(options));
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
