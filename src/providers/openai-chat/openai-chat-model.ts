// The OpenAI chat-completions adapter: OpenAI itself and the servers that speak its wire
// format (DeepSeek, vLLM, llama.cpp server, Ollama, LM Studio, gateways).

import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveTimeouts, type Timeouts } from '../http.js';
import type { LanguageModel, ModelRequest, RenderedRequest } from '../language-model.js';
import { type ModelLimitsOverride, resolveModelLimits } from '../model-limits.js';
import { UnknownRendererVersionError } from '../renderer-version.js';
import { sendModelRequest } from '../send-model-request.js';
import { convertToOpenAIChatBody, type OpenAIChatRenderSettings } from './convert-messages.js';
import { mapOpenAIChatHttpError } from './map-error.js';
import { OPENAI_CHAT_API, parseOpenAIChatResponse } from './parse-response.js';
import { readOpenAIChatStream } from './parse-stream.js';

/**
 * apiKey defaults to OPENAI_API_KEY; baseUrl to OPENAI_BASE_URL, else
 * https://api.openai.com/v1 (a base URL includes the /v1, as OpenAI's own SDK expects). A
 * key is required only by api.openai.com. contextWindow and defaultMaxOutputTokens override
 * the built-in limits, and are required for a model the table does not know.
 */
export interface OpenAIChatModelOptions extends ConnectionOptions, ModelLimitsOverride {
  /** The model id sent to the server: 'gpt-4.1', 'deepseek-chat', 'qwen3:8b', … */
  readonly model: string;
  readonly timeouts?: Partial<Timeouts>;
  /**
   * The field that carries the output budget: 'max_completion_tokens' (the default; OpenAI's
   * reasoning models refuse the other) or 'max_tokens' for older OpenAI-compatible servers.
   * It is part of the renderer version, so that replay renders the same field.
   */
  readonly maxTokensField?: OpenAIChatRenderSettings['maxTokensField'];
}

/**
 * Every version this build can render, so that replay renders a recorded request as it was
 * sent. 2: a tool call's arguments go back as the text the provider wrote (argumentsText).
 */
const RENDERER_VERSIONS: Readonly<Record<string, OpenAIChatRenderSettings>> = {
  'openai-chat/2': { maxTokensField: 'max_completion_tokens', providerArgumentsText: true },
  'openai-chat/2;max_tokens': { maxTokensField: 'max_tokens', providerArgumentsText: true },
  'openai-chat/1': { maxTokensField: 'max_completion_tokens', providerArgumentsText: false },
  'openai-chat/1;max_tokens': { maxTokensField: 'max_tokens', providerArgumentsText: false },
};

export function createOpenAIChatModel(options: OpenAIChatModelOptions): LanguageModel {
  const limits = resolveModelLimits(options.model, options);
  const timeouts = resolveTimeouts(options.timeouts);
  const connection = resolveConnection(
    {
      provider: 'openai',
      providerLabel: 'OpenAI',
      officialBaseUrl: 'https://api.openai.com/v1',
      apiKeyVariable: 'OPENAI_API_KEY',
      baseUrlVariable: 'OPENAI_BASE_URL',
      factoryName: 'createOpenAIChatModel',
    },
    options,
  );
  const service = connection.isOfficialHost ? 'OpenAI' : `OpenAI-compatible server at ${connection.baseUrl}`;
  const rendererVersion = options.maxTokensField === 'max_tokens' ? 'openai-chat/2;max_tokens' : 'openai-chat/2';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (connection.apiKey !== undefined) headers.authorization = `Bearer ${connection.apiKey}`;

  return {
    provider: 'openai',
    modelId: options.model,
    rendererVersion,
    limits,
    render(request: ModelRequest, version: string = rendererVersion): RenderedRequest {
      const settings = RENDERER_VERSIONS[version];
      if (settings === undefined)
        throw new UnknownRendererVersionError('openai-chat', version, Object.keys(RENDERER_VERSIONS).join(' or '));
      return { body: convertToOpenAIChatBody(options.model, request, settings) };
    },
    send(rendered, sendOptions = {}) {
      return sendModelRequest({
        provider: 'openai',
        service,
        api: OPENAI_CHAT_API,
        url: `${connection.baseUrl}/chat/completions`,
        headers,
        body: rendered.body,
        wireText: rendered.wireText,
        timeouts,
        signal: sendOptions.signal,
        onRawAnswer: sendOptions.onRawAnswer,
        rejection: (status, bodyText, headers) => mapOpenAIChatHttpError(service, status, bodyText, headers),
        parseJson: (body, text) => parseOpenAIChatResponse(service, body, text),
        parseStream: (events, requestId) => readOpenAIChatStream(service, events, sendOptions.onTextDelta, requestId),
      });
    },
  };
}
