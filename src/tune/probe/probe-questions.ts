// The probe questions of one compaction point (Factory's four kinds), generated from the record
// and the surface a policy would have sent there: recall of a fact a message the policy cut
// stated, the files read or changed so far, the next step, and a decision with its reason. Each
// carries its expected answer from the record: items matched model-free, or a text for a judge.

import type { LogEvent } from '../../log/event.js';
import { isSurfaceType } from '../../log/event.js';
import { dataOf } from '../../log/event-data.js';
import { isReplaceOp } from '../../log/surface-op.js';
import type { SurfaceEntry } from '../../whatif/what-if-request.js';
import { artifactsOf, artifactValue, blocksText, eventText, kindOf } from '../artifacts.js';

export type ProbeKind = 'recall' | 'artifacts' | 'continuation' | 'decision';
export const PROBE_KINDS: readonly ProbeKind[] = ['recall', 'artifacts', 'continuation', 'decision'];

/** What a probe expects: items of the record each looked for in the answer (model-free), or a text a judge compares with it. */
export type ProbeExpectation = { readonly items: readonly string[] } | { readonly text: string };

export interface ProbeQuestion {
  readonly kind: ProbeKind;
  /** The user message asked after the policy's surface. */
  readonly question: string;
  readonly expected: ProbeExpectation;
  /** The event of the record the expected answer comes from (its seq). */
  readonly sourceSeq: number;
}

/** The record before a call: its messages as they happened (append-origin, no copies), and the call's recorded answer. */
export interface ProbeRecord {
  readonly originals: readonly LogEvent[];
  readonly answer: LogEvent | undefined;
}

/** The original messages of `events` before `seq`: what happened, before any compaction shadowed part of it. */
export function originalsBefore(events: Iterable<LogEvent>, seq: number): LogEvent[] {
  const originals: LogEvent[] = [];
  for (const event of events) {
    if (event.seq >= seq) break;
    if (!isSurfaceType(event.type) || isReplaceOp(event.surfaceOp) || event.data.copyOf !== undefined) continue;
    originals.push(event);
  }
  return originals;
}

const CLOZE = '____';
const MAX_LINE = 200;
const MAX_EXPECTED_TEXT = 1_500;
const MAX_ARTIFACTS = 12;
/** An assistant message that states a choice. */
const CHOICE =
  /\b(?:decid\w*|chose|choose|choosing|instead|rather than|I'll|I will|let's|we should|I should|fix:|the fix|the cause|found it|plan:)/i;
/** …and gives a reason for it. */
const REASON = /\b(?:because|since|so that|due to|which means|otherwise|as a result)\b/i;

/** The questions at one point: the surface `entries` a policy would have sent there, against the record before it. */
export function probeQuestions(record: ProbeRecord, entries: readonly SurfaceEntry[]): ProbeQuestion[] {
  const verbatim = new Set<number>();
  let verbatimText = '';
  for (const entry of entries)
    if ('copyOf' in entry) {
      verbatim.add(entry.copyOf.seq);
      verbatimText += `${eventText(entry.copyOf)}\n`;
    }
  // What the policy cut: originals its surface holds no verbatim copy of (a summary or a pruned copy stands for them, or nothing).
  const cut = record.originals.filter((event) => !verbatim.has(event.seq));
  const tools = toolNames(record.originals);
  return [
    recallQuestion(cut, verbatimText, tools, record.answer),
    artifactsQuestion(record.originals),
    continuationQuestion(record.answer),
    decisionQuestion(record.originals, cut),
  ].filter((question) => question !== undefined);
}

/** A number, identifier or path a cut user message or tool result stated and no verbatim message holds, asked as a cloze of its line. */
function recallQuestion(
  cut: readonly LogEvent[],
  verbatimText: string,
  tools: ReadonlyMap<string, string>,
  answer: LogEvent | undefined,
): ProbeQuestion | undefined {
  const used = answer === undefined ? new Set<string>() : artifactsOf(eventText(answer));
  const rank = { number: 0, path: 1, identifier: 2, error: 3 } as const;
  let best: { event: LogEvent; value: string; line: string; score: number } | undefined;
  for (const event of cut) {
    if (event.type !== 'user/message' && event.type !== 'tool/result') continue;
    const text = eventText(event);
    for (const key of artifactsOf(text)) {
      const kind = kindOf(key);
      if (kind === 'error') continue;
      const value = artifactValue(key);
      if (holds(verbatimText, value)) continue;
      const line = clozeLine(text, value);
      if (line === undefined) continue;
      // Preferred: what the call's answer goes on to use, then numbers, paths, identifiers; the latest stated.
      const score = (used.has(key) ? 0 : 10) + rank[kind];
      if (best === undefined || score < best.score || (score === best.score && event.seq > best.event.seq))
        best = { event, value, line, score };
    }
  }
  if (best === undefined) return undefined;
  const where =
    best.event.type === 'user/message'
      ? 'the user wrote'
      : `the result of a ${tools.get(String(best.event.data.callId)) ?? 'tool'} call held`;
  return {
    kind: 'recall',
    question: `Earlier in this session (event #${best.event.seq}), ${where} this line:\n\n${best.line}\n\nWhat stood where it says ${CLOZE}? Answer with that value alone; if you cannot tell, say so.`,
    expected: { items: [best.value] },
    sourceSeq: best.event.seq,
  };
}

