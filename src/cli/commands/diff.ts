// `shadowlog diff <id> <call> <call>`: what changed on the surface between two model calls, as
// the audit page's per-call panel shows it ("Change from call 3.1"): nodes appended, nodes
// replaced and by what, nodes gone, and the tokens before and after (call-diff.ts).

import type { Command } from 'commander';
import { assertSessionId } from '../../log/index.js';
import { resolveSessionId } from '../../store/index.js';
import { type CallDiffReport, type CallName, type DiffCall, type DiffNode, diffCalls, type ReplacedBy } from '../call-diff.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { formatCount } from '../record-filter.js';
import { UsageError } from '../usage-error.js';

/** `3.2` (turn 3, step 2) or `3` (its first step, as replay's --step defaults to 1). */
export function parseCallName(text: string): CallName {
  const found = /^(\d+)(?:\.(\d+))?$/.exec(text.trim());
  const turn = Number(found?.[1]);
  const step = found?.[2] === undefined ? 1 : Number(found[2]);
  if (found === null || !Number.isSafeInteger(turn) || !Number.isSafeInteger(step) || turn < 1 || step < 1) {
    throw new UsageError(
      `a call is named TURN.STEP, as replay (--turn 3 --step 2) and the audit page (call 3.2) name it, or TURN for its first step; found ${JSON.stringify(text)}`,
    );
  }
  return { turn, step };
}

export async function diffCommand(context: CommandContext, given: string, from: CallName, to: CallName): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const sessionId = await resolveSessionId(await context.store(), given);
  const report = await diffCalls(await context.store(), sessionId, from, to);
  if (context.json) {
    context.printJson(report);
    return 0;
  }
  for (const line of describeDiff(report)) context.print(line);
  return 0;
}

const ROLE: Record<string, string> = {
  'system/message': 'system',
  'user/message': 'user',
  'assistant/message': 'assistant',
  'tool/result': 'tool',
};

function name(call: { readonly turn: number; readonly step: number }): string {
  return `${call.turn}.${call.step}`;
}

function tokens(count: number): string {
  return `${formatCount(count)} token${count === 1 ? '' : 's'}`;
}

