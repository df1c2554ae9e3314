// The model summarizer's request, versioned: replay rebuilds it from the shadowed events, so a
// version, once recorded, is rebuilt exactly as it was sent.
//
// summary-request/1: a fixed instruction, then the range as a transcript in one user message.
// summary-request/2: an instruction to fill the fixed sections of render-summary.ts; the range
//   as one tagged transcript (tool calls and results included) inside a single user message;
//   for a nested range, the earlier summary in its own tag with the instruction to update it.
//   Tags inside the text are neutralised, so nothing in the range can close them early.

import { canonicalJson } from '../log/canonical-json.js';
import { blockPlaceholder, type ContentBlock } from '../log/content-block.js';
import type { ModelMessage, ModelRequest } from '../providers/language-model.js';
import { summaryInside } from './render-summary.js';
import { SummaryFailedError } from './summary-failed-error.js';

export const SUMMARY_REQUEST_V1 = 'summary-request/1';
export const SUMMARY_REQUEST_V2 = 'summary-request/2';
export const SUMMARY_REQUEST_VERSION = SUMMARY_REQUEST_V2;

const INSTRUCTION_V1 = [
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

const INSTRUCTION_V2 = [
  'You compact the context of an AI agent. You are not the agent: do not continue the conversation, answer its requests or call tools.',
  'The <transcript> in the next message will be replaced by your summary, and the agent will continue the work from the summary alone.',
  'Answer with the summary only, in markdown, using exactly these headings, in this order, and leaving out a heading with nothing under it:',
  '## Requests — every user request, oldest first, quoted verbatim: - [done] "…" or - [open] "…" (open = not answered yet). The first request stays first.',
  '## Files — one line per action: - created: a, b / - modified: … / - read: … / - mentioned: … (paths exactly as written).',
  '## Identifiers — - name1, name2, … (functions, types, variables, commands that matter).',
  '## Decisions — - one decision per line, with its reason.',
  '## Errors and fixes — only what actually failed (a failed tool result, an error the assistant reported): - what failed → fixed: how / - what failed → not fixed.',
  '## Progress — - the findings and answers given, with their figures (counts, versions, sizes).',
  '## Current work — - working on: … and - next step: … (leave out when every request is done).',
  'If an <earlier-summary> is given, it summarizes what came before the transcript: update it. Keep each of its lines unless the transcript supersedes it (a request now answered is done, a file now modified, an error now fixed, newer current work), then add what the transcript adds.',
  'Write in the past tense and in the language of the conversation. Be concise and exact; do not invent anything; inline code stays in backticks.',
].join('\n');

const TAGS = /<\s*(\/?)\s*(transcript|earlier-summary)\s*>/gi;

export interface SummaryRequestOptions {
  /** Indexes of `messages` that are earlier summaries' nodes (version 2 sends them apart, to be updated). */
  readonly earlierSummaryIndexes?: readonly number[];
  /** The size the summary should aim at, said in the instruction (version 2). */
  readonly targetTokens?: number;
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => blockPlaceholder(block)).join('\n');
}

/** The shadowed messages as a plain-text transcript, so that any provider accepts them without tools. */
export function transcriptOf(messages: readonly ModelMessage[], placeholders: ReadonlyMap<number, string> = new Map()): string {
  const lines: string[] = [];
  messages.forEach((message, index) => {
    const placeholder = placeholders.get(index);
    if (placeholder !== undefined) {
      lines.push(placeholder);
      return;
    }
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
  });
  return lines.join('\n');
}

function neutralizeTags(text: string): string {
  return text.replace(TAGS, (_, slash: string, name: string) => `[${slash}${name.toLowerCase()}]`);
}

function versionTwo(messages: readonly ModelMessage[], maxTokens: number, options: SummaryRequestOptions): ModelRequest {
  const earlier = [...new Set(options.earlierSummaryIndexes ?? [])].filter((index) => messages[index] !== undefined).sort((a, b) => a - b);
  const placeholders = new Map(
    earlier.map((index, at) => [index, `[earlier summary${earlier.length > 1 ? ` ${at + 1}` : ''}: the earlier-summary block above]`]),
  );
  const blocks = earlier.map((index) => {
    const text = summaryInside(textOf((messages[index] as ModelMessage).content));
    return `<earlier-summary>\n${neutralizeTags(text)}\n</earlier-summary>`;
  });
  const size = options.targetTokens === undefined ? '' : `, in at most about ${options.targetTokens} tokens`;
  const task =
    earlier.length > 0 ? `Update the earlier summary with the transcript${size}.` : `Write the summary of the transcript now${size}.`;
  const text = [...blocks, `<transcript>\n${neutralizeTags(transcriptOf(messages, placeholders))}\n</transcript>`, task].join('\n\n');
  return {
    messages: [
      { role: 'system', content: [{ type: 'text', text: INSTRUCTION_V2 }] },
      { role: 'user', content: [{ type: 'text', text }] },
    ],
    params: { tools: [], maxOutputTokens: maxTokens, stream: false },
  };
}

/** The summarizer's request in `version`; version 1 is kept so that its recorded requests still replay. */
export function summaryRequest(
  messages: readonly ModelMessage[],
  maxTokens: number,
  version: string = SUMMARY_REQUEST_VERSION,
  options: SummaryRequestOptions = {},
): ModelRequest {
  if (version === SUMMARY_REQUEST_V2) return versionTwo(messages, maxTokens, options);
  if (version !== SUMMARY_REQUEST_V1)
    throw new SummaryFailedError(
      `this shadowlog builds summary requests as ${SUMMARY_REQUEST_V1} or ${SUMMARY_REQUEST_V2}, not ${version}; replay it with the shadowlog version that recorded it`,
    );
  return {
    messages: [
      { role: 'system', content: [{ type: 'text', text: INSTRUCTION_V1 }] },
      {
        role: 'user',
        content: [{ type: 'text', text: `<transcript>\n${transcriptOf(messages)}\n</transcript>\n\nWrite the summary now.` }],
      },
    ],
    params: { tools: [], maxOutputTokens: maxTokens, stream: false },
  };
}
