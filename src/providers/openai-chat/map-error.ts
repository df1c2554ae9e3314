// OpenAI-compatible errors, from an HTTP rejection or an error object inside a stream.

import { classifyHttpError, readErrorDetails } from '../classify-http-error.js';
import { isContextOverflow } from '../context-overflow.js';
import type { ProviderError } from '../provider-error.js';

export function mapOpenAIChatHttpError(service: string, status: number, bodyText: string, retryAfter: string | null): ProviderError {
  return classifyHttpError({ provider: 'openai', service, status, details: readErrorDetails(bodyText), retryAfter });
}

/**
 * A stream that started with 200 may still carry {"error": {...}}; its status is inferred
 * from the error's type and code, so that it is classified like the same HTTP rejection.
 */
export function mapOpenAIChatStreamError(service: string, error: unknown): ProviderError {
  const details = readErrorDetails(JSON.stringify({ error }));
  const marker = `${details.type ?? ''} ${details.code ?? ''}`;
  let status = 500;
  if (/rate_limit|insufficient_quota/.test(marker)) status = 429;
  else if (/authentication|invalid_api_key|permission/.test(marker)) status = 401;
  else if (isContextOverflow(400, details.message, details.code) || /invalid_request/.test(marker)) status = 400;
  return classifyHttpError({ provider: 'openai', service, status, details, inStream: true });
}
