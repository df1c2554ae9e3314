// The sections of one run of original messages (a range, or the part of it after an earlier
// summary). Each section comes from where its facts are: requests from the user's messages,
// progress from the assistant's answers, errors only from failed tool results and from errors
// the assistant reported in prose, files from the calls that read or changed them.

import type { ModelMessage } from '../../providers/language-model.js';
import type { NewerEvidence } from '../merge-summaries.js';
import {
  emptySections,
  FILE_ACTIONS,
  type SummaryCurrentWork,
  type SummaryErrorLine,
  type SummaryFileLine,
  type SummaryRequestLine,
  type SummarySections,
} from '../summary-sections.js';
import { proseOf, truncateOutsideCode } from './code-spans.js';
import { featuresOf, type SentenceFeatures } from './features.js';
import { mentionsOf } from './identifiers.js';
import type { ReadMessages, SourceText, ToolCallRecord } from './read-messages.js';
import type { Sentence } from './sentences.js';
import { callSignature, fileActionOf, pathOf, toolCallLines } from './tool-call-lines.js';

const LINE_GRAPHEMES = 300;
const SENTENCES_PER_ANSWER = 3;
const ERROR_SENTENCES_PER_RESULT = 3;
const MOST_DECISIONS = 16;
const MOST_ERRORS = 12;

export interface RunInput {
  readonly messages: readonly ModelMessage[];
  readonly read: ReadMessages;
  readonly sentences: readonly Sentence[];
  /** The run is messages[from, to). */
  readonly from: number;
  readonly to: number;
}

export interface Extraction {
  readonly sections: SummarySections;
  readonly evidence: NewerEvidence;
}

interface Analyzed {
  readonly sentence: Sentence;
  /** Of the prose only: an error word inside inline code is code. */
  readonly features: SentenceFeatures;
}

function isFinalAnswer(message: ModelMessage | undefined): boolean {
  return (
    message?.role === 'assistant' &&
    message.toolCalls.length === 0 &&
    message.content.some((block) => block.type === 'text' && block.text.trim() !== '')
  );
}

/** A request's text, whole; a very long one shows where its unread middle was. */
function bodyOf(source: SourceText): string {
  return source.parts.join('\n…\n').trim();
}

function shown(text: string): string {
  return truncateOutsideCode(text, LINE_GRAPHEMES);
}

function requestsOf(input: RunInput, users: readonly number[]): SummaryRequestLine[] {
  const texts = new Map(input.read.texts.map((text) => [text.messageIndex, text]));
  return users.flatMap((index, at) => {
    const source = texts.get(index);
    if (source === undefined) return [];
    const end = users[at + 1] ?? input.to;
    let done = false;
    for (let next = index + 1; next < end; next++) if (isFinalAnswer(input.messages[next])) done = true;
    return [{ text: bodyOf(source), status: done ? 'done' : 'open' }];
  });
}

function progressOf(answers: ReadonlyMap<number, Analyzed[]>, used: ReadonlySet<Sentence>): string[] {
  const lines: string[] = [];
  for (const analyzed of answers.values()) {
    const findings = analyzed.filter(({ sentence, features }) => features.decision !== 'firm' && !used.has(sentence));
    const [first, ...rest] = findings;
    if (first === undefined) continue;
    const figures = rest.filter(({ features }) => features.quantity || features.todo);
    for (const { sentence } of [first, ...figures].slice(0, SENTENCES_PER_ANSWER)) lines.push(shown(sentence.text));
  }
  return lines;
}

interface OpenError {
  /** Reading order: a fix is about a failure that came before it. */
  readonly order: number;
  /** After the latest request: an assistant's words about an error then explain this failure. */
  inCurrentTurn: boolean;
  readonly signature: string | undefined;
  line: SummaryErrorLine;
}

function failureOf(
  input: RunInput,
  index: number,
  calls: ReadonlyMap<string, ToolCallRecord>,
  analyzed: readonly Analyzed[],
  order: number,
) {
  const message = input.messages[index];
  const call = message?.role === 'tool' ? calls.get(message.callId) : undefined;
  const signature = call === undefined ? undefined : callSignature(call.name, call.arguments);
  const worded = analyzed.filter(({ features }) => features.error === 'strong');
  const said = (worded.length > 0 ? worded : analyzed.slice(0, 1)).slice(0, ERROR_SENTENCES_PER_RESULT);
  const text = said.map(({ sentence }) => shown(sentence.text)).join(' ');
  const what = signature ?? 'a tool call';
  const line = { error: text === '' ? `${what} failed` : `${what} failed: ${text}`, fix: null };
  return { order, inCurrentTurn: true, signature, line };
}

interface Errors {
  readonly errors: SummaryErrorLine[];
  /** Fixes with no failure before them in this run: they are about an earlier summary's errors. */
  readonly unattached: string[];
  /** Assistant sentences taken as errors or fixes: not repeated as decisions or progress. */
  readonly used: ReadonlySet<Sentence>;
}

