// Summarizers: what turns the shadowed messages into the text of the replacing node. The
// model summarizer makes one call through the provider interface, with no tools offered;
// the extractive one selects sentences and uses no model.

import { canonicalJson } from '../log/canonical-json.js';
import { ShadowlogError } from '../log/errors.js';
import type { ContentBlock } from '../log/event.js';
import { sha256Hex } from '../log/sha256.js';
import type { LanguageModel, ModelMessage, ModelRequest } from '../providers/language-model.js';
import { summarizeExtractively } from './extractive-summarizer.js';

export interface SummaryRequest {
  /** The shadowed nodes, rendered as the model would have seen them. */
  readonly messages: readonly ModelMessage[];
  readonly maxTokens: number;
  readonly signal: AbortSignal;
}

export interface SummaryResult {
  readonly text: string;
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

/** A summarizer that could not produce a usable summary. */
export class SummaryFailedError extends ShadowlogError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SUMMARY_FAILED', message, options);
  }
}

export const SUMMARY_REQUEST_VERSION = 'summary-request/1';

const INSTRUCTION = [
  'You compact the context of an AI agent. The transcript below will be replaced by your summary, and the agent will continue the work from the summary alone.',
  'Write the summary in the past tense and in the language of the conversation. Cover, in this order and only where there is something to say:',
  '1. the task and its current state;',
  '2. decisions made, and why;',
  '3. files, paths and identifiers touched;',
  '4. errors met and how they were resolved (or that they were not);',
  '5. open to-dos;',
  "6. the user's latest request, quoted.",
  'Be concise and exact. Do not invent anything, do not address the user, and do not call tools.',
].join('\n');

/** The shadowed messages as a plain-text transcript, so that any provider accepts them without tools. */
export function transcriptOf(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const text = textOf(message.content);
    switch (message.role) {
      case 'assistant':
        lines.push(`[assistant] ${text}`);
        for (const call of message.toolCalls)
          lines.push(`[assistant calls ${call.name}] ${canonicalJson(call.arguments)} (${call.callId})`);
        break;
      case 'tool':
        lines.push(`[tool result for ${message.callId}${message.isError ? ', an error' : ''}] ${text}`);
        break;
      default:
        lines.push(`[${message.role}] ${text}`);
    }
  }
  return lines.join('\n');
}

/** The summarizer's request, versioned: replay rebuilds it from the shadowed events. */
export function summaryRequest(
  messages: readonly ModelMessage[],
  maxTokens: number,
  version: string = SUMMARY_REQUEST_VERSION,
): ModelRequest {
  if (version !== SUMMARY_REQUEST_VERSION)
    throw new SummaryFailedError(`this shadowlog builds summary requests as ${SUMMARY_REQUEST_VERSION}, not ${version}`);
  return {
    messages: [
      { role: 'system', content: [{ type: 'text', text: INSTRUCTION }] },
      {
        role: 'user',
        content: [{ type: 'text', text: `<transcript>\n${transcriptOf(messages)}\n</transcript>\n\nWrite the summary now.` }],
      },
    ],
    params: { tools: [], maxOutputTokens: maxTokens, stream: false },
  };
}

/** One call to `model` with the shadowed messages and the fixed instruction, no tools offered. */
export function createModelSummarizer(model: LanguageModel): Summarizer {
  return {
    async summarize({ messages, maxTokens, signal }) {
      const rendered = model.render(summaryRequest(messages, maxTokens));
      const result = await model.send(rendered, { signal });
      return {
        text: textOf(result.content).trim(),
        kind: 'model',
        provider: model.provider,
        model: model.modelId,
        usage: result.usage === undefined ? null : { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
        requestDigest: sha256Hex(canonicalJson(rendered.body)),
        rendererVersion: `${SUMMARY_REQUEST_VERSION} ${model.rendererVersion}`,
        truncated: result.finishReason === 'length',
      };
    },
  };
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : `[image ${block.mediaType}]`)).join('\n');
}

/**
 * The extractive summarizer: no model call. Its budget is the smaller of maxTokens and half of
 * what it summarizes, so that a compaction always saves something worth the cut.
 */
export function createExtractiveSummarizer(countTokens: (text: string) => number): Summarizer {
  return {
    async summarize({ messages, maxTokens }) {
      const inputTokens = messages.reduce((sum, message) => sum + countTokens(textOf(message.content)), 0);
      const budget = Math.min(maxTokens, Math.floor(inputTokens / 2));
      const summary = summarizeExtractively(messages, { maxTokens: budget, countTokens });
      if (summary === undefined)
        throw new SummaryFailedError(
          `the range is too small for a useful extractive summary (${inputTokens} tokens of text, a budget of ${budget})`,
        );
      return {
        text: summary.text,
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
