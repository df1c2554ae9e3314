// The provider's own compaction (a provider hook, optional on a LanguageModel): one request that
// hands the provider the messages a compaction shadows and gets back what replaces them, in the
// provider's own form (Anthropic's readable compaction block, OpenAI's opaque compaction item).
// Like `render`/`send`, it has two halves, so that replay can prove what was sent: `render` is
// pure and versioned, `send` puts exactly canonicalJson(body) on the wire.

import type { CompactionBlock } from '../log/content-block.js';
import { ShadowlogError } from '../log/errors.js';
import type { ModelMessage, ModelParams, ModelUsage, RenderedRequest } from './language-model.js';

export interface NativeCompactionRequest {
  /** The shadowed nodes, rendered as the model was sent them. */
  readonly messages: readonly ModelMessage[];
  /**
   * The session's parameters: the tools are sent where the provider needs them to read the
   * messages (the tool_use blocks name them, as the turns that made them were sent); nothing else of them is used.
   */
  readonly params: Pick<ModelParams, 'tools'>;
}

export interface NativeCompactionResult {
  /** What the provider returned, as the log keeps it: the replacing node's one block. */
  readonly block: CompactionBlock;
  /** What the compaction itself cost, as the provider counted it. */
  readonly usage?: ModelUsage;
  readonly responseId?: string;
  readonly requestId?: string;
}

export interface NativeCompactor {
  /** Changes whenever `render` would produce a different body for the same request. */
  readonly rendererVersion: string;
  /**
   * The fewest input tokens the provider compacts at all (Anthropic's smallest trigger); below
   * it the provider answers instead of compacting. 0: any.
   */
  readonly minimumInputTokens: number;
  /** Pure: the same request always renders to the same body. */
  render(request: NativeCompactionRequest, rendererVersion?: string): RenderedRequest;
  /** Sends exactly canonicalJson(rendered.body). Throws ProviderError, or NativeCompactionError when the provider did not compact. */
  send(rendered: RenderedRequest, options?: { readonly signal?: AbortSignal }): Promise<NativeCompactionResult>;
}

/** The provider answered a compaction request without compacting (below its trigger, a failed summary). */
export class NativeCompactionError extends ShadowlogError {
  readonly provider: string;
  constructor(provider: string, message: string) {
    super('NATIVE_COMPACTION_FAILED', message);
    this.provider = provider;
  }
}
