// The part of `send` both adapters share: POST exactly canonicalJson(body), classify a
// rejection, and hand a successful body to the adapter's JSON or stream parser.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject, RawAnswer } from '../log/event.js';
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
  readonly onRawAnswer?: ((raw: RawAnswer) => void) | undefined;
  readonly rejection: (status: number, bodyText: string, retryAfter: string | null) => ProviderError;
  /** `text` is the body as it arrived. */
  readonly parseJson: (body: unknown, text: string) => ModelResult;
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
    const { onRawAnswer } = exchange;
    if (exchange.body.stream === true) {
      const events = readServerSentEvents(response.chunks());
      if (onRawAnswer === undefined) return await exchange.parseStream(events);
      const seen: string[] = [];
      const result = await exchange.parseStream(keepingText(events, seen));
      onRawAnswer({ format: 'sse', text: seen.join('') });
      return result;
    }
    const text = await response.text();
    const body = parseJson(text);
    if (body === undefined) {
      throw malformedResponseError(exchange.provider, exchange.service, `a body that is not JSON: ${excerpt(text)}`, exchange.api);
    }
    const result = exchange.parseJson(body, text);
    onRawAnswer?.({ format: 'json', text });
    return result;
  } finally {
    response.close();
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