/** `#44 user, #45 assistant`, or `#3 … #29 (15 nodes)` past twelve, as the page lists them. */
function nodeList(nodes: readonly DiffNode[]): string {
  if (nodes.length > 12) return `#${nodes[0]?.seq} … #${nodes[nodes.length - 1]?.seq}: ${nodes.length} nodes`;
  return nodes
    .map((node) => `#${node.seq} ${ROLE[node.type] ?? node.type}${node.copyOf === undefined ? '' : ` (a copy of #${node.copyOf})`}`)
    .join(', ');
}

function sum(nodes: readonly DiffNode[]): number {
  return nodes.reduce((total, node) => total + node.tokens, 0);
}

function seqList(seqs: readonly number[]): string {
  return seqs.length > 12 ? `#${seqs[0]} … #${seqs[seqs.length - 1]} (${seqs.length})` : seqs.map((seq) => `#${seq}`).join(' ');
}

const LABEL = { compacted: '▤ compacted', pruned: '✂ pruned', masked: '▦ masked', replaced: '⇄ replaced' } as const;

/** Who made a replacement: its compaction, prune or mask event, or none (the client's own rewrite, as the proxy records it). */
function describeMaker(by: ReplacedBy | null, to: DiffCall): string {
  if (by === null) {
    return to.provenance === 'proxied'
      ? 'with no compaction event: the client rewrote its history, as the proxy recorded it'
      : 'with no compaction event among its sources';
  }
  const id = by.compactionId === undefined ? '' : ` ${by.compactionId.slice(0, 8)}`;
  switch (by.type) {
    case 'compaction/summary':
      return `by compaction${id}${by.importedFrom === undefined ? '' : ` (imported from ${by.importedFrom})`}, its summary #${by.seq}`;
    case 'compaction/prune':
      return `by the pruner, #${by.seq}`;
    default:
      return `by compaction${id}, its mask #${by.seq}`;
  }
}

function describeCall(call: DiffCall, estimator: string): string {
  const origin = call.provenance === 'sent' ? '' : call.provenance === 'imported' ? ', imported' : ', proxied';
  const estimate = call.estimatedTokens === null ? '' : `; ${tokens(call.estimatedTokens)} estimated for the whole call`;
  const reported = call.reportedInputTokens === null ? '; no input count reported' : `, ${tokens(call.reportedInputTokens)} reported`;
  return `  call ${name(call)} (event #${call.seq}${origin}, ${call.provider}/${call.model}): ${call.nodes} node${call.nodes === 1 ? '' : 's'}, ${tokens(call.surfaceTokens)} on the surface by ${estimator}${estimate}${reported}`;
}

export function describeDiff(report: CallDiffReport): string[] {
  const { from, to } = report;
  const lines = [
    `what changed on the surface of ${report.sessionId} from call ${name(from)} to call ${name(to)}`,
    describeCall(from, report.estimator),
    describeCall(to, report.estimator),
  ];
  if (report.appended.length > 0)
    lines.push(`+ ${report.appended.length} appended (${tokens(report.tokens.appended)}): ${nodeList(report.appended)}`);
  for (const node of report.appended) {
    if (node.replaces === undefined) continue;
    const { kind, since, via, by } = node.replaces;
    const through = via.length === 0 ? '' : `, through ${seqList(via)}`;
    lines.push(
      `    #${node.seq} stands for ${nodeList(since)} (${tokens(sum(since))}${through}), which came after call ${name(from)}: ${kind} ${describeMaker(by, to)}`,
    );
  }
  for (const change of report.replaced) {
    const since =
      change.since.length === 0 ? '' : ` and ${nodeList(change.since)} (${tokens(sum(change.since))}), which came after call ${name(from)}`;
    const via = change.via.length === 0 ? '' : `, through ${seqList(change.via)} in between`;
    lines.push(
      `${LABEL[change.kind]}: ${nodeList(change.shadowed)} (${tokens(sum(change.shadowed))})${since}${via} → #${change.seq} ${ROLE[change.type] ?? change.type} (${tokens(change.tokens)}), ${describeMaker(change.by, to)}`,
    );
  }
  if (report.removed.length > 0) {
    lines.push(`− ${report.removed.length} gone without a replacement (${tokens(report.tokens.removed)}): ${nodeList(report.removed)}`);
  }
  if (report.appended.length + report.replaced.length + report.removed.length === 0) lines.push('no change');
  const { before, after } = report.tokens;
  const change = after - before;
  const parts = [
    ...(report.appended.length === 0 ? [] : [`+${formatCount(report.tokens.appended)} appended`]),
    ...(report.replaced.length === 0
      ? []
      : [`${formatCount(report.tokens.shadowed)} replaced by ${formatCount(report.tokens.replacements)}`]),
    ...(report.removed.length === 0 ? [] : [`−${formatCount(report.tokens.removed)} gone`]),
  ];
  lines.push(
    `tokens on the surface: ${formatCount(before)} → ${formatCount(after)} (${change > 0 ? '+' : change < 0 ? '−' : '±'}${formatCount(Math.abs(change))})${parts.length === 0 ? '' : `: ${parts.join(', ')}`}`,
  );
  return lines;
}

/** Registers `shadowlog diff` on the program. */
export function registerDiffCommand(program: Command, run: RunCommand): void {
  program
    .command('diff <id> <call> <later-call>')
    .description(
      'what changed on the surface between two model calls (3.2 is turn 3, step 2, as replay names it): nodes appended, replaced and by what, tokens before and after',
    )
    .action((id: string, first: string, second: string) =>
      run('read', (context) => diffCommand(context, id, parseCallName(first), parseCallName(second)))(),
    );
}
