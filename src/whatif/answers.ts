// A model's answer as a what-if compares it: its text, its tool calls (name and arguments), why
// it stopped, the tokens it reported; and the key two answers are the same answer by: the tool
// calls when it made any, else its text with runs of whitespace made one space.

import { canonicalJson } from '../log/canonical-json.js';
import type { ContentBlock, JsonValue, LogEvent } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import type { ModelResult } from '../providers/language-model.js';

export interface Answer {
  readonly text: string;
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: JsonValue }>;
  /** Why the model stopped: tool-calls, stop, length, …; null when nothing says. */
  readonly stopReason: string | null;
  /** True when the log kept no stop reason and it is read from the answer (tool calls or not). */
  readonly stopReasonInferred: boolean;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | null;
  /** The call failed, or its answer could not be recorded as a message. */
  readonly error: { readonly code: string; readonly message: string } | null;
}

export const NO_ANSWER: Answer = {
  text: '',
  toolCalls: [],
  stopReason: null,
  stopReasonInferred: false,
  usage: null,
  error: { code: 'NO_ANSWER', message: 'the log holds no answer to this call' },
};

/** The answer an event of the log holds (an assistant/message, a model/error, a model/unrecorded-answer). */
export function answerOfEvent(event: LogEvent | undefined): Answer {
  if (event === undefined) return NO_ANSWER;
  if (event.type === 'model/error' || event.type === 'model/unrecorded-answer') {
    const { code, message } = dataOf(event, event.type);
    return { ...NO_ANSWER, error: { code, message } };
  }
  const data = dataOf(event, 'assistant/message');
  const toolCalls = data.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments }));
  // The stop reason a what-if session records with its answer; the spine's own answers keep none.
  const recorded = (data as { finishReason?: unknown }).finishReason;
  return {
    text: textOf(data.content),
    toolCalls,
    stopReason: typeof recorded === 'string' ? recorded : toolCalls.length > 0 ? 'tool-calls' : 'stop',
    stopReasonInferred: typeof recorded !== 'string',
    usage: data.usage === undefined ? null : { inputTokens: data.usage.inputTokens, outputTokens: data.usage.outputTokens },
    error: null,
  };
}

/** The answer a model just gave. */
export function answerOfResult(result: ModelResult): Answer {
  return {
    text: textOf(result.content),
    toolCalls: result.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })),
    stopReason: result.finishReason,
    stopReasonInferred: false,
    usage: result.usage === undefined ? null : { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
    error: null,
  };
}

/** What two answers must share to be the same answer: their tool calls, else their normalized text, else their error. */
export function answerKey(answer: Answer): string {
  if (answer.error !== null) return `error: ${answer.error.code}`;
  if (answer.toolCalls.length > 0) return answer.toolCalls.map((call) => `${call.name} ${canonicalJson(call.arguments)}`).join('; ');
  return `text: ${normalizedText(answer.text)}`;
}

export function normalizedText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** How often each answer occurred, most frequent first (ties in order of first occurrence). */
export function answerCounts(answers: readonly Answer[]): Array<{ readonly key: string; readonly count: number }> {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const key = answerKey(answer);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count);
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}
