// The three APIs the proxy records, each by its path: how to read a request, how to read an
// answer (the provider adapters' own parsers, JSON or event stream), and how an error the proxy
// itself must give (the upstream down, a timeout) is shaped in that API's own words, so that
// the client's SDK reads it as it reads the provider's.

import { parseAnthropicResponse } from '../providers/anthropic-messages/parse-response.js';
import { readAnthropicStream } from '../providers/anthropic-messages/parse-stream.js';
import type { ModelResult } from '../providers/language-model.js';
import { parseOpenAIChatResponse } from '../providers/openai-chat/parse-response.js';
import { readOpenAIChatStream } from '../providers/openai-chat/parse-stream.js';
import { parseOpenAIResponsesResponse } from '../providers/openai-responses/parse-response.js';
import { readOpenAIResponsesStream } from '../providers/openai-responses/parse-stream.js';
import type { ServerSentEvent } from '../providers/sse.js';
import { readAnthropicRequest } from './anthropic-request.js';
import { readOpenAIChatRequest } from './openai-chat-request.js';
import { readOpenAIResponsesRequest } from './openai-responses-request.js';
import type { ProxyRequest } from './proxy-message.js';

export type UpstreamName = 'openai' | 'anthropic';

export interface ProxyProtocol {
  readonly name: 'openai-chat' | 'openai-responses' | 'anthropic-messages';
  readonly path: string;
  /** The upstream it goes to, and the provider its model/request names. */
  readonly upstream: UpstreamName;
  readRequest(body: unknown): ProxyRequest;
  readAnswer(body: unknown, text: string): ModelResult;
  readStream(events: AsyncIterable<ServerSentEvent>): Promise<ModelResult>;
  /** A JSON error body in the API's own shape; `code` is the proxy's own (a refusal's), where the API has a place for one. */
  errorBody(status: number, message: string, code?: string): string;
}

const SERVICE = 'upstream (through shadowlog proxy)';

function openAIError(status: number, message: string, code?: string): string {
  const type = status === 504 ? 'timeout' : status < 500 ? 'invalid_request_error' : 'proxy_error';
  return JSON.stringify({
    error: { message, type, param: null, code: code ?? (status === 504 ? 'upstream_timeout' : 'upstream_unavailable') },
  });
}

// Anthropic's error types by status (it has no field for a code of ours: the message names it).
const ANTHROPIC_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  413: 'request_too_large',
  421: 'invalid_request_error',
  504: 'timeout_error',
};

export const PROTOCOLS: readonly ProxyProtocol[] = [
  {
    name: 'openai-chat',
    path: '/v1/chat/completions',
    upstream: 'openai',
    readRequest: readOpenAIChatRequest,
    readAnswer: (body, text) => parseOpenAIChatResponse(SERVICE, body, text),
    readStream: (events) => readOpenAIChatStream(SERVICE, events, undefined),
    errorBody: openAIError,
  },
  {
    name: 'openai-responses',
    path: '/v1/responses',
    upstream: 'openai',
    readRequest: readOpenAIResponsesRequest,
    readAnswer: (body) => parseOpenAIResponsesResponse(SERVICE, body),
    readStream: (events) => readOpenAIResponsesStream(SERVICE, events, undefined),
    errorBody: openAIError,
  },
  {
    name: 'anthropic-messages',
    path: '/v1/messages',
    upstream: 'anthropic',
    readRequest: readAnthropicRequest,
    readAnswer: (body, text) => parseAnthropicResponse(SERVICE, body, text),
    readStream: (events) => readAnthropicStream(SERVICE, events, undefined),
    // Anthropic's envelope: a 504 a timeout, a refusal its 4xx type, anything else an api_error.
    errorBody: (status, message) => JSON.stringify({ type: 'error', error: { type: ANTHROPIC_TYPES[status] ?? 'api_error', message } }),
  },
];

/**
 * The API whose error shape an answer the proxy gives itself takes (a refusal, a failure): the
 * protocol of the path, query string aside, with letters folded to lower case and a trailing
 * slash dropped. Only for shaping errors: what is recorded is decided by request-target.ts.
 */
export function errorShapeOf(url: string): ProxyProtocol | undefined {
  const path = (url.split(/[?#]/)[0] ?? '').toLowerCase().replace(/(.)\/+$/, '$1');
  return PROTOCOLS.find((protocol) => protocol.path === path);
}
