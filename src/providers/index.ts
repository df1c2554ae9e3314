// The public parts of the providers: the interface, the two adapters, error classification
// and model limits.

export {
  ANTHROPIC_API_VERSION,
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from './anthropic-messages/anthropic-messages-model.js';
export type { ConnectionOptions } from './connection.js';
export { CONTEXT_OVERFLOW_WORDINGS, isContextOverflow } from './context-overflow.js';
export { DEFAULT_TIMEOUTS, type Timeouts } from './http.js';
export type {
  FinishReason,
  LanguageModel,
  ModelLimits,
  ModelMessage,
  ModelParams,
  ModelRequest,
  ModelResult,
  ModelUsage,
  RenderedRequest,
  SendOptions,
  ToolDefinition,
} from './language-model.js';
export { knownModelLimits, type ModelLimitsOverride, resolveModelLimits } from './model-limits.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat/openai-chat-model.js';
export { ProviderError, type ProviderErrorKind } from './provider-error.js';
export { UnknownRendererVersionError } from './renderer-version.js';
export {
  SCRIPTED_RENDERER_VERSION,
  ScriptExhaustedError,
  type ScriptedCall,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReply,
} from './scripted-model.js';
export { readServerSentEvents, type ServerSentEvent } from './sse.js';
