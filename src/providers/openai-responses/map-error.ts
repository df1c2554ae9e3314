// Responses API errors: an HTTP rejection (OpenAI's envelope), an `error` event inside a
// stream, or a response whose status is `failed` with its `error` object.

import { classifyHttpError, readErrorDetails } from '../classify-http-error.js';
import { streamErrorStatus } from '../openai-chat/map-error.js';
import type { ProviderError } from '../provider-error.js';

export const OPENAI_RESPONSES_PROVIDER = 'openai-responses';

export function mapOpenAIResponsesHttpError(service: string, status: number, bodyText: string, headers: Headers): ProviderError {
  return classifyHttpError({ provider: OPENAI_RESPONSES_PROVIDER, service, status, details: readErrorDetails(bodyText), headers });
}

/** `error`: the object of an `error` event or of a failed response ({code, message, type?}). */
export function mapOpenAIResponsesStreamError(service: string, error: unknown, requestId: string | undefined): ProviderError {
  const details = readErrorDetails(JSON.stringify({ error }));
  return classifyHttpError({
    provider: OPENAI_RESPONSES_PROVIDER,
    service,
    status: streamErrorStatus(details),
    details,
    inStream: true,
    requestId,
  });
}
