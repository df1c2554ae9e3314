// Summarizers: what turns the shadowed messages into the summary's sections and the text of
// the replacing node. The model summarizer makes one call through the provider interface, with
// no tools offered, and parses the answer into sections; the extractive one uses no model.

import { canonicalJson } from '../log/canonical-json.js';
import { blockPlaceholder, type ContentBlock } from '../log/content-block.js';
import type { LanguageModel, ModelMessage } from '../providers/language-model.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { type EarlierSummary, EXTRACTIVE_LABEL, summarizeExtractively } from './extractive-summarizer.js';
import { mergeSummaries } from './merge-summaries.js';
import { parseSummaryText } from './parse-summary.js';
import { renderSections } from './render-summary.js';
import { SummaryFailedError } from './summary-failed-error.js';
import { SUMMARY_REQUEST_VERSION, summaryRequest } from './summary-request.js';
import type { SummarySections } from './summary-sections.js';
import { summaryTargetTokens } from './summary-target.js';

export { SUMMARY_REQUEST_VERSION, summaryRequest, transcriptOf } from './summary-request.js';
export type { EarlierSummary };
export { SummaryFailedError };

export interface SummaryRequest {
  /** The shadowed nodes, rendered as the model would have seen them. */
  readonly messages: readonly ModelMessage[];
  /** The ceiling (maxSummaryTokens); the summary aims far lower (summary-target.ts). */
  readonly maxTokens: number;
  readonly signal: AbortSignal;
  /** The range's earlier summary nodes, with the sections the log holds for them: merged, never re-read as text. */
  readonly earlierSummaries?: readonly EarlierSummary[];
}

export interface SummaryResult {
  readonly text: string;
  /** The summary as data; absent for a summarizer that only writes text. */
  readonly sections?: SummarySections;
  /** The size the summary aimed at, when the summarizer had one. */
  readonly targetTokens?: number;
  readonly kind: 'model' | 'extractive';
  readonly provider: string;
  readonly model: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | null;
  readonly requestDigest: string | null;
  readonly rendererVersion: string | null;
  /** The answer was cut by its token limit (a failure: SPEC §7). */
  readonly truncated: boolean;
}

export interface Summarizer {
  summarize(request: SummaryRequest): Promise<SummaryResult>;
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => blockPlaceholder(block)).join('\n');
}

/** Tokens of the messages that are not earlier summaries: what the target is a share of. */
function newInputTokens(request: SummaryRequest, countTokens: (text: string) => number): number {
  const earlier = new Set((request.earlierSummaries ?? []).map((summary) => summary.messageIndex));
  return request.messages.reduce((sum, message, index) => (earlier.has(index) ? sum : sum + countTokens(textOf(message.content))), 0);
}

/** A rough, tokenizer-free size for the instruction: the model counts its own tokens. */
const approximateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * The model's answer as sections. One that does not parse is kept whole, as unstructured text,
 * merged into the earlier summary's sections so that those are not lost with it.
 */
export function sectionsOfAnswer(answer: string, earlier: readonly EarlierSummary[]): SummarySections {
  const parsed = parseSummaryText(answer);
  if (parsed.structured) return parsed.sections;
  return earlier.reduce<SummarySections>(
    (merged, summary) => (summary.sections === undefined ? merged : mergeSummaries(summary.sections, merged)),
    parsed.sections,
  );
}

/** One call to `model` with the shadowed messages and the fixed instruction, no tools offered. */
export function createModelSummarizer(model: LanguageModel): Summarizer {
  return {
    async summarize(request) {
      const { messages, maxTokens, signal } = request;
      const earlier = request.earlierSummaries ?? [];
      const targetTokens = summaryTargetTokens(newInputTokens(request, approximateTokens), maxTokens);
      const built = summaryRequest(messages, maxTokens, SUMMARY_REQUEST_VERSION, {
        earlierSummaryIndexes: earlier.map((summary) => summary.messageIndex),
        targetTokens,
      });
      const rendered = model.render(built);
      const result = await model.send(rendered, { signal });
      const answer = textOf(result.content).trim();
      const sections = sectionsOfAnswer(answer, earlier);
      return {
        text: answer === '' ? '' : renderSections(sections),
        sections,
        targetTokens,
        kind: 'model',
        provider: model.provider,
        model: model.modelId,
        usage: result.usage === undefined ? null : { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
        requestDigest: nodeSha256Hex(canonicalJson(rendered.body)),
        rendererVersion: `${SUMMARY_REQUEST_VERSION} ${model.rendererVersion}`,
        truncated: result.finishReason === 'length',
      };
    },
  };
}

/**
 * The extractive summarizer: no model call. It aims at summaryTargetTokens of the new messages
 * (plus what an earlier summary keeps), within maxTokens, and keeps only lines that say something.
 */
export function createExtractiveSummarizer(countTokens: (text: string) => number): Summarizer {
  return {
    async summarize(request) {
      const { messages, maxTokens } = request;
      let targetTokens = 0;
      const summary = summarizeExtractively(messages, {
        maxTokens,
        countTokens,
        targetTokens: (tokens) => {
          targetTokens = summaryTargetTokens(tokens, maxTokens);
          return targetTokens;
        },
        ...(request.earlierSummaries === undefined ? {} : { earlierSummaries: request.earlierSummaries }),
      });
      if (summary === undefined) {
        const inputTokens = messages.reduce((sum, message) => sum + countTokens(textOf(message.content)), 0);
        throw new SummaryFailedError(
          `the range is too small for a useful extractive summary (${inputTokens} tokens of text; the label "${EXTRACTIVE_LABEL}" and one line must fit in less, within maxSummaryTokens ${maxTokens})`,
        );
      }
      return {
        text: summary.text,
        sections: summary.sections,
        targetTokens,
        kind: 'extractive',
        provider: 'shadowlog',
        model: 'extractive',
        usage: null,
        requestDigest: null,
        rendererVersion: null,
        truncated: false,
      };
    },
  };
}