function errorsOf(input: RunInput, byMessage: ReadonlyMap<number, Analyzed[]>, calls: ReadonlyMap<string, ToolCallRecord>): Errors {
  const errors: OpenError[] = [];
  const unattached: string[] = [];
  const used = new Set<Sentence>();
  let order = 0;
  for (let index = input.from; index < input.to; index++) {
    const message = input.messages[index];
    const analyzed = byMessage.get(index) ?? [];
    order = analyzed[0]?.sentence.position ?? order;
    if (message?.role === 'user') for (const error of errors) error.inCurrentTurn = false;
    if (message?.role === 'tool' && message.isError) errors.push(failureOf(input, index, calls, analyzed, order));
    if (message?.role === 'assistant') {
      for (const { sentence, features } of analyzed) {
        if (features.resolution) {
          // A fix is about the latest failure still open before it.
          const open = errors.findLast((error) => error.line.fix === null && error.order < sentence.position);
          used.add(sentence);
          if (open === undefined) unattached.push(shown(sentence.text));
          else open.line = { ...open.line, fix: shown(sentence.text) };
        } else if (features.error === 'strong') {
          // Words about a failure of this turn explain it; with none, the assistant reports an error of its own.
          if (errors.some((error) => error.inCurrentTurn && error.line.fix === null)) continue;
          used.add(sentence);
          errors.push({
            order: sentence.position,
            inCurrentTurn: true,
            signature: undefined,
            line: { error: shown(sentence.text), fix: null },
          });
        }
      }
    }
    if (message?.role === 'tool' && !message.isError) {
      const call = calls.get(message.callId);
      const signature = call === undefined ? undefined : callSignature(call.name, call.arguments);
      for (const error of errors)
        if (error.line.fix === null && signature !== undefined && error.signature === signature)
          error.line = { ...error.line, fix: 'the same call succeeded later' };
    }
  }
  return { errors: errors.slice(-MOST_ERRORS).map((error) => error.line), unattached, used };
}

function filesOf(calls: readonly ToolCallRecord[], mentioned: readonly string[]): SummaryFileLine[] {
  const files = new Map<string, SummaryFileLine>();
  for (const call of calls) {
    const action = call.outcome === 'error' ? undefined : fileActionOf(call);
    const path = pathOf(call.arguments);
    if (action === undefined || path === undefined) continue;
    const known = files.get(path);
    // A file that was read already existed: writing it modifies it.
    const effective = action === 'created' && known !== undefined && known.action !== 'mentioned' ? 'modified' : action;
    if (known === undefined || FILE_ACTIONS.indexOf(effective) > FILE_ACTIONS.indexOf(known.action))
      files.set(path, { path, action: effective });
  }
  for (const path of mentioned) if (!files.has(path)) files.set(path, { path, action: 'mentioned' });
  return [...files.values()];
}

function currentOf(
  input: RunInput,
  after: number,
  byMessage: ReadonlyMap<number, Analyzed[]>,
  calls: readonly ToolCallRecord[],
): SummaryCurrentWork | null {
  const lastCall = calls.filter((call) => call.messageIndex > after).at(-1);
  const intents = [...byMessage.entries()]
    .filter(([index]) => index > after && input.messages[index]?.role === 'assistant')
    .flatMap(([, analyzed]) => analyzed)
    .filter(({ features }) => features.todo || features.decision === 'intent');
  const nextStep = intents.at(-1)?.sentence.text;
  if (lastCall === undefined && nextStep === undefined) return null;
  const outcome = lastCall?.outcome === 'ok' ? 'ok' : lastCall?.outcome === 'error' ? 'error' : 'no result yet';
  const work =
    lastCall === undefined
      ? 'the open request'
      : `the open request; last step: ${callSignature(lastCall.name, lastCall.arguments)} → ${outcome}`;
  return { work, nextStep: nextStep === undefined ? null : shown(nextStep) };
}

/** The sections of messages[from, to), and what they show about an earlier summary's open lines. */
export function extractSections(input: RunInput): Extraction {
  const inRun = (index: number) => index >= input.from && index < input.to;
  const calls = input.read.toolCalls.filter((call) => inRun(call.messageIndex));
  const callsById = new Map(calls.map((call) => [call.callId, call]));
  const sentences = input.sentences.filter((sentence) => inRun(sentence.messageIndex));
  const byMessage = new Map<number, Analyzed[]>();
  for (const sentence of sentences) {
    const list = byMessage.get(sentence.messageIndex) ?? [];
    list.push({ sentence, features: featuresOf(proseOf(sentence.text)) });
    byMessage.set(sentence.messageIndex, list);
  }
  const users: number[] = [];
  for (let index = input.from; index < input.to; index++) if (input.messages[index]?.role === 'user') users.push(index);
  const requests = requestsOf(input, users);
  const firstUser = users[0] ?? input.to;
  let answersOpenRequest = false;
  for (let index = input.from; index < firstUser; index++) if (isFinalAnswer(input.messages[index])) answersOpenRequest = true;

  const answers = new Map([...byMessage].filter(([index]) => isFinalAnswer(input.messages[index])));
  const assistantSentences = [...byMessage]
    .filter(([index]) => input.messages[index]?.role === 'assistant')
    .flatMap(([, analyzed]) => analyzed);
  const { errors, unattached, used } = errorsOf(input, byMessage, callsById);
  const decisions = assistantSentences
    .filter(({ sentence, features }) => features.decision === 'firm' && !used.has(sentence))
    .map(({ sentence }) => shown(sentence.text));
  const toolNames = new Set(calls.map((call) => call.name));
  // An error line starts with its call, whose arguments the calls already give.
  const errorTexts = errors.map((line) => line.error.replace(/^.*? failed: /, ''));
  const mentions = mentionsOf(sentences, errorTexts, calls, toolNames);
  const lastUser = users.at(-1);
  const workIsOpen = lastUser === undefined ? !answersOpenRequest : requests.at(-1)?.status === 'open';
  const sections: SummarySections = {
    ...emptySections(),
    requests,
    files: filesOf(calls, mentions.paths),
    identifiers: mentions.identifiers,
    decisions: [...new Set(decisions)].slice(-MOST_DECISIONS),
    errors,
    progress: [...new Set(progressOf(answers, used))],
    toolCalls: toolCallLines(calls),
    current: workIsOpen ? currentOf(input, lastUser ?? input.from - 1, byMessage, calls) : null,
  };
  return { sections, evidence: { answersOpenRequest, fixes: unattached } };
}
