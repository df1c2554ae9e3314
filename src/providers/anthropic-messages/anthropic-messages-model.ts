// The Anthropic Messages adapter.

import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveTimeouts, type Timeouts } from '../http.js';
import type { LanguageModel, ModelRequest, RenderedRequest } from '../language-model.js';
import { type ModelLimitsOverride, resolveModelLimits } from '../model-limits.js';
import { UnknownRendererVersionError } from '../renderer-version.js';
import { sendModelRequest } from '../send-model-request.js';
import { type AnthropicRenderSettings, convertToAnthropicBody } from './convert-messages.js';
import { mapAnthropicHttpError } from './map-error.js';
import { ANTHROPIC_MESSAGES_API, parseAnthropicResponse } from './parse-response.js';
import { readAnthropicStream } from './parse-stream.js';

/**
 * apiKey defaults to ANTHROPIC_API_KEY; baseUrl to ANTHROPIC_BASE_URL, else
 * https://api.anthropic.com (without /v1, as Anthropic's own SDK expects). A key is required
 * only by api.anthropic.com. contextWindow and defaultMaxOutputTokens override the built-in
 * limits, and are required for a model the table does not know.
 */
export interface AnthropicMessagesModelOptions extends ConnectionOptions, ModelLimitsOverride {
  /** The model id: 'claude-sonnet-4-5', 'claude-haiku-4-5-20251001', … */
  readonly model: string;
  readonly timeouts?: Partial<Timeouts>;
}

/** The API version this adapter speaks; sent as the anthropic-version header. */
export const ANTHROPIC_API_VERSION = '2023-06-01';

const VERSION_PATTERN = /^anthropic-messages\/1;default_max_tokens=([1-9][0-9]*)$/;

export function createAnthropicMessagesModel(options: AnthropicMessagesModelOptions): LanguageModel {
  const limits = resolveModelLimits(options.model, options);
  const timeouts = resolveTimeouts(options.timeouts);
  const connection = resolveConnection(
    {
      provider: 'anthropic',
      providerLabel: 'Anthropic',
      officialBaseUrl: 'https://api.anthropic.com',
      apiKeyVariable: 'ANTHROPIC_API_KEY',
      baseUrlVariable: 'ANTHROPIC_BASE_URL',
      factoryName: 'createAnthropicMessagesModel',
    },
    options,
  );
  const service = connection.isOfficialHost ? 'Anthropic' : `Anthropic-compatible server at ${connection.baseUrl}`;
  // max_tokens is required, so the default budget decides the body of a request that names
  // none; it is part of the version so that replay renders the budget that was sent.
  const rendererVersion = `anthropic-messages/1;default_max_tokens=${limits.defaultMaxOutputTokens}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_API_VERSION };
  if (connection.apiKey !== undefined) headers['x-api-key'] = connection.apiKey;

  return {
    provider: 'anthropic',
    modelId: options.model,
    rendererVersion,
    limits,
    render(request: ModelRequest, version: string = rendererVersion): RenderedRequest {
      return { body: convertToAnthropicBody(options.model, request, settingsOf(version)) };
    },
    send(rendered, sendOptions = {}) {
      return sendModelRequest({
        provider: 'anthropic',
        service,
        api: ANTHROPIC_MESSAGES_API,
        url: `${connection.baseUrl}/v1/messages`,
        headers,
        body: rendered.body,
        wireText: rendered.wireText,
        timeouts,
        signal: sendOptions.signal,
        onRawAnswer: sendOptions.onRawAnswer,
        rejection: (status, bodyText, headers) => mapAnthropicHttpError(service, status, bodyText, headers),
        parseJson: (body, text, requestId) => parseAnthropicResponse(service, body, text, requestId),
        parseStream: (events, requestId) => readAnthropicStream(service, events, sendOptions.onTextDelta, requestId),
      });
    },
  };
}

function settingsOf(version: string): AnthropicRenderSettings {
  const match = VERSION_PATTERN.exec(version);
  const defaultMaxTokens = Number(match?.[1]);
  if (match === null || !Number.isSafeInteger(defaultMaxTokens)) {
    throw new UnknownRendererVersionError('anthropic-messages', version, 'anthropic-messages/1;default_max_tokens=N');
  }
  return { defaultMaxTokens };
}
