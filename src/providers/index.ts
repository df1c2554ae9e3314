// The public parts of the providers: the interface, the three adapters, error classification,
// retries and model limits.

export {
  ANTHROPIC_API_VERSION,
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from './anthropic-messages/anthropic-messages-model.js';
export { ANTHROPIC_COMPACTION_BETA, ANTHROPIC_COMPACTION_MINIMUM_TRIGGER } from './anthropic-messages/native-compaction.js';
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
  ModelWarning,
  ReasoningEffort,
  ReasoningParams,
  RenderedRequest,
  SendOptions,
  ToolChoice,
  ToolDefinition,
} from './language-model.js';
export {
  acceptsTemperature,
  BUILT_IN_SOURCE,
  describeModelLimits,
  knownModelFamilies,
  knownModelLimits,
  type ModelLimitsEntry,
  type ModelLimitsMatch,
  type ModelLimitsOverride,
  type ModelLimitsTable,
  matchModelLimits,
  resolveModelLimits,
  type UserModelLimits,
} from './model-limits.js';
export { parseModelLimits } from './model-limits-file.js';
export {
  NativeCompactionError,
  type NativeCompactionRequest,
  type NativeCompactionResult,
  type NativeCompactor,
} from './native-compaction.js';
export { createOpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat/openai-chat-model.js';
export {
  createOpenAIResponsesModel,
  type OpenAIResponsesModelOptions,
} from './openai-responses/openai-responses-model.js';
export { ProviderError, type ProviderErrorKind, type ProviderErrorOptions } from './provider-error.js';
export { UnknownRendererVersionError } from './renderer-version.js';
export { DEFAULT_RETRY_SETTINGS, type RetryClock, type RetrySettings } from './retry-schedule.js';
export {
  SCRIPTED_RENDERER_VERSION,
  ScriptExhaustedError,
  type ScriptedCall,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedReply,
} from './scripted-model.js';
