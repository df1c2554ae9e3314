// Summarizers: what turns the shadowed messages into the summary's sections and the text of
// the replacing node. The model summarizer makes one call through the provider interface, with
// no tools offered, and parses the answer into sections; the extractive one uses no model.

import { canonicalJson } from '../log/canonical-json.js';
import { blockPlaceholder, type ContentBlock } from '../log/content-block.js';
import type { LanguageModel, ModelMessage, ModelRequest } from '../providers/language-model.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { type EarlierSummary, EXTRACTIVE_LABEL, summarizeExtractively } from './extractive-summarizer.js';
import { mergeSummaries } from './merge-summaries.js';
import { parseSummaryText } from './parse-summary.js';
import { renderSections } from './render-summary.js';
import { summaryCeiling, summaryOutputBudget } from './summary-budget.js';
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
  /** The output budget the request was sent with (max_tokens), when it was below the request's maxTokens. */
  readonly maxTokens?: number;
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

export interface ModelSummarizerOptions {
  /**
   * The input tokens of a summary request, by the meter the policy uses; default about four
   * characters a token. The request's max_tokens is cut so that these and it fit the model's window.
   */
  readonly requestTokens?: (request: ModelRequest) => number;
}

/**
 * One call to `model` with the shadowed messages and the fixed instruction, no tools offered. Its
 * max_tokens is the request's maxTokens, cut to the model's output limit and to the room its
 * window leaves after the request's input (summary-budget.ts); a request without room for the
 * summary's target is refused before it is sent (SummaryBudgetError).
 */
export function createModelSummarizer(model: LanguageModel, options: ModelSummarizerOptions = {}): Summarizer {
  const requestTokens = options.requestTokens ?? approximateRequestTokens;
  return {
    async summarize(request) {
      const { messages, signal } = request;
      const earlier = request.earlierSummaries ?? [];
      const outputLimit = model.limits.defaultMaxOutputTokens;
      const ceiling = summaryCeiling({ maxSummaryTokens: request.maxTokens, outputLimit });
      const targetTokens = summaryTargetTokens(newInputTokens(request, approximateTokens), ceiling);
      const build = (maxTokens: number) =>
        summaryRequest(messages, maxTokens, SUMMARY_REQUEST_VERSION, {
          earlierSummaryIndexes: earlier.map((summary) => summary.messageIndex),
          targetTokens,
        });
      const maxTokens = summaryOutputBudget({
        maxSummaryTokens: request.maxTokens,
        outputLimit,
        contextWindow: model.limits.contextWindow,
        inputTokens: requestTokens(build(ceiling)),
        targetTokens,
        model: `${model.provider}/${model.modelId}`,
      });
      const rendered = model.render(build(maxTokens));
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
        ...(maxTokens === request.maxTokens ? {} : { maxTokens }),
      };
    },
  };
}

/** A request's input tokens at about four characters a token, with a few per message. */
function approximateRequestTokens(request: ModelRequest): number {
  return request.messages.reduce((sum, message) => sum + 4 + approximateTokens(textOf(message.content)), 0);
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
