// OpenAI's compaction (POST /v1/responses/compact): the shadowed messages sent as input items;
// the answer (object "response.compaction") is the compacted window: the user messages it keeps,
// then one compaction item whose encrypted_content is opaque. Both are what replaces the range,
// kept as they came and sent back, in that order, as input of later requests.

import type { CompactionBlock, JsonObject } from '../../log/event.js';
import { excerpt } from '../classify-http-error.js';
import type { RenderedRequest } from '../language-model.js';
import { NativeCompactionError, type NativeCompactionRequest, type NativeCompactionResult } from '../native-compaction.js';
import { UnknownRendererVersionError } from '../renderer-version.js';
import { isRecord, readArray, readString, type UnknownRecord } from '../response-fields.js';
import {
  convertToOpenAIResponsesBody,
  OPENAI_RESPONSES_COMPACTION_PROVIDER,
  type OpenAIResponsesRenderSettings,
} from './convert-messages.js';
import { readResponsesUsage, responsesMalformed } from './parse-response.js';
import type { ResponsesCompactBody } from './wire-types.js';

const VERSION_PREFIX = 'openai-responses-compact/1 ';

export function openAIResponsesCompactionVersion(messagesVersion: string): string {
  return `${VERSION_PREFIX}${messagesVersion}`;
}

export function renderOpenAIResponsesCompaction(
  modelId: string,
  request: NativeCompactionRequest,
  version: string,
  settingsOf: (messagesVersion: string) => OpenAIResponsesRenderSettings | undefined,
): RenderedRequest {
  const settings = version.startsWith(VERSION_PREFIX) ? settingsOf(version.slice(VERSION_PREFIX.length)) : undefined;
  if (settings === undefined) {
    throw new UnknownRendererVersionError('openai-responses-compact', version, `${VERSION_PREFIX}openai-responses/1[;reasoning]`);
  }
  // The endpoint takes the window and nothing that shapes an answer: no tools, no store, no stream.
  const { input } = convertToOpenAIResponsesBody(modelId, { messages: request.messages, params: { tools: [], stream: false } }, settings);
  const body: ResponsesCompactBody = { model: modelId, input };
  return { body };
}

export function parseOpenAIResponsesCompaction(service: string, body: unknown): Omit<NativeCompactionResult, 'requestId'> {
  if (!isRecord(body)) throw responsesMalformed(service, `a JSON value that is not an object: ${excerpt(JSON.stringify(body) ?? '')}`);
  if (body.object !== 'response.compaction') {
    throw responsesMalformed(service, `an object that is not a response.compaction: ${excerpt(JSON.stringify(body))}`);
  }
  const output = readArray(body, 'output');
  if (output === undefined) throw responsesMalformed(service, `no output array in ${excerpt(JSON.stringify(body))}`);
  const items = output.filter(isRecord);
  const last = items.at(-1);
  const compactions = items.filter((item) => item.type === 'compaction');
  if (last === undefined || last.type !== 'compaction' || compactions.length !== 1) {
    throw new NativeCompactionError(
      OPENAI_RESPONSES_COMPACTION_PROVIDER,
      `${service} returned a compacted window that does not end in exactly one compaction item (${compactions.length} compaction items among ${items.length}): nothing was replaced`,
    );
  }
  const data = readString(last, 'encrypted_content');
  if (data === undefined || data === '')
    throw responsesMalformed(service, `a compaction item without encrypted_content: ${excerpt(JSON.stringify(last))}`);
  const kept = items.slice(0, -1);
  for (const item of kept) checkKeptItem(service, item);
  const block: CompactionBlock = { type: 'compaction', provider: OPENAI_RESPONSES_COMPACTION_PROVIDER, data };
  const id = readString(last, 'id');
  if (id !== undefined) block.id = id;
  if (kept.length > 0) block.items = kept as JsonObject[];
  const usage = readResponsesUsage(body);
  const responseId = readString(body, 'id');
  return { block, ...(usage === undefined ? {} : { usage }), ...(responseId === undefined ? {} : { responseId }) };
}

/** The window keeps user messages (text and images); anything else could not be sent back as it came. */
function checkKeptItem(service: string, item: UnknownRecord): void {
  const message = (item.type ?? 'message') === 'message' && (item.role === 'user' || item.role === 'system' || item.role === 'developer');
  const parts = Array.isArray(item.content) ? item.content : typeof item.content === 'string' ? [item.content] : undefined;
  const readable = parts?.every(
    (part) => typeof part === 'string' || (isRecord(part) && (typeof part.text === 'string' || part.type === 'input_image')),
  );
  if (!message || !readable) {
    throw new NativeCompactionError(
      OPENAI_RESPONSES_COMPACTION_PROVIDER,
      `${service} kept an item in the compacted window that shadowlog cannot send back as it came (${excerpt(JSON.stringify(item))}); nothing was replaced`,
    );
  }
}
