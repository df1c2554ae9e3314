// `shadowlog whatif <id> --turn N [--step K] --restore all|ID…` (or --policy FILE): a recorded
// call asked again under a counterfactual surface, the originals its compactions and prunes
// shadowed restored (SPEC §15), each request recorded in a what-if session; `--compaction ID`
// asks every call between that compaction and the next, after printing what it will spend.

import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { assertSessionId, ShadowlogError } from '../../log/index.js';
import { resolveSessionId } from '../../store/index.js';
import {
  type CallChoice,
  DEFAULT_WHATIF_MAX_CALLS,
  estimateWhatIf,
  planWhatIf,
  runWhatIf,
  type WhatIfPlan,
  type WhatIfQuestion,
} from '../../whatif/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { pricesOption } from '../price-option.js';
import { createCliRegistry } from '../registry.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';
import { whatIfQuestionPhrase } from '../whatif-link-text.js';
import { policyQuestion } from '../whatif-policy.js';
import { type TargetOptions, whatifTargets } from '../whatif-target.js';
import { describeCall, describeCallLine, describeEstimate, describeSummary } from '../whatif-text.js';

export interface WhatIfOptions extends TargetOptions {
  readonly turn?: number;
  readonly step?: number;
  readonly compaction?: string;
  readonly restore?: readonly string[];
  readonly policy?: string;
  readonly samples?: number;
  readonly maxCalls?: number;
  readonly yes?: boolean;
  readonly prices?: string;
}

/** A what-if of many calls, not confirmed: --yes was not given and there is no terminal to ask on. */
export class WhatIfNotConfirmedError extends ShadowlogError {
  constructor(message: string) {
    super('WHATIF_NOT_CONFIRMED', message);
  }
}

export async function whatifCommand(context: CommandContext, given: string, options: WhatIfOptions): Promise<number> {
  assertSessionId(given);
  const choice = callChoice(options);
  const question = questionOf(context, options, choice);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const registry = createCliRegistry();
  const plan = await planWhatIf(store, sessionId, choice, question, {
    registry,
    resolveRenderer: rendererFor,
    target: whatifTargets(options),
    samples: options.samples ?? 0,
    maxCalls: options.maxCalls ?? DEFAULT_WHATIF_MAX_CALLS,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
  });
  const estimate = estimateWhatIf(plan, pricesOption(context, options.prices));
  // Stdout holds one JSON document with --json: what is said before sending goes to stderr then.
  const say = (line: string) => (context.json ? context.io.stderr.write(`${line}\n`) : context.print(line));
  if ('compaction' in choice) {
    say(describeCompactionCalls(plan));
    say(describeEstimate(estimate, plan.maxCalls, plan.skipped.length));
    if (!(await confirmed(context, options, plan, say))) {
      say('nothing was sent');
      return 0;
    }
  }
  const report = await runWhatIf(store, plan, {
    registry,
    ...(context.io.signal === undefined ? {} : { signal: context.io.signal }),
    onCall: (call) => {
      if ('compaction' in choice && !context.json) context.print(describeCallLine(call));
    },
  });
  if (context.json) {
    context.printJson({ ...report, ...(plan.compaction === undefined ? {} : { compaction: plan.compaction }), estimate });
    return 0;
  }
  if ('compaction' in choice) {
    context.print('');
    for (const line of describeSummary(report)) context.print(line);
    const why = report.skipped.length === plan.skipped.length ? `--max-calls ${plan.maxCalls}` : 'stopped';
    if (report.skipped.length > 0) context.print(`not asked (${why}): ${listCalls(report.skipped)}`);
    return 0;
  }
  for (const call of report.calls) for (const line of describeCall(call)) context.print(line);
  return 0;
}

/** The calls named, the first ten of them when there are more. */
function listCalls(calls: ReadonlyArray<{ readonly turn: number; readonly step: number }>): string {
  const named = calls.slice(0, 10).map((call) => `turn ${call.turn} step ${call.step}`);
  return `${named.join(', ')}${calls.length > 10 ? `, and ${calls.length - 10} more (--json lists them)` : ''}`;
}

function callChoice(options: WhatIfOptions): CallChoice {
  if ((options.turn === undefined) === (options.compaction === undefined))
    throw new UsageError(
      'whatif takes --turn N [--step K] (one call), or --compaction ID (every call between that compaction and the next)',
    );
  if (options.compaction !== undefined) {
    if (options.step !== undefined)
      throw new UsageError('--step names a call with --turn; --compaction asks every call after the compaction');
    return { compaction: options.compaction };
  }
  return { call: { turn: options.turn as number, ...(options.step === undefined ? {} : { step: options.step }) } };
}

