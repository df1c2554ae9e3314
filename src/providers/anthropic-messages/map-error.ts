// Anthropic errors, from an HTTP rejection or an `error` event inside a stream.

import { classifyHttpError, readErrorDetails } from '../classify-http-error.js';
import type { ProviderError } from '../provider-error.js';

export function mapAnthropicHttpError(service: string, status: number, bodyText: string, headers: Headers): ProviderError {
  return classifyHttpError({ provider: 'anthropic', service, status, details: readErrorDetails(bodyText), headers });
}

/** The HTTP status Anthropic documents for each error type, to classify errors that arrive mid-stream. */
const STATUS_OF_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** A stream that started with 200 may still end in {"type": "error", "error": {type, message}}. */
export function mapAnthropicStreamError(service: string, payload: string, requestId?: string): ProviderError {
  const details = readErrorDetails(payload);
  const status = (details.type === undefined ? undefined : STATUS_OF_ERROR_TYPE[details.type]) ?? 500;
  return classifyHttpError({ provider: 'anthropic', service, status, details, inStream: true, requestId });
}
