// The extractive summarizer: a summary written without a model, by selecting sentences from
// the shadowed messages. It serves the offline demo, and is the fallback a user can choose
// when no model is available. Pure and deterministic: no network, no clock, no randomness.
//
//   const summary = summarizeExtractively(messages, { maxTokens: 2_000, countTokens: chars4Text });
//   if (summary === undefined) { /* nothing useful fits: do not compact */ }

import type { ModelMessage } from '../providers/language-model.js';
import { renderSummary, type SummaryItem, selectItems } from './extractive/assemble.js';
import { rankSentences, sentenceItems } from './extractive/candidates.js';
import { entityItems } from './extractive/entity-list.js';
import { chooseLocale } from './extractive/language.js';
import { type ReadMessages, readMessages, type SourceText } from './extractive/read-messages.js';
import { salienceOf } from './extractive/salience.js';
import { EXTRACTIVE_LABEL, splitSentences } from './extractive/sentences.js';
import { toolCallItems } from './extractive/tool-calls.js';
import { type CountTokens, trimToTokens } from './extractive/unicode.js';

export { EXTRACTIVE_LABEL };

export interface ExtractiveSummaryOptions {
  /** The most the summary may cost, in the caller's tokens. */
  readonly maxTokens: number;
  /** The caller's token counter; the summarizer imports no tokenizer of its own. */
  readonly countTokens: (text: string) => number;
  /** A BCP 47 tag for Intl.Segmenter; when absent or unsupported, detected from the user messages. */
  readonly locale?: string;
}

export interface ExtractiveSummary {
  /** Starts with EXTRACTIVE_LABEL, so no reader mistakes it for a model's summary. */
  readonly text: string;
  /** Tokens of the input, extrapolated over the unread middles of very long messages. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Lines taken from the messages' text, the requests included. */
  readonly sentencesKept: number;
  readonly sentencesConsidered: number;
  /** The locale the text was segmented in. */
  readonly locale: string;
}

/** The share of the budget the latest request may take at first, and the first request. */
const LATEST_REQUEST_SHARE = 0.5;
const FIRST_REQUEST_SHARE = 0.25;
const REQUEST_PRIORITY = { latest: 100, first: 50 } as const;
const TASK_TITLE_LINE = 'Task and latest request:\n';

interface Request {
  readonly label: 'latest request' | 'first request';
  readonly body: string;
  readonly messageIndex: number;
}

function isEarlierSummary(text: string): boolean {
  return text.includes('<compacted-summary>') || text.startsWith(EXTRACTIVE_LABEL);
}

/** A request's text, continuation lines indented under its list item; a long one shows its cut. */
function bodyOf(source: SourceText): string {
  return source.parts
    .join('\n…\n')
    .trim()
    .replace(/\n\s*\n+/g, '\n')
    .replace(/\n/g, '\n  ');
}

function requestsOf(texts: readonly SourceText[]): Request[] {
  const fromUser = texts.filter((text) => text.role === 'user' && !isEarlierSummary(text.parts[0] ?? ''));
  const latest = fromUser[fromUser.length - 1];
  const first = fromUser[0];
  if (latest === undefined || first === undefined) return [];
  const requests: Request[] = [{ label: 'latest request', body: bodyOf(latest), messageIndex: latest.messageIndex }];
  if (first !== latest) requests.unshift({ label: 'first request', body: bodyOf(first), messageIndex: first.messageIndex });
  return requests;
}

function requestItem(request: Request, allowance: number, countTokens: CountTokens): SummaryItem | undefined {
  const prefix = `- ${request.label}: `;
  const keep = request.label === 'latest request' ? 'head-and-tail' : 'head';
  const body = trimToTokens(request.body, allowance - countTokens(`${prefix}\n`), countTokens, keep);
  if (body === undefined) return undefined;
  const priority = request.label === 'latest request' ? REQUEST_PRIORITY.latest : REQUEST_PRIORITY.first;
  return { section: 'task', order: request.messageIndex, priority, text: `${prefix}${body}`, list: undefined, isSentence: true };
}

