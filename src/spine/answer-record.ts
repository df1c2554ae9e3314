// How the spine records a model's answer: as an assistant/message when the log can hold it, and
// otherwise as it arrived, in a model/unrecorded-answer event with the reason, so that nothing
// a model said is missing from the record.

import { InvalidEventError, messageOf, type ShadowlogError, SurfaceOpError } from '../log/errors.js';
import type { EventDraft, RawAnswer, ToolCall, Usage } from '../log/event.js';
import type { ModelResult, ModelUsage, ModelWarning } from '../providers/language-model.js';
import type { ProviderError } from '../providers/provider-error.js';
import { TooLargeToRecordError } from './spine-errors.js';

export function assistantMessageDraft(result: ModelResult, toolCalls: readonly ToolCall[], modelId: string): EventDraft {
  return {
    type: 'assistant/message',
    data: {
      content: result.content,
      toolCalls,
      model: result.responseModel ?? modelId,
      ...(result.usage === undefined ? {} : { usage: usageOf(result.usage) }),
      // The provider's ids for the request and the answer, for its support and logs.
      ...(result.requestId === undefined ? {} : { requestId: result.requestId }),
      ...(result.responseId === undefined ? {} : { responseId: result.responseId }),
    },
    surfaceOp: 'append',
  };
}

/** The counts the log's usage holds, those the provider gave and no others (absent, never null). */
function usageOf(usage: ModelUsage): Usage {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens } = usage;
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
    ...(cacheWriteTokens === undefined ? {} : { cacheWriteTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  };
}

/**
 * A failed model call. `attempt` counts the tries of this request (1 for the first);
 * `retryAfterMs`, present when the spine tries again, is the wait before it does. The HTTP
 * status and the provider's request id are kept when the provider gave them.
 */
export function modelErrorDraft(
  turn: number,
  step: number,
  error: ProviderError,
  attempt: number,
  retryAfterMs: number | undefined,
): EventDraft {
  return {
    type: 'model/error',
    data: {
      turn,
      step,
      code: error.code,
      message: error.message,
      retryable: error.retryable,
      contextOverflow: error.contextOverflow,
      attempt,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
    },
  };
}

/**
 * Something about an answer a reader should know (the provider may have cut the input): marked
 * ignorable, so that readers that do not know the type still rebuild and replay the session.
 */
export function modelWarningDraft(turn: number, step: number, warning: ModelWarning): EventDraft {
  return { type: 'model/warning', data: { turn, step, code: warning.code, message: warning.message }, ignorable: true };
}

/**
 * Marked ignorable: it changes no surface, so a reader from before this type existed can skip
 * it and still rebuild and replay the session.
 */
export function unrecordedAnswerDraft(turn: number, step: number, refusal: ShadowlogError, raw: RawAnswer): EventDraft {
  return { type: 'model/unrecorded-answer', data: { turn, step, code: refusal.code, message: refusal.message, raw }, ignorable: true };
}

/**
 * The typed reason when an append failed because the log cannot hold the event (a shape or
 * SurfaceOp rule refused it, or its JSON is longer than a string can be); undefined for any other
 * failure (the store's), which is not the answer's fault and is rethrown.
 */
export function refusalOf(error: unknown, what: string): ShadowlogError | undefined {
  if (error instanceof InvalidEventError || error instanceof SurfaceOpError) return error;
  if (error instanceof RangeError) return new TooLargeToRecordError(what, error);
  return undefined;
}

/** The answer as it arrived (`raw`, from the adapter); for a model with no wire form, the JSON of its result. */
export function rawAnswerOf(result: ModelResult, raw: RawAnswer | undefined): RawAnswer {
  if (raw !== undefined) return raw;
  let text: string;
  try {
    // Values JSON has no form for (Infinity, NaN, a bigint) are written as text, not as null.
    text = JSON.stringify(result, (_key, value: unknown) =>
      (typeof value === 'number' && !Number.isFinite(value)) || typeof value === 'bigint' ? String(value) : value,
    );
  } catch (error) {
    text = JSON.stringify({ unserializable: messageOf(error) });
  }
  return { format: 'result', text };
}