/** The line of `text` that holds `value`, the value blanked out, cut to MAX_LINE characters around it; undefined when the line is nothing but the value. */
function clozeLine(text: string, value: string): string | undefined {
  const line = text.split('\n').find((candidate) => holds(candidate, value));
  if (line === undefined) return undefined;
  const at = line.indexOf(value);
  const from = Math.max(0, at - MAX_LINE / 2);
  const part = line.slice(from, from + MAX_LINE);
  const blanked = part.split(value).join(CLOZE).trim();
  if (blanked.replaceAll(CLOZE, '').trim().length < 8) return undefined;
  return `${from > 0 ? '…' : ''}${blanked}${from + MAX_LINE < line.length ? '…' : ''}`;
}

/** The files the session read or changed so far: the paths its tool calls named. */
function artifactsQuestion(originals: readonly LogEvent[]): ProbeQuestion | undefined {
  const paths: string[] = [];
  let last = 0;
  for (const event of originals) {
    if (event.type !== 'assistant/message') continue;
    for (const call of dataOf(event, 'assistant/message').toolCalls) {
      for (const key of artifactsOf(JSON.stringify(call.arguments ?? {}))) {
        if (kindOf(key) !== 'path') continue;
        const path = artifactValue(key);
        if (!paths.includes(path)) paths.push(path);
        last = event.seq;
      }
    }
  }
  if (paths.length === 0) return undefined;
  return {
    kind: 'artifacts',
    question:
      'Which files have been read or changed in this session so far? List every path, one per line, and nothing else. Do not call any tool.',
    expected: { items: paths.slice(-MAX_ARTIFACTS) },
    sourceSeq: last,
  };
}

/** What the record did next at this call: its tool calls (their names and the artifacts of their arguments), else its answer's text for a judge. */
function continuationQuestion(answer: LogEvent | undefined): ProbeQuestion | undefined {
  if (answer?.type !== 'assistant/message') return undefined;
  const data = dataOf(answer, 'assistant/message');
  const question =
    'Before you go on: what is your next step? If it is a tool call, name the tool and its arguments; otherwise give the answer you would give. Do not call any tool.';
  const calls = data.toolCalls;
  if (calls.length > 0) {
    const items: string[] = [];
    for (const call of calls) {
      if (!items.includes(call.name)) items.push(call.name);
      for (const key of artifactsOf(JSON.stringify(call.arguments ?? {}))) {
        const value = artifactValue(key);
        if (kindOf(key) !== 'error' && !items.includes(value)) items.push(value);
      }
    }
    return { kind: 'continuation', question, expected: { items }, sourceSeq: answer.seq };
  }
  const text = blocksText(data.content).trim();
  if (text === '') return undefined;
  return { kind: 'continuation', question, expected: { text: text.slice(0, MAX_EXPECTED_TEXT) }, sourceSeq: answer.seq };
}

/** The latest assistant message the policy cut that states a choice (with a reason, if one does), asked by the request it answered. */
function decisionQuestion(originals: readonly LogEvent[], cut: readonly LogEvent[]): ProbeQuestion | undefined {
  const choices = cut.filter((event) => event.type === 'assistant/message' && CHOICE.test(messageText(event)));
  const reasoned = choices.filter((event) => REASON.test(messageText(event)));
  const chosen = reasoned.at(-1) ?? choices.at(-1);
  if (chosen === undefined) return undefined;
  const request = originals.filter((event) => event.type === 'user/message' && event.seq < chosen.seq).at(-1);
  const asked =
    request === undefined
      ? `Earlier in this session (before event #${chosen.seq})`
      : `Earlier in this session the user asked: "${oneLine(messageText(request)).slice(0, 300)}"`;
  return {
    kind: 'decision',
    question: `${asked}. What did you decide or conclude there, and why? Answer in two or three sentences. Do not call any tool.`,
    expected: {
      text: messageText(chosen).trim().slice(0, MAX_EXPECTED_TEXT),
    },
    sourceSeq: chosen.seq,
  };
}

/** Whether `text` holds `value` as a whole token (not inside a longer word or number). */
export function holds(text: string, value: string): boolean {
  let from = text.indexOf(value);
  while (from >= 0) {
    const before = text[from - 1];
    const after = text[from + value.length];
    if ((before === undefined || !/[\w]/.test(before)) && (after === undefined || !/[\w]/.test(after))) return true;
    from = text.indexOf(value, from + 1);
  }
  return false;
}

/** The text of a user or assistant message. */
function messageText(event: LogEvent): string {
  return blocksText(event.type === 'user/message' ? dataOf(event, 'user/message').content : dataOf(event, 'assistant/message').content);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function toolNames(originals: readonly LogEvent[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const event of originals)
    if (event.type === 'assistant/message')
      for (const call of dataOf(event, 'assistant/message').toolCalls) names.set(call.callId, call.name);
  return names;
}
