// The Anthropic Messages adapter.

import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveTimeouts, type Timeouts } from '../http.js';
import type { LanguageModel, ModelRequest, RenderedRequest } from '../language-model.js';
import { RenderMemos } from '../message-memo.js';
import { type ModelLimitsOverride, resolveModelLimits, type UserModelLimits } from '../model-limits.js';
import { sendCompactionRequest } from '../send-compaction-request.js';
import { sendModelRequest } from '../send-model-request.js';
import { checkAnthropicParams } from './check-params.js';
import { anthropicMemo, convertToAnthropicBody } from './convert-messages.js';
import { mapAnthropicHttpError } from './map-error.js';
import {
  ANTHROPIC_COMPACTION_BETA,
  ANTHROPIC_COMPACTION_MINIMUM_TRIGGER,
  anthropicCompactionRendererVersion,
  needsCompactionBeta,
  parseAnthropicCompaction,
  renderAnthropicCompaction,
} from './native-compaction.js';
import { ANTHROPIC_MESSAGES_API, parseAnthropicResponse } from './parse-response.js';
import { readAnthropicStream } from './parse-stream.js';
import { anthropicRendererVersion, anthropicSettingsOf } from './renderer-versions.js';

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
  /** Entries that extend the built-in limits table (a limits file). */
  readonly modelLimits?: UserModelLimits;
  /**
   * Mark the stable prefix of each request for Anthropic's prompt cache (default true; see
   * cache-breakpoints.ts). Part of the renderer version. Cache writes cost more than plain input
   * and reads far less, so a session of more than one call pays less with it.
   */
  readonly promptCache?: boolean;
}

/** The API version this adapter speaks; sent as the anthropic-version header. */
export const ANTHROPIC_API_VERSION = '2023-06-01';

/** A model behind Anthropic's Messages API (/v1/messages). */
export function createAnthropicMessagesModel(options: AnthropicMessagesModelOptions): LanguageModel {
  const limits = resolveModelLimits(options.model, options, options.modelLimits);
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
  const rendererVersion = anthropicRendererVersion({
    defaultMaxTokens: limits.defaultMaxOutputTokens,
    version: 2,
    promptCache: options.promptCache !== false,
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', 'anthropic-version': ANTHROPIC_API_VERSION };
  if (connection.apiKey !== undefined) headers['x-api-key'] = connection.apiKey;
  // A body that compacts, or sends a compaction back, goes with the compaction beta; others as before.
  const headersFor = (body: RenderedRequest['body']) =>
    needsCompactionBeta(body) ? { ...headers, 'anthropic-beta': ANTHROPIC_COMPACTION_BETA } : headers;
  const url = `${connection.baseUrl}/v1/messages`;
  const memos = new RenderMemos(anthropicMemo);

  return {
    provider: 'anthropic',
    modelId: options.model,
    rendererVersion,
    limits,
    render(request: ModelRequest, version: string = rendererVersion): RenderedRequest {
      return { body: convertToAnthropicBody(options.model, request, anthropicSettingsOf(version), memos.of(version)) };
    },
    checkParams: (params) => checkAnthropicParams(options.model, params, limits.defaultMaxOutputTokens, options.modelLimits),
    send(rendered, sendOptions = {}) {
      return sendModelRequest({
        provider: 'anthropic',
        service,
        api: ANTHROPIC_MESSAGES_API,
        url,
        headers: headersFor(rendered.body),
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
    nativeCompaction: {
      rendererVersion: anthropicCompactionRendererVersion(rendererVersion),
      minimumInputTokens: ANTHROPIC_COMPACTION_MINIMUM_TRIGGER,
      render: (request, version = anthropicCompactionRendererVersion(rendererVersion)) =>
        renderAnthropicCompaction(options.model, request, version),
      send: (rendered, sendOptions = {}) =>
        sendCompactionRequest({
          provider: 'anthropic',
          service,
          api: ANTHROPIC_MESSAGES_API,
          url,
          headers: headersFor(rendered.body),
          body: rendered.body,
          wireText: rendered.wireText,
          timeouts,
          signal: sendOptions.signal,
          rejection: (status, bodyText, responseHeaders) => mapAnthropicHttpError(service, status, bodyText, responseHeaders),
          parse: (body) => parseAnthropicCompaction(service, body),
        }),
    },
  };
}
