// OpenAI-compatible errors, from an HTTP rejection or an error object inside a stream.

import { classifyHttpError, readErrorDetails } from '../classify-http-error.js';
import { isContextOverflow } from '../context-overflow.js';
import type { ProviderError } from '../provider-error.js';

export function mapOpenAIChatHttpError(service: string, status: number, bodyText: string, headers: Headers): ProviderError {
  return classifyHttpError({ provider: 'openai', service, status, details: readErrorDetails(bodyText), headers });
}

/**
 * A stream that started with 200 may still carry {"error": {...}}; its status is inferred
 * from the error's type and code, so that it is classified like the same HTTP rejection.
 * vLLM puts the status itself in `code` ({"type": "BadRequestError", "code": 400}).
 */
export function mapOpenAIChatStreamError(service: string, error: unknown, requestId?: string, provider = 'openai'): ProviderError {
  const details = readErrorDetails(JSON.stringify({ error }));
  return classifyHttpError({ provider, service, status: streamErrorStatus(details), details, inStream: true, requestId });
}

/** The HTTP status an error inside an OpenAI-style stream stands for. */
export function streamErrorStatus(details: ReturnType<typeof readErrorDetails>): number {
  const numeric = Number(details.code);
  if (/^[45]\d\d$/.test(details.code ?? '') && Number.isSafeInteger(numeric)) return numeric;
  const marker = `${details.type ?? ''} ${details.code ?? ''}`;
  if (/rate_limit|insufficient_quota|RateLimitError/.test(marker)) return 429;
  if (/authentication|invalid_api_key|permission|AuthenticationError/.test(marker)) return 401;
  if (isContextOverflow(400, details.message, details.code, details.type)) return 400;
  if (/invalid_request|BadRequestError|invalid_prompt/.test(marker)) return 400;
  return 500;
}
