// The provider interface: a small set of types with no dependencies. Each wire protocol is
// one adapter (openai-chat, anthropic-messages); the scripted model implements it too.
//
// A call has two halves so that replay can prove what was sent: `render` turns a neutral
// request into the exact JSON body (pure, deterministic, versioned), and `send` puts exactly
// those bytes (canonical JSON of the body) on the wire.

import type { ContentBlock, JsonObject, JsonValue, RawAnswer, ToolCall, Usage } from '../log/event.js';

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

/** Everything that decides a request body besides the messages; recorded in model/request.params. */
export interface ModelParams {
  readonly tools: readonly ToolDefinition[];
  /** Completion tokens to reserve; absent = the model's default. */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly stream: boolean;
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

export interface ModelResult {
  readonly content: ContentBlock[];
  readonly toolCalls: ToolCall[];
  readonly finishReason: FinishReason;
  readonly usage?: ModelUsage;
  /** The model name the provider answered with (it may differ from the one asked for). */
  readonly responseModel?: string;
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
}

export interface ModelLimits {
  readonly contextWindow: number;
  /** Completion tokens the model reserves when a request names none. */
  readonly defaultMaxOutputTokens: number;
}

export interface LanguageModel {
  /** 'openai', 'anthropic', 'scripted', … */
  readonly provider: string;
  readonly modelId: string;
  /** Changes whenever `render` would produce a different body for the same request. */
  readonly rendererVersion: string;
  readonly limits: ModelLimits;
  /** Pure: the same request always renders to the same body. */
  render(request: ModelRequest, rendererVersion?: string): RenderedRequest;
  /** Sends exactly canonicalJson(rendered.body). Throws ProviderError. */
  send(rendered: RenderedRequest, options?: SendOptions): Promise<ModelResult>;
}

export type { JsonValue };
