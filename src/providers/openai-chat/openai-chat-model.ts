// The OpenAI chat-completions adapter: OpenAI itself and the servers that speak its wire
// format (DeepSeek, vLLM, llama.cpp server, Ollama, LM Studio, gateways).

import { type ConnectionOptions, resolveConnection } from '../connection.js';
import { resolveTimeouts, type Timeouts } from '../http.js';
import type { LanguageModel, ModelRequest, ModelResult, RenderedRequest } from '../language-model.js';
import { RenderMemos } from '../message-memo.js';
import { type ModelLimitsOverride, resolveModelLimits, type UserModelLimits } from '../model-limits.js';
import { sendModelRequest } from '../send-model-request.js';
import { silentTruncationWarning } from '../silent-truncation.js';
import { checkOpenAIChatParams } from './check-params.js';
import { convertToOpenAIChatBody, type OpenAIChatRenderSettings, openAIChatMemo } from './convert-messages.js';
import { mapOpenAIChatHttpError } from './map-error.js';
import { OPENAI_CHAT_API, parseOpenAIChatResponse } from './parse-response.js';
import { readOpenAIChatStream } from './parse-stream.js';
import { openAIChatRendererVersion, openAIChatSettingsOf } from './renderer-versions.js';

/**
 * apiKey defaults to OPENAI_API_KEY; baseUrl to OPENAI_BASE_URL, else
 * https://api.openai.com/v1 (a base URL includes the /v1, as OpenAI's own SDK expects). A
 * key is required only by api.openai.com. contextWindow and defaultMaxOutputTokens override
 * the built-in limits, and are required for a model neither the table nor `modelLimits` knows.
 *
 * The wire settings default by host, or by `dialect` (see renderer-versions.ts): api.openai.com gets
 * max_completion_tokens and arguments verbatim; api.deepseek.com max_tokens, arguments as an
 * object and its reasoning_content back on every tool-calling message; any other host (vLLM,
 * llama.cpp, Ollama, LM Studio, a gateway) max_tokens, arguments as an object and its
 * reasoning_content back where it gave one. Each is part of the renderer version, so that
 * replay renders what was sent.
 */
export interface OpenAIChatModelOptions extends ConnectionOptions, ModelLimitsOverride {
  /** The model id sent to the server: 'gpt-4.1', 'deepseek-chat', 'qwen3:8b', … */
  readonly model: string;
  readonly timeouts?: Partial<Timeouts>;
  /** Entries that extend the built-in limits table (a limits file). */
  readonly modelLimits?: UserModelLimits;
  /** The field that carries the output budget, if not the host's default. */
  readonly maxTokensField?: OpenAIChatRenderSettings['maxTokensField'];
  /** How tool-call arguments go back, if not the host's default: 'verbatim' or 'object'. */
  readonly toolArguments?: 'verbatim' | 'object';
  /** Whose reasoning blocks go back as reasoning_content (default: deepseek at api.deepseek.com, openai-compatible elsewhere, none at OpenAI). */
  readonly reasoningProvider?: string;
  /**
   * Whose rules the server follows, when its host does not say (a proxy or gateway in front of
   * OpenAI or DeepSeek): 'openai', 'deepseek' or 'compatible'. Default: from the base URL's host.
   */
  readonly dialect?: Dialect;
}

type Dialect = 'openai' | 'deepseek' | 'compatible';

/** A model behind OpenAI's Chat Completions API (/v1/chat/completions), or a server that speaks it. */
export function createOpenAIChatModel(options: OpenAIChatModelOptions): LanguageModel {
  const limits = resolveModelLimits(options.model, options, options.modelLimits);
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
  const host: Dialect =
    options.dialect ??
    (connection.isOfficialHost ? 'openai' : new URL(connection.baseUrl).hostname === 'api.deepseek.com' ? 'deepseek' : 'compatible');
  const settings = settingsFor(host, options);
  const service = connection.isOfficialHost ? 'OpenAI' : `OpenAI-compatible server at ${connection.baseUrl}`;
  const rendererVersion = openAIChatRendererVersion(settings);
  // The reasoning a server gives is tagged as the reasoning this adapter sends back.
  const reasoningTag = settings.reasoning?.provider ?? 'openai';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (connection.apiKey !== undefined) headers.authorization = `Bearer ${connection.apiKey}`;
  const memos = new RenderMemos(openAIChatMemo);

  return {
    provider: 'openai',
    modelId: options.model,
    rendererVersion,
    limits,
    render(request: ModelRequest, version: string = rendererVersion): RenderedRequest {
      return { body: convertToOpenAIChatBody(options.model, request, openAIChatSettingsOf(version), memos.of(version)) };
    },
    checkParams: (params) => checkOpenAIChatParams(options.model, params, options.modelLimits),
    async send(rendered, sendOptions = {}) {
      const result = await sendModelRequest({
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
        rejection: (status, bodyText, responseHeaders) => mapOpenAIChatHttpError(service, status, bodyText, responseHeaders),
        parseJson: (body, text) => parseOpenAIChatResponse(service, body, text, reasoningTag),
        parseStream: (events, requestId) => readOpenAIChatStream(service, events, sendOptions.onTextDelta, requestId, reasoningTag),
      });
      // Only a server of unknown make may cut the input silently (Ollama does).
      return host === 'compatible' ? withTruncationWarning(result, sendOptions.estimatedInputTokens) : result;
    },
  };
}

function settingsFor(host: Dialect, options: OpenAIChatModelOptions): OpenAIChatRenderSettings {
  const official = host === 'openai';
  const provider = options.reasoningProvider ?? (host === 'deepseek' ? 'deepseek' : official ? undefined : 'openai-compatible');
  return {
    maxTokensField: options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens'),
    toolArguments: options.toolArguments ?? (official ? 'verbatim' : 'object'),
    ...(provider === undefined ? {} : { reasoning: { provider, fill: host === 'deepseek' } }),
  };
}

function withTruncationWarning(result: ModelResult, estimated: number | undefined): ModelResult {
  const warning = silentTruncationWarning(result.usage?.inputTokens, estimated);
  return warning === undefined ? result : { ...result, warnings: [...(result.warnings ?? []), warning] };
}
