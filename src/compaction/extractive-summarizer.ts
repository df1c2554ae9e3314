// The extractive summarizer: a summary written without a model, by taking the sections' lines
// from the shadowed messages (see summary-sections.ts). It serves the offline demo, and is the
// fallback a user can choose when no model is available. Pure and deterministic: no network,
// no clock, no randomness. An earlier summary in the range is merged, never re-read as text.
//
//   const summary = summarizeExtractively(messages, { maxTokens: 2_000, countTokens: chars4Text });
//   if (summary === undefined) { /* nothing useful fits: do not compact */ }

import type { ModelMessage } from '../providers/language-model.js';
import { extractSections } from './extractive/extract-sections.js';
import { fitSections } from './extractive/fit-sections.js';
import { chooseLocale } from './extractive/language.js';
import { type ReadMessages, readMessages } from './extractive/read-messages.js';
import { EXTRACTIVE_LABEL, splitSentences } from './extractive/sentences.js';
import { mergeSummaries } from './merge-summaries.js';
import { parseSummaryText } from './parse-summary.js';
import { renderSections, type SectionName, summaryInside } from './render-summary.js';
import { emptySections, lineCount, type SummarySections } from './summary-sections.js';
import { SUMMARY_TARGET } from './summary-target.js';

export { EXTRACTIVE_LABEL };

/** An earlier summary's node in the range, with its sections when the log has them. */
export interface EarlierSummary {
  readonly messageIndex: number;
  /** Undefined for a summary written without sections (older versions, a model's free text). */
  readonly sections: SummarySections | undefined;
}

export interface ExtractiveSummaryOptions {
  /** The most the summary may cost, in the caller's tokens: a ceiling, not a target. */
  readonly maxTokens: number;
  /** The caller's token counter; the summarizer imports no tokenizer of its own. */
  readonly countTokens: (text: string) => number;
  /**
   * What the lines newly extracted should cost at most, given the tokens of the new messages
   * they come from; an earlier summary's lines come on top. Absent: up to maxTokens.
   */
  readonly targetTokens?: (newInputTokens: number) => number;
  /** The range's earlier summaries; a user message that holds `<compacted-summary>` is taken as one too. */
  readonly earlierSummaries?: readonly EarlierSummary[];
  /** A BCP 47 tag for Intl.Segmenter; when absent or unsupported, detected from the user messages. */
  readonly locale?: string;
}

export interface ExtractiveSummary {
  /** Starts with EXTRACTIVE_LABEL, so no reader mistakes it for a model's summary. */
  readonly text: string;
  readonly sections: SummarySections;
  /** Tokens of the input, extrapolated over the unread middles of very long messages. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Lines the summary keeps, and sentences the new messages offered. */
  readonly linesKept: number;
  readonly sentencesConsidered: number;
  /** The locale the text was segmented in. */
  readonly locale: string;
}

function looksLikeSummary(message: ModelMessage | undefined): boolean {
  if (message?.role !== 'user') return false;
  const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
  return text.includes('<compacted-summary>') || text.trimStart().startsWith(EXTRACTIVE_LABEL);
}

