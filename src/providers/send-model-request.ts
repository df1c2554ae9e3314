// The part of `send` both adapters share: POST exactly canonicalJson(body), classify a
// rejection, and hand a successful body to the adapter's JSON or stream parser.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject } from '../log/event.js';
import { excerpt, malformedResponseError } from './classify-http-error.js';
import { post, type Timeouts } from './http.js';
import type { ModelResult } from './language-model.js';
import type { ProviderError } from './provider-error.js';
import { parseJson } from './response-fields.js';
import { readServerSentEvents, type ServerSentEvent } from './sse.js';

export interface ModelRequestExchange {
  readonly provider: string;
  readonly service: string;
  /** The API named in malformed-response messages: 'OpenAI chat completions'. */
  readonly api: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JsonObject;
  /** canonicalJson(body), if already written. */
  readonly wireText?: string | undefined;
  readonly timeouts: Timeouts;
  readonly signal: AbortSignal | undefined;
  readonly rejection: (status: number, bodyText: string, retryAfter: string | null) => ProviderError;
  readonly parseJson: (body: unknown) => ModelResult;
  readonly parseStream: (events: AsyncIterable<ServerSentEvent>) => Promise<ModelResult>;
}

export async function sendModelRequest(exchange: ModelRequestExchange): Promise<ModelResult> {
  const response = await post({
    provider: exchange.provider,
    url: exchange.url,
    headers: exchange.headers,
    body: exchange.wireText ?? canonicalJson(exchange.body),
    timeouts: exchange.timeouts,
    signal: exchange.signal,
  });
  try {
    if (response.status < 200 || response.status > 299) {
      throw exchange.rejection(response.status, await response.text(), response.headers.get('retry-after'));
    }
    if (exchange.body.stream === true) return await exchange.parseStream(readServerSentEvents(response.chunks()));
    const text = await response.text();
    const body = parseJson(text);
    if (body === undefined) {
      throw malformedResponseError(exchange.provider, exchange.service, `a body that is not JSON: ${excerpt(text)}`, exchange.api);
    }
    return exchange.parseJson(body);
  } finally {
    response.close();
  }
}
