// Reads a Responses API answer: the JSON of a non-streaming response, and the output items and
// usage a stream's final event carries in the same shape.

import type { ReasoningBlock, ToolCall } from '../../log/event.js';
import { excerpt, malformedResponseError } from '../classify-http-error.js';
import type { ModelResult, ModelUsage } from '../language-model.js';
import { createModelResult } from '../model-result.js';
import type { ProviderError } from '../provider-error.js';
import { isRecord, readArray, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import { argumentsFromText } from '../tool-arguments.js';
import { createUsage } from '../usage.js';
import { RESPONSES_REASONING_PROVIDER } from './convert-messages.js';
import { mapOpenAIResponsesStreamError, OPENAI_RESPONSES_PROVIDER } from './map-error.js';
import { mapOpenAIResponsesFinishReason } from './map-finish-reason.js';

export const OPENAI_RESPONSES_API = 'OpenAI Responses';

export function responsesMalformed(service: string, found: string): ProviderError {
  return malformedResponseError(OPENAI_RESPONSES_PROVIDER, service, found, OPENAI_RESPONSES_API);
}

export function parseOpenAIResponsesResponse(service: string, body: unknown, requestId?: string): ModelResult {
  if (!isRecord(body)) throw responsesMalformed(service, `a JSON value that is not an object: ${excerpt(JSON.stringify(body) ?? '')}`);
  return resultOfResponse(service, body, requestId);
}

/** A response object (the body, or the one a stream's final event carries) as a result. */
export function resultOfResponse(
  service: string,
  response: UnknownRecord,
  requestId: string | undefined,
  items?: readonly unknown[],
): ModelResult {
  const status = readString(response, 'status');
  if (status === 'failed') throw mapOpenAIResponsesStreamError(service, response.error ?? { message: 'the response failed' }, requestId);
  const output = items ?? readArray(response, 'output');
  if (output === undefined) throw responsesMalformed(service, `no output array in ${excerpt(JSON.stringify(response))}`);
  const content: Array<string | ReasoningBlock> = [];
  const toolCalls: ToolCall[] = [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    if (item.type === 'message') content.push(...messageTexts(item));
    else if (item.type === 'reasoning') content.push(...reasoningOf(item));
    else if (item.type === 'function_call') toolCalls.push(functionCall(service, item));
    // The provider's own tools' items are not part of what the log records yet.
  }
  const refused = output.some((item) => isRecord(item) && item.type === 'message' && messageRefusal(item) !== undefined);
  const incomplete = readRecord(response, 'incomplete_details');
  const finishReason = mapOpenAIResponsesFinishReason(
    status,
    incomplete === undefined ? undefined : readString(incomplete, 'reason'),
    toolCalls.length > 0,
  );
  return createModelResult({
    content,
    toolCalls,
    finishReason: refused ? 'content-filter' : finishReason,
    usage: readResponsesUsage(response),
    responseModel: readString(response, 'model'),
    responseId: readString(response, 'id'),
  });
}

/** Its output_text parts, and a refusal as text (as chat completions gives it). */
function messageTexts(item: UnknownRecord): string[] {
  return (readArray(item, 'content') ?? []).flatMap((part) => {
    if (!isRecord(part)) return [];
    if (part.type === 'output_text') return [readString(part, 'text') ?? ''];
    if (part.type === 'refusal') return [readString(part, 'refusal') ?? ''];
    return [];
  });
}

function messageRefusal(item: UnknownRecord): string | undefined {
  const part = (readArray(item, 'content') ?? []).find((entry) => isRecord(entry) && entry.type === 'refusal');
  return isRecord(part) ? readString(part, 'refusal') : undefined;
}

/**
 * A reasoning item as the log keeps it, to go back as it came: its id, the text of its summary
 * parts, its encrypted content, and its reasoning text when the model returns it. One with none
 * of these carries nothing.
 */
function reasoningOf(item: UnknownRecord): ReasoningBlock[] {
  const id = readString(item, 'id');
  const summary = (readArray(item, 'summary') ?? []).flatMap((part) =>
    isRecord(part) && typeof part.text === 'string' ? [part.text] : [],
  );
  const texts = (readArray(item, 'content') ?? []).flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []));
  const data = readString(item, 'encrypted_content');
  if (summary.length === 0 && texts.length === 0 && data === undefined) return [];
  return [
    {
      type: 'reasoning',
      provider: RESPONSES_REASONING_PROVIDER,
      ...(id === undefined ? {} : { id }),
      ...(summary.length === 0 ? {} : { summary }),
      ...(texts.length === 0 ? {} : { text: texts.join('') }),
      ...(data === undefined ? {} : { data }),
    },
  ];
}

/** The call id is what a function_call_output names; `id` (fc_…) is the item's own. */
function functionCall(service: string, item: UnknownRecord): ToolCall {
  const callId = readString(item, 'call_id');
  const name = readString(item, 'name');
  if (callId === undefined || name === undefined) {
    throw responsesMalformed(service, `a function_call without a call_id or a name: ${excerpt(JSON.stringify(item))}`);
  }
  return { callId, name, ...argumentsFromText(readString(item, 'arguments') ?? '', 'text') };
}

/** Usage as the Responses API reports it; absent when the server reported none or only part of it. */
export function readResponsesUsage(response: UnknownRecord): ModelUsage | undefined {
  const usage = readRecord(response, 'usage');
  if (usage === undefined) return undefined;
  const inputTokens = readNumber(usage, 'input_tokens');
  const outputTokens = readNumber(usage, 'output_tokens');
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const inputDetails = readRecord(usage, 'input_tokens_details');
  const outputDetails = readRecord(usage, 'output_tokens_details');
  return createUsage({
    inputTokens,
    outputTokens,
    cacheReadTokens: inputDetails === undefined ? undefined : readNumber(inputDetails, 'cached_tokens'),
    cacheWriteTokens: inputDetails === undefined ? undefined : readNumber(inputDetails, 'cache_write_tokens'),
    reasoningTokens: outputDetails === undefined ? undefined : readNumber(outputDetails, 'reasoning_tokens'),
  });
}
