// Reads an Anthropic Messages SSE stream: message_start (model, usage), content blocks built
// from their start and deltas (text_delta, input_json_delta), message_delta (stop reason,
// final usage), message_stop, and an `error` event, which becomes a ProviderError.

import type { ReasoningBlock, ToolCall } from '../../log/event.js';
import { excerpt } from '../classify-http-error.js';
import { jsonSourceAt } from '../json-source.js';
import type { ModelResult } from '../language-model.js';
import { createModelResult } from '../model-result.js';
import { isRecord, parseJson, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import type { ServerSentEvent } from '../sse.js';
import { argumentsFromText } from '../tool-arguments.js';
import { mapAnthropicStreamError } from './map-error.js';
import { mapAnthropicStopReason } from './map-finish-reason.js';
import { anthropicMalformed, anthropicUsage, inputOf, parseToolUse, thinkingBlock } from './parse-response.js';

type Block =
  | { kind: 'text'; text: string }
  /** thinking (its text and signature arrive in deltas) or redacted_thinking (its data whole). */
  | { kind: 'thinking'; block: Record<string, unknown> }
  /** `startText`: the content_block_start payload, where an input JSON.parse could not keep exactly is read from. */
  | { kind: 'tool'; start: UnknownRecord; startText: string; json: string }
  | { kind: 'other' };

export async function readAnthropicStream(
  service: string,
  events: AsyncIterable<ServerSentEvent>,
  onTextDelta: ((text: string) => void) | undefined,
  requestId?: string,
): Promise<ModelResult> {
  let responseId: string | undefined;
  const blocks = new Map<number, Block>();
  const usage: Record<string, unknown> = {};
  let stopReason: string | undefined;
  let responseModel: string | undefined;
  let sawStop = false;

  for await (const event of events) {
    const payload = parseJson(event.data);
    if (!isRecord(payload)) throw anthropicMalformed(service, `a stream event that is not a JSON object: ${excerpt(event.data)}`);
    const index = readNumber(payload, 'index') ?? -1;
    switch (payload.type) {
      case 'message_start': {
        const message = readRecord(payload, 'message');
        responseModel = message === undefined ? undefined : readString(message, 'model');
        responseId = message === undefined ? undefined : readString(message, 'id');
        mergeUsage(usage, message === undefined ? undefined : readRecord(message, 'usage'));
        break;
      }
      case 'content_block_start': {
        const block = startBlock(readRecord(payload, 'content_block'), event.data);
        blocks.set(index, block);
        if (block.kind === 'text' && block.text !== '') onTextDelta?.(block.text);
        break;
      }
      case 'content_block_delta': {
        const text = applyDelta(blocks.get(index), readRecord(payload, 'delta'));
        if (text !== undefined && text !== '') onTextDelta?.(text);
        break;
      }
      case 'message_delta': {
        const delta = readRecord(payload, 'delta');
        stopReason = (delta === undefined ? undefined : readString(delta, 'stop_reason')) ?? stopReason;
        mergeUsage(usage, readRecord(payload, 'usage'));
        break;
      }
      case 'message_stop':
        sawStop = true;
        break;
      case 'error':
        throw mapAnthropicStreamError(service, event.data, requestId);
      // ping, content_block_stop, and event types added after this adapter was written.
    }
    if (sawStop) break;
  }
  if (!sawStop && stopReason === undefined) {
    throw anthropicMalformed(service, 'a stream that ended before message_stop (no stop_reason); the answer may be cut short');
  }
  const ordered = [...blocks.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
  const toolCalls: ToolCall[] = ordered.flatMap((block) => (block.kind === 'tool' ? [finishToolUse(service, block)] : []));
  return createModelResult({
    content: ordered.flatMap((block): Array<string | ReasoningBlock> => {
      if (block.kind === 'text') return [block.text];
      return block.kind === 'thinking' ? thinkingBlock(block.block) : [];
    }),
    toolCalls,
    finishReason: mapAnthropicStopReason(stopReason),
    usage: anthropicUsage(usage),
    responseModel,
    responseId,
  });
}

function startBlock(contentBlock: UnknownRecord | undefined, startText: string): Block {
  if (contentBlock?.type === 'text') return { kind: 'text', text: readString(contentBlock, 'text') ?? '' };
  if (contentBlock?.type === 'tool_use') return { kind: 'tool', start: contentBlock, startText, json: '' };
  if (contentBlock?.type === 'thinking' || contentBlock?.type === 'redacted_thinking')
    return { kind: 'thinking', block: { ...contentBlock } };
  return { kind: 'other' };
}

/** Adds a delta to its block; returns the text it added, for onTextDelta. */
function applyDelta(block: Block | undefined, delta: UnknownRecord | undefined): string | undefined {
  if (block === undefined || delta === undefined) return undefined;
  if (block.kind === 'text' && delta.type === 'text_delta') {
    const text = readString(delta, 'text') ?? '';
    block.text += text;
    return text;
  }
  if (block.kind === 'tool' && delta.type === 'input_json_delta') block.json += readString(delta, 'partial_json') ?? '';
  if (block.kind === 'thinking' && delta.type === 'thinking_delta')
    block.block.thinking = `${String(block.block.thinking ?? '')}${readString(delta, 'thinking') ?? ''}`;
  // The signature comes whole, in one delta at the end of the block.
  if (block.kind === 'thinking' && delta.type === 'signature_delta')
    block.block.signature = `${String(block.block.signature ?? '')}${readString(delta, 'signature') ?? ''}`;
  return undefined;
}

/** The input arrives as JSON text in pieces; with no pieces it is the start block's input ({} for no arguments). */
function finishToolUse(service: string, block: Extract<Block, { kind: 'tool' }>): ToolCall {
  const input =
    block.json.trim() === ''
      ? inputOf(block.start, () => jsonSourceAt(block.startText, ['content_block', 'input']))
      : argumentsFromText(block.json, 'object');
  return parseToolUse(service, block.start, input);
}

/**
 * message_delta repeats or updates the counts of message_start; the later number wins, and a
 * breakdown (output_tokens_details) is merged the same way.
 */
function mergeUsage(into: Record<string, unknown>, usage: UnknownRecord | undefined): void {
  for (const [key, value] of Object.entries(usage ?? {})) {
    if (typeof value === 'number') into[key] = value;
    else if (isRecord(value)) {
      const details: Record<string, unknown> = isRecord(into[key]) ? { ...(into[key] as UnknownRecord) } : {};
      mergeUsage(details, value);
      into[key] = details;
    }
  }
}
