// Reads a Responses API stream: output_text deltas as they come (for onTextDelta), each output
// item whole from its output_item.done event, and the response's status and usage from the
// final event (response.completed, response.incomplete, response.failed); an `error` event
// becomes a ProviderError. A stream that ends before its final event was cut short.

import { excerpt } from '../classify-http-error.js';
import type { ModelResult } from '../language-model.js';
import { isRecord, parseJson, readNumber, readRecord, readString, type UnknownRecord } from '../response-fields.js';
import type { ServerSentEvent } from '../sse.js';
import { mapOpenAIResponsesStreamError } from './map-error.js';
import { responsesMalformed, resultOfResponse } from './parse-response.js';

const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export async function readOpenAIResponsesStream(
  service: string,
  events: AsyncIterable<ServerSentEvent>,
  onTextDelta: ((text: string) => void) | undefined,
  requestId?: string,
): Promise<ModelResult> {
  const items = new Map<number, unknown>();
  for await (const event of events) {
    const payload = parseJson(event.data);
    if (!isRecord(payload)) throw responsesMalformed(service, `a stream event that is not a JSON object: ${excerpt(event.data)}`);
    const type = readString(payload, 'type');
    if (type === 'error') throw mapOpenAIResponsesStreamError(service, readRecord(payload, 'error') ?? payload, requestId);
    if (type === 'response.output_text.delta' || type === 'response.refusal.delta') {
      const delta = readString(payload, 'delta');
      if (delta !== undefined && delta !== '') onTextDelta?.(delta);
    } else if (type === 'response.output_item.done') {
      const item = readRecord(payload, 'item');
      if (item !== undefined) items.set(readNumber(payload, 'output_index') ?? items.size, item);
    } else if (type !== undefined && FINAL_EVENTS.has(type)) {
      const response = readRecord(payload, 'response');
      if (response === undefined) throw responsesMalformed(service, `a ${type} event without its response: ${excerpt(event.data)}`);
      return resultOf(service, response, items, requestId);
    }
    // Created, in-progress, part and argument deltas, and event types added after this adapter was written.
  }
  throw responsesMalformed(service, 'a stream that ended before response.completed; the answer may be cut short');
}

/** The items as they streamed, in output order; the final event's own list when none streamed. */
function resultOf(
  service: string,
  response: UnknownRecord,
  items: ReadonlyMap<number, unknown>,
  requestId: string | undefined,
): ModelResult {
  const streamed = [...items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
  return resultOfResponse(service, response, requestId, streamed.length > 0 ? streamed : undefined);
}
