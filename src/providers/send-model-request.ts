// The part of `send` both adapters share: POST exactly canonicalJson(body), classify a
// rejection, and hand a successful body to the adapter's JSON or stream parser.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject, RawAnswer } from '../log/event.js';
import { excerpt, malformedResponseError } from './classify-http-error.js';
import { post, type Timeouts } from './http.js';
import type { ModelResult } from './language-model.js';
import type { ProviderError } from './provider-error.js';
import { parseJson } from './response-fields.js';
import { requestIdOf } from './retry-after.js';
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
  readonly onRawAnswer?: ((raw: RawAnswer) => void) | undefined;
  readonly rejection: (status: number, bodyText: string, headers: Headers) => ProviderError;
  /** `text` is the body as it arrived; `requestId`, the provider's id for the request (for errors). */
  readonly parseJson: (body: unknown, text: string, requestId: string | undefined) => ModelResult;
  readonly parseStream: (events: AsyncIterable<ServerSentEvent>, requestId: string | undefined) => Promise<ModelResult>;
}

/** The result with the provider's request id, from the response headers, when it sent one. */
function withRequestId(result: ModelResult, requestId: string | undefined): ModelResult {
  return requestId === undefined ? result : { ...result, requestId };
}

export async function sendModelRequest(exchange: ModelRequestExchange): Promise<ModelResult> {
  const response = await post({
    provider: exchange.provider,
    url: exchange.url,
    headers: exchange.headers,
    body: exchange.wireText ?? canonicalJson(exchange.body),
    timeouts: exchange.timeouts,
    signal: exchange.signal,
    // A stream makes progress by its events: keep-alive comments alone are a stall.
    idleResetBy: exchange.body.stream === true ? 'caller' : 'bytes',
  });
  const requestId = requestIdOf(response.headers);
  try {
    if (response.status < 200 || response.status > 299) {
      throw exchange.rejection(response.status, await response.text(), response.headers);
    }
    const { onRawAnswer } = exchange;
    if (exchange.body.stream === true) {
      const events = progressing(readServerSentEvents(response.chunks()), () => response.progress());
      if (onRawAnswer === undefined) return withRequestId(await exchange.parseStream(events, requestId), requestId);
      const seen: string[] = [];
      const result = await exchange.parseStream(keepingText(events, seen), requestId);
      onRawAnswer({ format: 'sse', text: seen.join('') });
      return withRequestId(result, requestId);
    }
    const text = await response.text();
    const body = parseJson(text);
    if (body === undefined) {
      throw malformedResponseError(exchange.provider, exchange.service, `a body that is not JSON: ${excerpt(text)}`, exchange.api);
    }
    const result = exchange.parseJson(body, text, requestId);
    onRawAnswer?.({ format: 'json', text });
    return withRequestId(result, requestId);
  } finally {
    response.close();
  }
}

/** Passes the events through, telling the exchange of each, so that the idle timeout restarts. */
async function* progressing(events: AsyncIterable<ServerSentEvent>, onEvent: () => void): AsyncGenerator<ServerSentEvent> {
  for await (const event of events) {
    onEvent();
    yield event;
  }
}

/**
 * Passes the events through, writing each into `into` as event-stream text, so that an answer
 * the log cannot hold as a message can still be recorded as it arrived.
 */
async function* keepingText(events: AsyncIterable<ServerSentEvent>, into: string[]): AsyncGenerator<ServerSentEvent> {
  for await (const event of events) {
    const name = event.event === undefined ? '' : `event: ${event.event}\n`;
    into.push(
      `${name}${event.data
        .split('\n')
        .map((line) => `data: ${line}\n`)
        .join('')}\n`,
    );
    yield event;
  }
}
