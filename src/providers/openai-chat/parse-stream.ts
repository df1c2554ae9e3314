// Reads an OpenAI chat-completions SSE stream: text deltas, tool-call deltas accumulated by
// index, the finish reason, and usage from the final chunk (stream_options.include_usage).

import type { ToolCall } from '../../log/event.js';
import { excerpt } from '../classify-http-error.js';
import type { ModelResult, ModelUsage } from '../language-model.js';
import { createModelResult } from '../model-result.js';
import { isRecord, parseJson, readArray, readNumber, readRecord, readString } from '../response-fields.js';
import type { ServerSentEvent } from '../sse.js';
import { argumentsFromText } from '../tool-arguments.js';
import { mapOpenAIChatStreamError } from './map-error.js';
import { mapOpenAIChatFinishReason } from './map-finish-reason.js';
import { openAIMalformed, readOpenAIUsage, reasoningBlock, reasoningTextOf } from './parse-response.js';

interface PartialToolCall {
  id: string | undefined;
  name: string | undefined;
  arguments: string;
}

export async function readOpenAIChatStream(
  service: string,
  events: AsyncIterable<ServerSentEvent>,
  onTextDelta: ((text: string) => void) | undefined,
  requestId?: string,
  reasoningProvider = 'openai',
): Promise<ModelResult> {
  let text = '';
  let reasoning = '';
  // A refusal streams in delta.refusal; it is the answer's text, as in a JSON response.
  let refusal = '';
  let responseId: string | undefined;
  const partialCalls = new Map<number, PartialToolCall>();
  let finishReason: string | undefined;
  let usage: ModelUsage | undefined;
  let responseModel: string | undefined;
  let sawDone = false;

  for await (const event of events) {
    if (event.data === '[DONE]') {
      sawDone = true;
      break;
    }
    const chunk = parseJson(event.data);
    if (!isRecord(chunk)) throw openAIMalformed(service, `a stream event that is not a JSON object: ${excerpt(event.data)}`);
    if (chunk.error !== undefined && chunk.error !== null) throw mapOpenAIChatStreamError(service, chunk.error, requestId);
    responseModel ??= readString(chunk, 'model');
    responseId ??= readString(chunk, 'id');
    usage = readOpenAIUsage(chunk) ?? usage;
    const choice = readArray(chunk, 'choices')?.[0];
    if (!isRecord(choice)) continue;
    finishReason = readString(choice, 'finish_reason') ?? finishReason;
    const delta = readRecord(choice, 'delta');
    if (delta === undefined) continue;
    reasoning += reasoningTextOf(delta) ?? '';
    const content = readString(delta, 'content');
    if (content !== undefined && content !== '') {
      text += content;
      onTextDelta?.(content);
    }
    const refused = readString(delta, 'refusal');
    if (refused !== undefined && refused !== '') {
      refusal += refused;
      onTextDelta?.(refused);
    }
    for (const toolDelta of readArray(delta, 'tool_calls') ?? []) {
      if (isRecord(toolDelta)) addToolDelta(partialCalls, toolDelta);
    }
  }
  // A server may close without [DONE], but not before it said why the answer ended.
  if (!sawDone && finishReason === undefined) {
    throw openAIMalformed(service, 'a stream that ended before its last chunk (no finish_reason, no [DONE]); the answer may be cut short');
  }
  const toolCalls = [...partialCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => finishToolCall(service, call));
  const reasoned = reasoningBlock(reasoning, reasoningProvider);
  return createModelResult({
    content: [...(reasoned === undefined ? [] : [reasoned]), text, refusal],
    toolCalls,
    finishReason: refusal === '' ? mapOpenAIChatFinishReason(finishReason) : 'content-filter',
    usage,
    responseModel,
    responseId,
  });
}

function addToolDelta(partialCalls: Map<number, PartialToolCall>, toolDelta: Readonly<Record<string, unknown>>): void {
  const id = readString(toolDelta, 'id');
  // The index says which call a piece belongs to; without one, a piece with an id starts a new call.
  const index = readNumber(toolDelta, 'index') ?? (id === undefined ? Math.max(0, partialCalls.size - 1) : partialCalls.size);
  const functionPart = readRecord(toolDelta, 'function');
  const call = partialCalls.get(index) ?? { id: undefined, name: undefined, arguments: '' };
  call.id ??= id;
  // The name arrives whole in the first piece; the arguments arrive in pieces.
  call.name ??= functionPart === undefined ? undefined : readString(functionPart, 'name');
  call.arguments += (functionPart === undefined ? undefined : readString(functionPart, 'arguments')) ?? '';
  partialCalls.set(index, call);
}

function finishToolCall(service: string, call: PartialToolCall): ToolCall {
  if (call.id === undefined || call.name === undefined) {
    throw openAIMalformed(service, `a streamed tool call without an id or a function name (arguments ${excerpt(call.arguments)})`);
  }
  return { callId: call.id, name: call.name, ...argumentsFromText(call.arguments, 'text') };
}
