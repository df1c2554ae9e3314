// POST a native compaction request: exactly canonicalJson(body), a rejection classified as the
// adapter's errors are, and a successful JSON body handed to the adapter's parser.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject } from '../log/event.js';
import { excerpt, malformedResponseError } from './classify-http-error.js';
import { post, type Timeouts } from './http.js';
import type { NativeCompactionResult } from './native-compaction.js';
import type { ProviderError } from './provider-error.js';
import { parseJson } from './response-fields.js';
import { requestIdOf } from './retry-after.js';

export interface CompactionExchange {
  readonly provider: string;
  readonly service: string;
  readonly api: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: JsonObject;
  readonly wireText?: string | undefined;
  readonly timeouts: Timeouts;
  readonly signal: AbortSignal | undefined;
  readonly rejection: (status: number, bodyText: string, headers: Headers) => ProviderError;
  readonly parse: (body: unknown) => Omit<NativeCompactionResult, 'requestId'>;
}

export async function sendCompactionRequest(exchange: CompactionExchange): Promise<NativeCompactionResult> {
  const response = await post({
    provider: exchange.provider,
    url: exchange.url,
    headers: exchange.headers,
    body: exchange.wireText ?? canonicalJson(exchange.body),
    timeouts: exchange.timeouts,
    signal: exchange.signal,
  });
  const requestId = requestIdOf(response.headers);
  try {
    if (response.status < 200 || response.status > 299) {
      throw exchange.rejection(response.status, await response.text(), response.headers);
    }
    const text = await response.text();
    const body = parseJson(text);
    if (body === undefined) {
      throw malformedResponseError(exchange.provider, exchange.service, `a body that is not JSON: ${excerpt(text)}`, exchange.api);
    }
    const result = exchange.parse(body);
    return requestId === undefined ? result : { ...result, requestId };
  } finally {
    response.close();
  }
}
