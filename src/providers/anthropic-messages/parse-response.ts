// Reads an Anthropic Messages answer: the JSON of a non-streaming response, and the pieces
// it shares with the stream (usage, the malformed-response error).

import type { ReasoningBlock, ToolCall } from '../../log/event.js';
import { excerpt, malformedResponseError } from '../classify-http-error.js';
import { jsonSourceAt } from '../json-source.js';
import type { ModelResult, ModelUsage } from '../language-model.js';
import { createModelResult } from '../model-result.js';
import type { ProviderError } from '../provider-error.js';
import { isRecord, readArray, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import { argumentsFromValue, type ToolCallArguments } from '../tool-arguments.js';
import { createUsage } from '../usage.js';
import { mapAnthropicStreamError } from './map-error.js';
import { mapAnthropicStopReason } from './map-finish-reason.js';

export const ANTHROPIC_MESSAGES_API = 'Anthropic Messages';
/** The provider tag of Anthropic's thinking, which goes back only to Anthropic. */
export const ANTHROPIC_REASONING_PROVIDER = 'anthropic';

export function anthropicMalformed(service: string, found: string): ProviderError {
  return malformedResponseError('anthropic', service, found, ANTHROPIC_MESSAGES_API);
}

/** `text` is the body as it arrived, where inputs JSON.parse could not keep exactly are read from. */
export function parseAnthropicResponse(service: string, body: unknown, text = '', requestId?: string): ModelResult {
  if (!isRecord(body)) throw anthropicMalformed(service, `a JSON value that is not an object: ${excerpt(JSON.stringify(body) ?? '')}`);
  if (body.type === 'error') throw mapAnthropicStreamError(service, JSON.stringify(body), requestId);
  const blocks = readArray(body, 'content');
  if (blocks === undefined) throw anthropicMalformed(service, `no content array in ${excerpt(JSON.stringify(body))}`);
  const content: Array<string | ReasoningBlock> = [];
  const toolCalls: ToolCall[] = [];
  for (const [index, block] of blocks.entries()) {
    if (!isRecord(block)) continue;
    if (block.type === 'text') content.push(readString(block, 'text') ?? '');
    else if (block.type === 'thinking' || block.type === 'redacted_thinking') content.push(...thinkingBlock(block));
    else if (block.type === 'tool_use')
      toolCalls.push(
        parseToolUse(
          service,
          block,
          inputOf(block, () => jsonSourceAt(text, ['content', index, 'input'])),
        ),
      );
    // Server-tool blocks are not part of what the log records yet.
  }
  return createModelResult({
    content,
    toolCalls,
    finishReason: mapAnthropicStopReason(readString(body, 'stop_reason')),
    usage: anthropicUsage(readRecord(body, 'usage')),
    responseModel: readString(body, 'model'),
    responseId: readString(body, 'id'),
  });
}

/**
 * The id is kept as sent, even empty or repeated: the spine gives such a call an id of its own
 * and records this one as providerCallId.
 */
export function parseToolUse(service: string, block: UnknownRecord, input: ToolCallArguments): ToolCall {
  const callId = readString(block, 'id');
  const name = readString(block, 'name');
  if (callId === undefined || name === undefined)
    throw anthropicMalformed(service, `a tool_use block without an id or a name: ${excerpt(JSON.stringify(block))}`);
  return { callId, name, ...input };
}

/**
 * A tool_use block's input, whatever it holds: the API promises an object, and the renderer
 * sends back only an object, but what a server sent instead is kept for the record. No input
 * means no arguments ({}).
 */
export function inputOf(block: UnknownRecord, sourceText: () => string | undefined): ToolCallArguments {
  return block.input === undefined ? { arguments: {} } : argumentsFromValue(block.input, sourceText);
}

/**
 * A thinking block as the log keeps it, to go back unchanged: the thinking and its signature;
 * a redacted one as its opaque data. One with neither (a stream cut short) is dropped: it could
 * not be sent back.
 */
export function thinkingBlock(block: UnknownRecord): ReasoningBlock[] {
  if (block.type === 'redacted_thinking') {
    const data = readString(block, 'data');
    return data === undefined ? [] : [{ type: 'reasoning', provider: ANTHROPIC_REASONING_PROVIDER, data }];
  }
  const text = readString(block, 'thinking');
  const signature = readString(block, 'signature');
  if (signature === undefined || signature === '')
    return text === undefined || text === '' ? [] : [{ type: 'reasoning', provider: ANTHROPIC_REASONING_PROVIDER, text }];
  return [{ type: 'reasoning', provider: ANTHROPIC_REASONING_PROVIDER, ...(text === undefined ? {} : { text }), signature }];
}

/**
 * Input tokens count cached ones too: Anthropic reports tokens written to and read from the
 * prompt cache apart from input_tokens, and all of them fill the context window; the cache
 * counts are kept as the parts they are, and the thinking within the output where reported.
 */
export function anthropicUsage(usage: UnknownRecord | undefined): ModelUsage | undefined {
  if (usage === undefined) return undefined;
  const input = readNumber(usage, 'input_tokens');
  const outputTokens = readNumber(usage, 'output_tokens');
  if (input === undefined || outputTokens === undefined) return undefined;
  const cacheWriteTokens = readNumber(usage, 'cache_creation_input_tokens');
  const cacheReadTokens = readNumber(usage, 'cache_read_input_tokens');
  const details = readRecord(usage, 'output_tokens_details');
  return createUsage({
    inputTokens: input + (cacheWriteTokens ?? 0) + (cacheReadTokens ?? 0),
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    reasoningTokens: details === undefined ? undefined : readNumber(details, 'thinking_tokens'),
  });
}
