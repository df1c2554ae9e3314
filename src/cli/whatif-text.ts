// What `shadowlog whatif` prints: for each call asked, the recorded answer and the what-if's side
// by side (tool calls, text, stop reason, tokens), a diff of the two, the sample counts when it
// sampled, and where each request is recorded; for a compaction's calls, the line per call and
// "the answer changed on K of N calls".

import { canonicalJson } from '../log/index.js';
import { type Answer, diffLines, type WhatIfCallReport, type WhatIfEstimate, type WhatIfReport } from '../whatif/index.js';
import { plural } from './plural.js';
import { formatUsd } from './session-table.js';
import { clipText } from './terminal-text.js';
import { whatIfQuestionPhrase } from './whatif-link-text.js';

const number = (value: number) => value.toLocaleString('en-US');
const COLUMN = 56;
/** A diff line is shown up to this long (--json has the answers whole). */
const DIFF_LINE = 400;

/** `text` cut to `length` characters, an ellipsis marking a cut. */
const short = (text: string, length: number) => (text.length > length ? `${clipText(text, length - 1)}…` : text);

/** The lines of one call's what-if: the two answers side by side, the diff, the samples, the sessions. */
export function describeCall(report: WhatIfCallReport): string[] {
  const first = report.counterfactual[0];
  if (first === undefined) return [];
  const lines = [
    `turn ${report.turn} step ${report.step} (event #${report.seq}), asked again of ${report.provider}/${report.model} with ${describeRestored(report)}`,
    `  the recorded request ${report.recordedVerified ? 'is verified by its digest' : `is not byte-verified: ${report.unverified ?? 'no digest'}`}; the what-if sends ~${number(report.tokens.counterfactual)} input tokens where the recorded surface is ~${number(report.tokens.recorded)} (estimates, for ${report.provider}/${report.model})`,
    ...report.notes.map((note) => `  note: ${note}`),
    '',
    row('', `recorded (${report.recordedProvider}/${report.recordedModel})`, `what-if (${first.sessionId})`),
    row('tool calls', toolCalls(report.recordedAnswer), toolCalls(first.answer)),
    row('text', text(report.recordedAnswer), text(first.answer)),
    row('stop reason', stopReason(report.recordedAnswer), stopReason(first.answer)),
    row('tokens', tokens(report.recordedAnswer), tokens(first.answer)),
    '',
  ];
  const diff = diffLines(answerLines(report.recordedAnswer), answerLines(first.answer));
  if (first.answer.error !== null)
    lines.push(`the what-if request failed, so there is no answer to compare: ${first.answer.error.code}: ${first.answer.error.message}`);
  else if (diff.every((line) => line.op === ' ')) lines.push('the answer is the same (by its tool calls, else its text)');
  else {
    lines.push('the answer changed (- recorded, + what-if):');
    for (const line of diff) lines.push(`  ${line.op} ${short(line.line, DIFF_LINE)}`);
  }
  if (report.counts !== null) lines.push('', ...describeCounts(report));
  lines.push('', ...describeSessions(report));
  return lines;
}

function describeRestored(report: WhatIfCallReport): string {
  if (report.restored.length === 0) return whatIfQuestionPhrase(report.question);
  const names = report.restored.map((item) =>
    item.kind === 'prune'
      ? `prune #${item.seq}`
      : item.compactionId === null
        ? `replacement #${item.seq}`
        : `compaction ${item.compactionId} (#${item.seq})`,
  );
  const unique = [...new Set(names)];
  // A replacement undone inside another stands among that one's shadowed nodes, and is not itself put back.
  const nested = report.restored.filter((item) => report.restored.some((outer) => outer.shadowed.includes(item.seq))).length;
  const originals = report.restored.reduce((sum, item) => sum + item.shadowed.length, 0) - nested;
  return `${unique.join(', ')} undone (${plural(originals, 'shadowed node')} restored in their places)`;
}

function describeCounts(report: WhatIfCallReport): string[] {
  const counts = report.counts as NonNullable<WhatIfCallReport['counts']>;
  const samples = report.counterfactual.length;
  const lines = [
    `samples: the recorded request and the what-if, each sent ${plural(samples, 'time')}; each answer by its tool calls, else its text:`,
  ];
  const list = (name: string, entries: ReadonlyArray<{ key: string; count: number }>) => {
    lines.push(`  ${name}:`);
    for (const { key, count } of entries) lines.push(`    ${count}× ${short(key, 100)}`);
  };
  list('recorded request', counts.recorded);
  list('what-if', counts.counterfactual);
  lines.push(
    report.changed
      ? 'the most frequent answer differs between the two: a difference beyond the sampling noise seen here'
      : 'the most frequent answer is the same for both',
  );
  return lines;
}

function describeSessions(report: WhatIfCallReport): string[] {
  const sessions = [...report.counterfactual, ...report.recordedSamples];
  const first = sessions[0];
  if (first === undefined) return [];
  if (sessions.length === 1)
    return [
      `recorded in what-if session ${first.sessionId} (request #${first.requestSeq}, digest ${first.digest.slice(0, 16)}…): \`shadowlog replay ${first.sessionId} --turn 1\` proves it`,
    ];
  return [`recorded in ${plural(sessions.length, 'what-if session')}: ${sessions.map((sent) => sent.sessionId).join(', ')}`];
}