function notesOf(read: ReadMessages): string[] {
  const notes: string[] = [];
  if (read.imageCount > 0) notes.push(`${read.imageCount} image${read.imageCount === 1 ? '' : 's'} omitted`);
  if (read.partialCount > 0)
    notes.push(`${read.partialCount} very long message${read.partialCount === 1 ? '' : 's'} read only at head and tail`);
  return notes.length === 0 ? [] : [`(${notes.join('; ')})`];
}

/**
 * Gives a trimmed request the room the other items left unused. The counter need not be
 * additive, so each attempt is measured whole, and abandoned if it does not fit.
 */
function expandRequest(context: SelectionContext, request: Request, selected: SummaryItem[]): SummaryItem[] {
  const { notes, budget, countTokens } = context;
  const index = selected.findIndex((item) => item.section === 'task' && item.order === request.messageIndex);
  const current = selected[index];
  if (current === undefined || current.text.endsWith(request.body)) return selected;
  let leftover = budget - countTokens(renderSummary(notes, selected));
  while (leftover > 0) {
    const wider = requestItem(request, countTokens(`${current.text}\n`) + leftover, countTokens);
    const attempt = wider === undefined ? selected : selected.map((item, at) => (at === index ? wider : item));
    if (countTokens(renderSummary(notes, attempt)) <= budget) return attempt;
    leftover = Math.floor(leftover / 2);
  }
  return selected;
}

interface SelectionContext {
  readonly notes: readonly string[];
  readonly budget: number;
  readonly countTokens: CountTokens;
}

/**
 * An extractive summary of `messages` within `maxTokens`, and strictly smaller than the
 * messages themselves (by `countTokens`). Undefined when nothing useful fits: an empty or
 * tiny input, or a budget too small for the label and one line. It never pads.
 */
export function summarizeExtractively(messages: readonly ModelMessage[], options: ExtractiveSummaryOptions): ExtractiveSummary | undefined {
  const { countTokens } = options;
  const read = readMessages(messages, countTokens);
  const budget = Math.min(Math.floor(options.maxTokens), read.tokensRead - 1);
  if (!(budget > 0)) return undefined;
  const locale = chooseLocale(options.locale, read.texts);
  const sentences = splitSentences(read.texts, locale);
  const candidates = rankSentences(sentences, salienceOf(sentences, locale), messages.length - 1);
  const requests = requestsOf(read.texts);
  const requestMessages = new Set(requests.map((request) => request.messageIndex));
  const notes = notesOf(read);
  const available = budget - countTokens(renderSummary(notes, [])) - countTokens(TASK_TITLE_LINE);
  const items: SummaryItem[] = [
    ...requests.flatMap((request) => {
      const share = request.label === 'latest request' ? LATEST_REQUEST_SHARE : FIRST_REQUEST_SHARE;
      return requestItem(request, Math.floor(available * share), countTokens) ?? [];
    }),
    ...sentenceItems(candidates.filter((candidate) => !requestMessages.has(candidate.sentence.messageIndex))),
    ...toolCallItems(read.toolCalls, messages.length - 1),
    ...entityItems(candidates, read.toolCalls),
  ];
  const context: SelectionContext = { notes, budget, countTokens };
  // The latest request first: it is what the work continues from.
  const selected = [...requests]
    .reverse()
    .reduce((chosen, request) => expandRequest(context, request, chosen), selectItems(notes, items, budget, countTokens));
  if (selected.length === 0) return undefined;
  const text = renderSummary(notes, selected);
  return {
    text,
    inputTokens: read.tokensEstimated,
    outputTokens: countTokens(text),
    sentencesKept: selected.filter((item) => item.isSentence).length,
    sentencesConsidered: sentences.length,
    locale,
  };
}