/** The sections of an earlier summary: from the log; else parsed from its text if it is in this format; else its text, verbatim. */
function sectionsOfEarlier(message: ModelMessage | undefined, fromLog: SummarySections | undefined, known: boolean): SummarySections {
  if (fromLog !== undefined) return fromLog;
  const text = summaryInside((message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('\n'));
  if (!known) {
    const parsed = parseSummaryText(text);
    if (parsed.structured) return parsed.sections;
  }
  return { ...emptySections(), earlier: text === '' ? [] : [text] };
}

function keysOf(sections: SummarySections): string[] {
  const keyed = (section: SectionName, keys: readonly string[]) => keys.map((key) => `${section}\u0000${key}`);
  return [
    ...keyed(
      'requests',
      sections.requests.map((line) => line.text),
    ),
    ...keyed(
      'files',
      sections.files.map((line) => line.path),
    ),
    ...keyed('identifiers', sections.identifiers),
    ...keyed('decisions', sections.decisions),
    ...keyed(
      'errors',
      sections.errors.map((line) => line.error),
    ),
    ...keyed('progress', sections.progress),
    ...keyed('toolCalls', sections.toolCalls),
    ...keyed('earlier', sections.earlier),
    ...keyed('unstructured', sections.unstructured),
    ...keyed('notes', sections.notes),
  ];
}

function notesOf(read: ReadMessages): string[] {
  const notes: string[] = [];
  if (read.imageCount > 0) notes.push(`${read.imageCount} image${read.imageCount === 1 ? '' : 's'} omitted`);
  if (read.partialCount > 0)
    notes.push(`${read.partialCount} very long message${read.partialCount === 1 ? '' : 's'} read only at head and tail`);
  return notes;
}

/**
 * An extractive summary of `messages` within `maxTokens`, and strictly smaller than the
 * messages themselves (by `countTokens`). Undefined when nothing useful fits: an empty or
 * tiny input, or a budget too small for the label and one line. It never pads.
 */
export function summarizeExtractively(messages: readonly ModelMessage[], options: ExtractiveSummaryOptions): ExtractiveSummary | undefined {
  const { countTokens } = options;
  const read = readMessages(messages, countTokens);
  const ceiling = Math.min(Math.floor(options.maxTokens), read.tokensRead - 1);
  if (!(ceiling > 0)) return undefined;
  const fromLog = new Map((options.earlierSummaries ?? []).map((earlier) => [earlier.messageIndex, earlier.sections]));
  const summaryIndexes = messages.flatMap((message, index) => (fromLog.has(index) || looksLikeSummary(message) ? [index] : []));
  const isSummary = new Set(summaryIndexes);
  const texts = read.texts.filter((text) => !isSummary.has(text.messageIndex));
  const locale = chooseLocale(options.locale, texts);
  const sentences = splitSentences(texts, locale);

  // Fold the range in order: runs of original messages are extracted, earlier summaries merged.
  let merged = emptySections();
  const innerKeys = new Set<string>();
  let newInputTokens = 0;
  let cursor = 0;
  for (const index of [...summaryIndexes, messages.length]) {
    if (index > cursor) {
      const run = extractSections({ messages, read, sentences, from: cursor, to: index });
      merged = mergeSummaries(merged, run.sections, run.evidence);
      newInputTokens += texts
        .filter((text) => text.messageIndex >= cursor && text.messageIndex < index)
        .reduce((sum, text) => sum + text.parts.reduce((total, part) => total + countTokens(part), 0), 0);
    }
    if (index < messages.length) {
      const earlier = sectionsOfEarlier(messages[index], fromLog.get(index), fromLog.has(index));
      for (const key of keysOf(earlier)) innerKeys.add(key);
      merged = mergeSummaries(merged, earlier);
    }
    cursor = index + 1;
  }
  merged = { ...merged, notes: [...new Set([...merged.notes, ...notesOf(read)])] };
  const innerTokens =
    innerKeys.size === 0 ? 0 : countTokens(renderSections({ ...merged, ...onlyInner(merged, innerKeys) }, EXTRACTIVE_LABEL));
  const target = options.targetTokens === undefined ? ceiling : innerTokens + options.targetTokens(newInputTokens);
  const fitted = fitSections(merged, {
    budget: Math.min(ceiling, target),
    ceiling,
    ...(options.targetTokens === undefined ? {} : { mergedLimit: Math.min(ceiling, SUMMARY_TARGET.mergedCap) }),
    countTokens,
    label: EXTRACTIVE_LABEL,
    isInner: (section, key) => innerKeys.has(`${section}\u0000${key}`),
  });
  if (fitted === undefined || lineCount(fitted) === 0) return undefined;
  const text = renderSections(fitted, EXTRACTIVE_LABEL);
  const outputTokens = countTokens(text);
  if (outputTokens > ceiling) return undefined;
  return {
    text,
    sections: fitted,
    inputTokens: read.tokensEstimated,
    outputTokens,
    linesKept: lineCount(fitted),
    sentencesConsidered: sentences.length,
    locale,
  };
}

/** The lines of `sections` that came from earlier summaries (to price what merging keeps). */
function onlyInner(sections: SummarySections, innerKeys: ReadonlySet<string>): Partial<SummarySections> {
  const has = (section: SectionName) => (key: string) => innerKeys.has(`${section}\u0000${key}`);
  return {
    requests: sections.requests.filter((line) => has('requests')(line.text)),
    files: sections.files.filter((line) => has('files')(line.path)),
    identifiers: sections.identifiers.filter(has('identifiers')),
    decisions: sections.decisions.filter(has('decisions')),
    errors: sections.errors.filter((line) => has('errors')(line.error)),
    progress: sections.progress.filter(has('progress')),
    toolCalls: sections.toolCalls.filter(has('toolCalls')),
    current: null,
    earlier: sections.earlier.filter(has('earlier')),
    unstructured: sections.unstructured.filter(has('unstructured')),
    notes: [],
  };
}