function questionOf(context: CommandContext, options: WhatIfOptions, choice: CallChoice): WhatIfQuestion {
  if (options.restore !== undefined && options.policy !== undefined)
    throw new UsageError('give --restore (undo replacements) or --policy FILE (the surface a policy would have made), not both');
  if (options.policy !== undefined) return policyQuestion(context, options.policy);
  if (options.restore !== undefined) {
    const all = options.restore.includes('all');
    if (all && options.restore.length > 1)
      throw new UsageError('--restore all undoes every replacement; give it alone, or name the ones to undo');
    return { restore: all ? 'all' : options.restore };
  }
  if ('compaction' in choice) return { restore: [choice.compaction] };
  throw new UsageError(
    'whatif --turn needs the question: --restore all, --restore ID… (compaction ids, seqs of replacements), or --policy FILE',
  );
}

function describeCompactionCalls(plan: WhatIfPlan): string {
  const compaction = plan.compaction;
  const first = plan.calls[0];
  const total = plan.calls.length + plan.skipped.length;
  const next =
    compaction?.nextId === null || compaction === undefined
      ? 'the end of the session'
      : `the next, ${compaction.nextId} (#${compaction.nextSeq})`;
  const asked =
    first === undefined
      ? ''
      : `, each asked again of ${first.target.model.provider}/${first.target.model.modelId} with ${whatIfQuestionPhrase(first.question)}`;
  return `whatif --compaction on ${plan.sessionId}: ${plural(total, 'call')} between compaction ${compaction?.id ?? ''} (#${compaction?.seq ?? ''}) and ${next}${asked}; ${plan.samples > 0 ? `--samples ${plan.samples}: ${plan.requestsPerCall} requests per call` : 'one request per call'}`;
}

/** --yes, or a yes typed at the terminal; without a terminal to ask on, a typed refusal. */
async function confirmed(context: CommandContext, options: WhatIfOptions, plan: WhatIfPlan, say: (line: string) => void): Promise<boolean> {
  if (options.yes === true) return true;
  const requests = plan.calls.length * plan.requestsPerCall;
  if ((context.io.stdin as { isTTY?: boolean }).isTTY !== true)
    throw new WhatIfNotConfirmedError(
      `whatif --compaction would send ${plural(requests, 'request')}, and there is no terminal to ask whether to: pass --yes to send them; nothing was sent`,
    );
  const lines = createInterface({ input: context.io.stdin, output: context.json ? context.io.stderr : context.io.stdout, terminal: false });
  try {
    const answer = await new Promise<string>((resolve) => lines.question(`send ${plural(requests, 'request')}? [y/N] `, resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    lines.close();
    say('');
  }
}

/** Registers `shadowlog whatif` on the program. */
export function registerWhatifCommand(program: Command, run: RunCommand): void {
  program
    .command('whatif <id>')
    .description(
      'ask a recorded call again with what its compactions removed restored (or another policy, or another model); each request recorded in a what-if session',
    )
    .option('--turn <n>', 'the call: its turn (from 1)', (value) => integerArgument(value, 'a turn number', 1))
    .option('--step <k>', 'the step within the turn (default 1)', (value) => integerArgument(value, 'a step number', 1))
    .option(
      '--compaction <id>',
      'every call between this compaction (its id, or its first characters) and the next, each asked with it undone',
    )
    .option(
      '--restore <ids...>',
      "all (every replacement and prune on the call's surface undone, through nested summaries), or compaction ids and seqs of replacements",
    )
    .option('--policy <file>', 'the surface a compaction policy (a JSON policy file, as tune writes) would have sent at that call')
    .option(
      '--provider <provider>',
      'ask another provider: openai (and OpenAI-compatible servers), openai-responses, anthropic (default: the recorded one)',
    )
    .option('--model <model>', 'the model to ask (default: the recorded one)')
    .option('--base-url <url>', 'the server to ask (an OpenAI-compatible server: http://127.0.0.1:8080/v1)')
    .option(
      '--window <tokens>',
      "the model's context window, to hold the request to (default: the recorded one, else the limits table's)",
      (value) => integerArgument(value, 'a number of tokens', 1),
    )
    .option('--max-output-tokens <n>', "completion tokens to reserve for the answer (default: the recorded request's)", (value) =>
      integerArgument(value, 'a number of tokens', 1),
    )
    .option('--samples <k>', 'send the recorded request and the counterfactual K times each, and count each answer', (value) =>
      integerArgument(value, 'a number of samples', 1),
    )
    .option('--max-calls <n>', `the most requests to send (default ${DEFAULT_WHATIF_MAX_CALLS})`, (value) =>
      integerArgument(value, 'a number of calls', 0),
    )
    .option('--yes', 'send the requests of --compaction without asking')
    .option('--prices <file>', 'a JSON price table laid over the built-in one, for the cost estimate')
    .action((id: string, options: WhatIfOptions) => run('write', (context) => whatifCommand(context, id, options))());
}
