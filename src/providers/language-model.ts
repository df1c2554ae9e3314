// The provider interface: a small set of types with no dependencies. Each wire protocol is
// one adapter (openai-chat, anthropic-messages, openai-responses); the scripted model
// implements it too.
//
// A call has two halves so that replay can prove what was sent: `render` turns a neutral
// request into the exact JSON body (pure, deterministic, versioned), and `send` puts exactly
// those bytes (canonical JSON of the body) on the wire.

import type { ContentBlock, JsonObject, JsonValue, RawAnswer, ToolCall, Usage } from '../log/event.js';
import type { NativeCompactor } from './native-compaction.js';

/** A surface node rendered for a model, provider-neutral. */
export type ModelMessage =
  | { readonly role: 'system'; readonly content: readonly ContentBlock[] }
  | { readonly role: 'user'; readonly content: readonly ContentBlock[] }
  | { readonly role: 'assistant'; readonly content: readonly ContentBlock[]; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly content: readonly ContentBlock[]; readonly isError: boolean };

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments object. */
  readonly parameters: JsonObject;
}

/** How hard a reasoning model thinks; each adapter sends the values its API takes. */
export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningParams {
  /** OpenAI's reasoning_effort (chat) or reasoning.effort (responses), Anthropic's output_config.effort. */
  readonly effort?: ReasoningEffort;
  /** Tokens the model may spend thinking: Anthropic's thinking.budget_tokens (at least 1,024, below max_tokens). */
  readonly budgetTokens?: number;
}

/** Whether and which tool the model must call: 'auto' (the default), 'none', 'required' (any), or one by name. */
export type ToolChoice = 'auto' | 'none' | 'required' | { readonly tool: string };

/**
 * Everything that decides a request body besides the messages; recorded in model/request.params.
 * A field left out is not sent, so a request recorded before a field existed renders as it did.
 */
export interface ModelParams {
  readonly tools: readonly ToolDefinition[];
  /** Completion tokens to reserve; absent = the model's default. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly stream: boolean;
  readonly reasoning?: ReasoningParams;
  readonly toolChoice?: ToolChoice;
  /** false: at most one tool call per answer. */
  readonly parallelToolCalls?: boolean;
}

export interface ModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly params: ModelParams;
}

/** The body an adapter will send, exactly; its canonical JSON is what goes on the wire and is hashed. */
export interface RenderedRequest {
  readonly body: JsonObject;
  /**
   * canonicalJson(body), when the caller has already written it (the spine does, to hash it):
   * adapters then send these exact bytes instead of serializing the body again.
   */
  readonly wireText?: string;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'other';

/** What the provider counted (log format 2's usage: inputTokens is the whole input, cache included). */
export type ModelUsage = Readonly<Usage>;

/** Something about an answer that a reader of the log should know (recorded as model/warning). */
export interface ModelWarning {
  /** Stable, upper case: SILENT_TRUNCATION. */
  readonly code: string;
  readonly message: string;
}

export interface ModelResult {
  readonly content: ContentBlock[];
  readonly toolCalls: ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage?: ModelUsage;
  /** The model name the provider answered with (it may differ from the one asked for). */
  readonly responseModel?: string;
  /** The provider's id for the request, from the response headers (x-request-id, request-id). */
  readonly requestId?: string;
  /** The provider's id for the answer (chatcmpl-…, msg_…, resp_…). */
  readonly responseId?: string;
  readonly warnings?: readonly ModelWarning[];
}

export interface SendOptions {
  readonly signal?: AbortSignal;
  /** Streamed text as it arrives (only for stream: true). */
  readonly onTextDelta?: (text: string) => void;
  /**
   * The answer as it arrived (the response body, or the stream's events), called before the
   * result is returned: the spine keeps it for the record in case the log cannot hold the
   * answer as an assistant/message. Adapters over HTTP call it; a model with no wire form need not.
   */
  readonly onRawAnswer?: (raw: RawAnswer) => void;
  /**
   * What the caller estimates the request's input at (the spine's estimatedTokens), so that
   * an adapter can notice a server that reports far fewer: one that cut the input silently.
   */
  readonly estimatedInputTokens?: number;
}

export interface ModelLimits {
  readonly contextWindow: number;
  /** Completion tokens the model reserves when a request names none. */
  readonly defaultMaxOutputTokens: number;
}

/** A model behind one wire protocol: renders a request into its wire form, and sends it. */
export interface LanguageModel {
  /** 'openai', 'anthropic', 'scripted', … */
  readonly provider: string;
  readonly modelId: string;
  /** Changes whenever `render` would produce a different body for the same request. */
  readonly rendererVersion: string;
  readonly limits: ModelLimits;
  /** Pure: the same request always renders to the same body. */
  render(request: ModelRequest, rendererVersion?: string): RenderedRequest;
  /**
   * Throws a ConfigError for parameters the model refuses whatever the messages (a
   * temperature for a model that takes only its default, a thinking budget it cannot use), so
   * that a harness is refused when it is built instead of failing every call.
   */
  checkParams?(params: ModelParams): void;
  /** Sends exactly canonicalJson(rendered.body). Throws ProviderError. */
  send(rendered: RenderedRequest, options?: SendOptions): Promise<ModelResult>;
  /** The provider's own compaction, where it has one (strategy `native`; `auto` uses it when present). */
  readonly nativeCompaction?: NativeCompactor;
}

export type { JsonValue };