function row(label: string, left: string, right: string): string {
  return `  ${label.padEnd(12)}${cell(left).padEnd(COLUMN)}  ${cell(right)}`;
}

function cell(value: string): string {
  return short(value.replace(/\s+/g, ' ').trim(), COLUMN);
}

function toolCalls(answer: Answer): string {
  if (answer.error !== null) return `error ${answer.error.code}`;
  return answer.toolCalls.length === 0
    ? 'none'
    : answer.toolCalls.map((call) => `${call.name} ${canonicalJson(call.arguments)}`).join('; ');
}

function text(answer: Answer): string {
  if (answer.error !== null) return answer.error.message;
  return answer.text === '' ? '–' : answer.text;
}

function stopReason(answer: Answer): string {
  if (answer.stopReason === null) return '–';
  return answer.stopReasonInferred ? `${answer.stopReason} (the log keeps none; read from the answer)` : answer.stopReason;
}

function tokens(answer: Answer): string {
  return answer.usage === null ? 'not reported' : `in ${number(answer.usage.inputTokens)} · out ${number(answer.usage.outputTokens)}`;
}

/** An answer as lines to diff: its tool calls, then its text (or its error). */
function answerLines(answer: Answer): string[] {
  if (answer.error !== null) return [`error ${answer.error.code}: ${answer.error.message}`];
  // Blank lines around the text say nothing an answer differs by.
  const text = answer.text.trim();
  return [...answer.toolCalls.map((call) => `→ ${call.name} ${canonicalJson(call.arguments)}`), ...(text === '' ? [] : text.split('\n'))];
}

/** The budget, before anything is sent. */
export function describeEstimate(estimate: WhatIfEstimate, maxCalls: number, skipped: number): string {
  const cost =
    estimate.costUsd === null
      ? `cost unknown: ${estimate.unpricedModels.join(', ')} ${estimate.unpricedModels.length === 1 ? 'is' : 'are'} not in the price table of ${estimate.priceDate} (give prices with --prices FILE)`
      : `~${formatUsd(estimate.costUsd)} at the list prices of ${estimate.priceDate}${estimate.unpricedModels.length === 0 ? '' : ` (${estimate.unpricedModels.join(', ')} unpriced, left out)`}`;
  const left = skipped === 0 ? '' : `; ${plural(skipped, 'later call')} left out`;
  return `budget: ${plural(estimate.requests, 'request')} for ${plural(estimate.calls, 'call')} (--max-calls ${maxCalls}${left}), ~${number(estimate.inputTokens)} input and ~${number(estimate.outputTokens)} output tokens (estimated; output as long as the recorded answers), ${cost}`;
}

/** "the answer changed on K of N calls", each changed call, and the calls whose what-if failed. */
export function describeSummary(report: WhatIfReport): string[] {
  const failed = report.calls.filter((item) => item.failed);
  const compared = report.calls.length - failed.length;
  const lines = [
    compared === 0
      ? `no answer to compare: the what-if request of every call asked (${report.calls.length}) failed`
      : `the answer changed on ${report.changed} of ${plural(compared, 'call')}${failed.length === 0 ? '' : ` (${failed.length} more failed: nothing to compare)`}${report.changed === 0 ? '' : ':'}`,
  ];
  for (const call of report.calls.filter((item) => item.changed)) {
    const first = call.counterfactual[0];
    lines.push(
      `  turn ${call.turn} step ${call.step} (#${call.seq}): ${brief(call.recordedAnswer, 60)} → ${first === undefined ? '–' : brief(first.answer, 60)}  (${first?.sessionId ?? ''})`,
    );
  }
  if (failed.length > 0) {
    lines.push('failed, the error recorded in each what-if session:');
    for (const call of failed) {
      const first = call.counterfactual[0];
      lines.push(
        `  turn ${call.turn} step ${call.step} (#${call.seq}): ${short(`${first?.answer.error?.code}: ${first?.answer.error?.message}`, 160)}  (${first?.sessionId ?? ''})`,
      );
    }
  }
  return lines;
}

/** One call's line in a compaction's what-if. */
export function describeCallLine(report: WhatIfCallReport): string {
  const first = report.counterfactual[0];
  return `turn ${report.turn} step ${report.step} (#${report.seq}): ${report.failed ? 'failed' : report.changed ? 'changed' : 'same'}  recorded: ${brief(report.recordedAnswer, 50)}  ·  what-if: ${first === undefined ? '–' : brief(first.answer, 50)}`;
}

/** An answer on a line, at most about `length` characters: its tool calls, else its text in quotes. */
function brief(answer: Answer, length: number): string {
  if (answer.error !== null) return `error ${answer.error.code}`;
  if (answer.toolCalls.length > 0)
    return short(answer.toolCalls.map((call) => `${call.name} ${canonicalJson(call.arguments)}`).join('; '), length);
  return `"${short(answer.text.replace(/\s+/g, ' ').trim(), length - 2)}"`;
}
