// Reads an OpenAI chat-completions answer: the JSON of a non-streaming response, and the
// pieces they share with the stream (usage, tool-call arguments, the malformed-response error).

import type { ReasoningBlock, ToolCall } from '../../log/event.js';
import { excerpt, malformedResponseError } from '../classify-http-error.js';
import { jsonSourceAt } from '../json-source.js';
import type { ModelResult, ModelUsage } from '../language-model.js';
import { createModelResult } from '../model-result.js';
import type { ProviderError } from '../provider-error.js';
import { isRecord, readArray, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import { argumentsFromText, argumentsFromValue } from '../tool-arguments.js';
import { createUsage } from '../usage.js';
import { mapOpenAIChatFinishReason } from './map-finish-reason.js';

export const OPENAI_CHAT_API = 'OpenAI chat completions';

export function openAIMalformed(service: string, found: string): ProviderError {
  return malformedResponseError('openai', service, found, OPENAI_CHAT_API);
}

/**
 * `text` is the body as it arrived, where arguments JSON.parse could not keep exactly are read
 * from; `reasoningProvider` tags the reasoning a server gives (DeepSeek's reasoning_content).
 */
export function parseOpenAIChatResponse(service: string, body: unknown, text = '', reasoningProvider = 'openai'): ModelResult {
  if (!isRecord(body)) return malformed(service, 'a JSON value that is not an object', body);
  const choice = readArray(body, 'choices')?.[0];
  if (!isRecord(choice)) return malformed(service, 'no choices[0]', body);
  const message = readRecord(choice, 'message');
  if (message === undefined) return malformed(service, 'no choices[0].message', body);
  const refusal = readString(message, 'refusal');
  const toolCalls = (readArray(message, 'tool_calls') ?? []).map((call, index) =>
    parseToolCall(service, call, () => jsonSourceAt(text, ['choices', 0, 'message', 'tool_calls', index, 'function', 'arguments'])),
  );
  const reasoning = reasoningBlock(reasoningTextOf(message), reasoningProvider);
  return createModelResult({
    content: [...(reasoning === undefined ? [] : [reasoning]), ...textsOf(message.content), ...(refusal === undefined ? [] : [refusal])],
    toolCalls,
    finishReason: refusal === undefined ? mapOpenAIChatFinishReason(readString(choice, 'finish_reason')) : 'content-filter',
    usage: readOpenAIUsage(body),
    responseModel: readString(body, 'model'),
    responseId: readString(body, 'id'),
  });
}

/**
 * Usage as OpenAI reports it, cached input (prompt_tokens_details.cached_tokens, or DeepSeek's
 * prompt_cache_hit_tokens) and reasoning (completion_tokens_details.reasoning_tokens) where
 * given; absent when the server reported none or only part of the whole counts.
 */
export function readOpenAIUsage(body: UnknownRecord): ModelUsage | undefined {
  const usage = readRecord(body, 'usage');
  if (usage === undefined) return undefined;
  const inputTokens = readNumber(usage, 'prompt_tokens');
  const outputTokens = readNumber(usage, 'completion_tokens');
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const promptDetails = readRecord(usage, 'prompt_tokens_details');
  const completionDetails = readRecord(usage, 'completion_tokens_details');
  return createUsage({
    inputTokens,
    outputTokens,
    cacheReadTokens:
      (promptDetails === undefined ? undefined : readNumber(promptDetails, 'cached_tokens')) ??
      readNumber(usage, 'prompt_cache_hit_tokens'),
    reasoningTokens: completionDetails === undefined ? undefined : readNumber(completionDetails, 'reasoning_tokens'),
  });
}

/** The reasoning a message or a delta carries: reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning (Ollama, newer vLLM). */
export function reasoningTextOf(message: UnknownRecord): string | undefined {
  return readString(message, 'reasoning_content') ?? readString(message, 'reasoning');
}

/** A reasoning block of `provider` for text the model reasoned; none for none. */
export function reasoningBlock(text: string | undefined, provider: string): ReasoningBlock | undefined {
  return text === undefined || text === '' ? undefined : { type: 'reasoning', provider, text };
}

/** Content is a string; a few compatible servers send an array of text parts instead. */
function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []));
}

/**
 * The id is kept as sent, even empty or repeated: the spine gives such a call an id of its own
 * and records this one as providerCallId. Arguments are text on this wire; a server that sends
 * an object instead gets it kept as the value (and as its source text if JSON.parse could not
 * keep it exactly).
 */
function parseToolCall(service: string, call: unknown, sourceText: () => string | undefined): ToolCall {
  const functionPart = isRecord(call) ? readRecord(call, 'function') : undefined;
  const callId = isRecord(call) ? readString(call, 'id') : undefined;
  const name = functionPart === undefined ? undefined : readString(functionPart, 'name');
  if (callId === undefined || functionPart === undefined || name === undefined) {
    throw openAIMalformed(service, `a tool call without an id or a function name: ${excerpt(JSON.stringify(call) ?? '')}`);
  }
  const args = functionPart.arguments;
  if (typeof args === 'string') return { callId, name, ...argumentsFromText(args, 'text') };
  if (args === undefined || args === null) return { callId, name, arguments: {} };
  return { callId, name, ...argumentsFromValue(args, sourceText) };
}

function malformed(service: string, what: string, body: unknown): never {
  throw openAIMalformed(service, `${what} in ${excerpt(JSON.stringify(body) ?? '')}`);
}
