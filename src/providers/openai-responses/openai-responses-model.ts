// The OpenAI Responses API adapter (POST /v1/responses): OpenAI's current API, the one Codex
// speaks. Stateless: every request carries the whole surface as input items with store: false,
// so that the log is the only state and replay rebuilds each request from it.

import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveTimeouts, type Timeouts } from '../http.js';
import type { LanguageModel, ModelParams, ModelRequest, RenderedRequest } from '../language-model.js';
import { RenderMemos } from '../message-memo.js';
import { acceptsTemperature, type ModelLimitsOverride, resolveModelLimits, type UserModelLimits } from '../model-limits.js';
import { checkOpenAIChatParams } from '../openai-chat/check-params.js';
import { UnknownRendererVersionError } from '../renderer-version.js';
import { sendCompactionRequest } from '../send-compaction-request.js';
import { sendModelRequest } from '../send-model-request.js';
import { convertToOpenAIResponsesBody, type OpenAIResponsesRenderSettings, openAIResponsesMemo } from './convert-messages.js';
import { mapOpenAIResponsesHttpError, OPENAI_RESPONSES_PROVIDER } from './map-error.js';
import { openAIResponsesCompactionVersion, parseOpenAIResponsesCompaction, renderOpenAIResponsesCompaction } from './native-compaction.js';
import { OPENAI_RESPONSES_API, parseOpenAIResponsesResponse } from './parse-response.js';
import { readOpenAIResponsesStream } from './parse-stream.js';

/**
 * apiKey defaults to OPENAI_API_KEY; baseUrl to OPENAI_BASE_URL, else https://api.openai.com/v1.
 * A key is required only by api.openai.com. contextWindow and defaultMaxOutputTokens override
 * the built-in limits, and are required for a model neither the table nor `modelLimits` knows.
 */
export interface OpenAIResponsesModelOptions extends ConnectionOptions, ModelLimitsOverride {
  /** The model id: 'gpt-5', 'gpt-5.1-codex', 'o4-mini', … */
  readonly model: string;
  readonly timeouts?: Partial<Timeouts>;
  /** Entries that extend the built-in limits table (a limits file). */
  readonly modelLimits?: UserModelLimits;
  /**
   * Ask every request for reasoning items with their encrypted content (default: for models the
   * limits table knows as reasoning models, those that take no temperature). Part of the renderer version.
   */
  readonly reasoningModel?: boolean;
}

/**
 * 1: every turn as input items, store: false, reasoning summaries asked for with an effort,
 * encrypted reasoning asked for on every request (";reasoning") or with an effort only.
 */
const RENDERER_VERSIONS: Readonly<Record<string, OpenAIResponsesRenderSettings>> = {
  'openai-responses/1': { reasoningModel: false },
  'openai-responses/1;reasoning': { reasoningModel: true },
};

/** A model behind OpenAI's Responses API (/v1/responses). */
export function createOpenAIResponsesModel(options: OpenAIResponsesModelOptions): LanguageModel {
  const limits = resolveModelLimits(options.model, options, options.modelLimits);
  const timeouts = resolveTimeouts(options.timeouts);
  const connection = resolveConnection(
    {
      provider: OPENAI_RESPONSES_PROVIDER,
      providerLabel: 'OpenAI',
      officialBaseUrl: 'https://api.openai.com/v1',
      apiKeyVariable: 'OPENAI_API_KEY',
      baseUrlVariable: 'OPENAI_BASE_URL',
      factoryName: 'createOpenAIResponsesModel',
    },
    options,
  );
  const service = connection.isOfficialHost ? 'OpenAI Responses' : `OpenAI Responses-compatible server at ${connection.baseUrl}`;
  const reasoningModel = options.reasoningModel ?? !acceptsTemperature(options.model, options.modelLimits);
  const rendererVersion = reasoningModel ? 'openai-responses/1;reasoning' : 'openai-responses/1';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (connection.apiKey !== undefined) headers.authorization = `Bearer ${connection.apiKey}`;
  const memos = new RenderMemos(openAIResponsesMemo);

  return {
    provider: OPENAI_RESPONSES_PROVIDER,
    modelId: options.model,
    rendererVersion,
    limits,
    render(request: ModelRequest, version: string = rendererVersion): RenderedRequest {
      const settings = RENDERER_VERSIONS[version];
      if (settings === undefined) {
        throw new UnknownRendererVersionError('openai-responses', version, Object.keys(RENDERER_VERSIONS).join(' or '));
      }
      return { body: convertToOpenAIResponsesBody(options.model, request, settings, memos.of(version)) };
    },
    // The same refusals as chat completions: a temperature for a reasoning model, a token budget.
    checkParams: (params: ModelParams) => checkOpenAIChatParams(options.model, params, options.modelLimits),
    send(rendered, sendOptions = {}) {
      return sendModelRequest({
        provider: OPENAI_RESPONSES_PROVIDER,
        service,
        api: OPENAI_RESPONSES_API,
        url: `${connection.baseUrl}/responses`,
        headers,
        body: rendered.body,
        wireText: rendered.wireText,
        timeouts,
        signal: sendOptions.signal,
        onRawAnswer: sendOptions.onRawAnswer,
        rejection: (status, bodyText, responseHeaders) => mapOpenAIResponsesHttpError(service, status, bodyText, responseHeaders),
        parseJson: (body, _text, requestId) => parseOpenAIResponsesResponse(service, body, requestId),
        parseStream: (events, requestId) => readOpenAIResponsesStream(service, events, sendOptions.onTextDelta, requestId),
      });
    },
    nativeCompaction: {
      rendererVersion: openAIResponsesCompactionVersion(rendererVersion),
      minimumInputTokens: 0,
      render: (request, version = openAIResponsesCompactionVersion(rendererVersion)) =>
        renderOpenAIResponsesCompaction(options.model, request, version, (messagesVersion) => RENDERER_VERSIONS[messagesVersion]),
      send: (rendered, sendOptions = {}) =>
        sendCompactionRequest({
          provider: OPENAI_RESPONSES_PROVIDER,
          service,
          api: OPENAI_RESPONSES_API,
          url: `${connection.baseUrl}/responses/compact`,
          headers,
          body: rendered.body,
          wireText: rendered.wireText,
          timeouts,
          signal: sendOptions.signal,
          rejection: (status, bodyText, responseHeaders) => mapOpenAIResponsesHttpError(service, status, bodyText, responseHeaders),
          parse: (body) => parseOpenAIResponsesCompaction(service, body),
        }),
    },
  };
}
