// A complete upstream answer as the call's outcome: a 2xx body read by the protocol's parser
// (JSON, or the event stream), anything else classified as the provider adapters classify an
// HTTP error. What arrived is kept as it arrived, for the record; an answer that decodes to more
// than the proxy keeps (a gzip bomb) is recorded as too large, with none of it.

import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { RawAnswer } from '../log/event.js';
import { classifyHttpError, readErrorDetails } from '../providers/classify-http-error.js';
import { ProviderError } from '../providers/provider-error.js';
import { readServerSentEvents } from '../providers/sse.js';
import type { ProxyProtocol } from './protocols.js';
import type { CallOutcome } from './proxy-session.js';

export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** `maxBytes`: the most the answer may decode to; more is recorded as PROXY_ANSWER_TOO_LARGE. */
export async function outcomeOf(protocol: ProxyProtocol, answer: UpstreamAnswer, maxBytes: number): Promise<CallOutcome> {
  let text: string;
  const encoding = header(answer.headers, 'content-encoding');
  try {
    text = decoded(answer.body, encoding, maxBytes).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      return tooLarge(`its ${encoding} body of ${answer.body.length} bytes decodes to more than ${maxBytes} bytes`, answer.status);
    return failure(
      'PROXY_UNDECODABLE_ANSWER',
      `the answer's ${header(answer.headers, 'content-encoding')} body could not be decoded: ${String(error)}`,
      answer.status,
      {
        format: 'base64',
        text: answer.body.toString('base64'),
      },
    );
  }
  const streamed = (header(answer.headers, 'content-type') ?? '').includes('text/event-stream');
  const raw: RawAnswer = { format: streamed ? 'sse' : 'json', text };
  if (answer.status < 200 || answer.status > 299) {
    const error = classifyHttpError({
      provider: protocol.upstream,
      service: 'upstream',
      status: answer.status,
      details: readErrorDetails(text),
      headers: new Headers(flat(answer.headers)),
    });
    return { ...providerFailure(error), status: answer.status, raw };
  }
  try {
    const result = streamed
      ? await protocol.readStream(readServerSentEvents(once(Buffer.from(text, 'utf8'))))
      : protocol.readAnswer(JSON.parse(text), text);
    return { kind: 'answer', status: answer.status, result, raw };
  } catch (error) {
    if (error instanceof ProviderError) return { ...providerFailure(error), status: answer.status, raw };
    if (error instanceof SyntaxError)
      return failure('PROXY_MALFORMED_ANSWER', `the answer is not JSON: ${error.message}`, answer.status, raw);
    throw error;
  }
}

export function providerFailure(error: ProviderError): Extract<CallOutcome, { kind: 'failure' }> {
  return { kind: 'failure', code: error.code, message: error.message, retryable: error.retryable, contextOverflow: error.contextOverflow };
}

export function failure(
  code: string,
  message: string,
  status: number | undefined,
  raw?: Extract<CallOutcome, { kind: 'failure' }>['raw'],
  retryable = false,
): CallOutcome {
  return {
    kind: 'failure',
    code,
    message,
    retryable,
    contextOverflow: false,
    ...(status === undefined ? {} : { status }),
    ...(raw === undefined ? {} : { raw }),
  };
}

/** The answer was larger than the proxy keeps: the client had all of it, the record keeps none. */
export function tooLarge(what: string, status: number): CallOutcome {
  return failure(
    'PROXY_ANSWER_TOO_LARGE',
    `the answer is larger than the proxy keeps (--max-answer-bytes): ${what}; the client received it as the upstream sent it, and the record keeps none of it`,
    status,
  );
}

function decoded(body: Buffer, encoding: string | undefined, maxOutputLength: number): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return body;
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(body, { maxOutputLength });
    case 'deflate':
      return inflateSync(body, { maxOutputLength });
    case 'br':
      return brotliDecompressSync(body, { maxOutputLength });
    default:
      throw new Error(`unknown content-encoding ${JSON.stringify(encoding)}`);
  }
}

function header(headers: UpstreamAnswer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function flat(headers: UpstreamAnswer['headers']): Array<[string, string]> {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined
      ? []
      : Array.isArray(value)
        ? value.map((one): [string, string] => [name, one])
        : [[name, value] as [string, string]],
  );
}

async function* once(chunk: Uint8Array): AsyncGenerator<Uint8Array> {
  yield chunk;
}
