// Turning a rejected HTTP request into a ProviderError of the right kind, with a message that
// says what happened, quotes the provider, and says what to do. Both adapters share this;
// each only knows how to pull the message out of its own error envelope.

import { isContextOverflow } from './context-overflow.js';
import { ProviderError, type ProviderErrorKind } from './provider-error.js';
import { isRecord, parseJson, readString } from './response-fields.js';
import { requestIdOf, retryAfterMsOf, shouldRetryHeader } from './retry-after.js';

/** What an error body says, whatever envelope it came in. */
export interface ErrorDetails {
  readonly message: string | undefined;
  readonly code: string | undefined;
  readonly type: string | undefined;
}

const MAX_QUOTED_BODY = 500;

/**
 * Reads OpenAI's {"error": {message, type, param, code}}, Anthropic's {"type": "error",
 * "error": {type, message}}, the {"error": "text"} of Ollama, the {"message"} of some
 * gateways, and falls back to the raw text (an HTML page from a proxy, say).
 */
export function readErrorDetails(bodyText: string): ErrorDetails {
  const body = parseJson(bodyText);
  const trimmed = bodyText.trim();
  const raw = trimmed === '' ? undefined : trimmed.slice(0, MAX_QUOTED_BODY);
  if (!isRecord(body)) return { message: raw, code: undefined, type: undefined };
  const error = body.error;
  if (typeof error === 'string') return { message: error, code: undefined, type: undefined };
  const envelope = isRecord(error) ? error : body;
  const code = envelope.code;
  return {
    message: readString(envelope, 'message') ?? raw,
    code: typeof code === 'string' ? code : typeof code === 'number' ? String(code) : undefined,
    type: readString(envelope, 'type') === 'error' ? undefined : readString(envelope, 'type'),
  };
}

export interface HttpErrorContext {
  /** ProviderError.provider: 'openai', 'anthropic'. */
  readonly provider: string;
  /** How messages name the service: 'OpenAI-compatible server at http://…'. */
  readonly service: string;
  readonly status: number;
  readonly details: ErrorDetails;
  /** The response headers (retry-after, retry-after-ms, x-should-retry, the request id); none for an error inside a stream. */
  readonly headers?: Headers;
  /** The request id of the response the error arrived in, when `headers` are not given (a stream's). */
  readonly requestId?: string | undefined;
  /**
   * True for an error event inside a stream that began with 200: `status` is then the one the
   * provider documents for the error's type, used to classify it, not a status that was sent.
   */
  readonly inStream?: boolean;
}

export function classifyHttpError(context: HttpErrorContext): ProviderError {
  const { status, details } = context;
  const kind = kindOf(status, details);
  const inStream = context.inStream === true;
  const label = [inStream ? 'error event in the stream' : `HTTP ${status}`, details.type, details.code]
    .filter((part) => part !== undefined)
    .join(', ');
  const quoted = details.message ?? 'no error message in the response body';
  const headers = context.headers;
  const retryAfter = headers?.get('retry-after') ?? null;
  const requestId = headers === undefined ? context.requestId : requestIdOf(headers);
  const message = `${context.service}: ${SUMMARY[kind]} (${label}): ${quoted}; ${advice(kind, retryAfter)}`;
  return new ProviderError(kind, context.provider, message, {
    ...(inStream ? {} : { status }),
    ...(headers === undefined ? {} : { retryAfterMs: retryAfterMsOf(headers), retryable: shouldRetryHeader(headers) }),
    requestId,
  });
}

function kindOf(status: number, details: ErrorDetails): ProviderErrorKind {
  if (status === 401 || status === 403) return 'authentication';
  if (status === 429) return 'rate-limit';
  if (status === 408) return 'timeout';
  if (isContextOverflow(status, details.message, details.code, details.type)) return 'context-overflow';
  // A conflict (a lock that timed out at the provider) passes on a retry, as the SDKs assume.
  if (status === 409) return 'server';
  if (status >= 500 && status <= 599) return 'server';
  if (status >= 400 && status <= 499) return 'invalid-request';
  return 'malformed-response';
}

const SUMMARY: Record<ProviderErrorKind, string> = {
  'context-overflow': 'the request does not fit the model context window',
  'rate-limit': 'rate limit reached',
  authentication: 'the API key was refused',
  server: 'the provider failed to answer',
  'invalid-request': 'the request was rejected',
  network: 'network failure',
  timeout: 'the server timed out waiting for the request',
  aborted: 'aborted',
  'malformed-response': 'unexpected HTTP status',
  'missing-api-key': 'no API key',
};

/** Retry-After is a number of seconds or an HTTP date. */
function waitFor(retryAfter: string): string {
  const value = retryAfter.trim();
  return /^\d+$/.test(value) ? `wait ${value} s (Retry-After)` : `wait until ${value} (Retry-After)`;
}

function advice(kind: ProviderErrorKind, retryAfter: string | null | undefined): string {
  switch (kind) {
    case 'context-overflow':
      return 'compact the session or send fewer tokens, then retry';
    case 'rate-limit':
      return `${retryAfter ? waitFor(retryAfter) : 'wait'} and retry, or lower the request rate`;
    case 'authentication':
      return 'check the API key and that it may use this model';
    case 'server':
      return 'the provider may be overloaded; wait and retry';
    case 'timeout':
      return 'retry';
    case 'invalid-request':
      return 'check the model id, the base URL and the request parameters';
    default:
      return 'check that the base URL points at the right kind of server';
  }
}

/** A 2xx answer that is not what the API promises: usually a base URL that points elsewhere. */
export function malformedResponseError(provider: string, service: string, found: string, api: string): ProviderError {
  return new ProviderError(
    'malformed-response',
    provider,
    `${service}: expected ${article(api)} ${api} response, found ${found}; check that the base URL points at ${article(api)} ${api} endpoint`,
  );
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}

/** A short, quoted excerpt of what a server sent, for error messages. */
export function excerpt(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
