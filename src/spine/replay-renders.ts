// What replay keeps from one call to the next when it walks a whole session in order (the audit
// page checks every call): the same caches the spine keeps while it records (each surface node's
// message, one renderer per provider and model with its adapters' memos, the request writer's
// JSON of each message and hash states). A call then costs a lookup per message on its surface,
// and renders, writes and hashes only what changed since the call before, instead of its whole
// request (a session's checks were O(calls × request size) in bytes rendered and hashed). The
// digest is still exactly the SHA-256 of the canonical JSON of the body rendered again
// (spine/request-writer.ts holds every adapter to a full recomputation), so a call whose bytes
// differ from its recorded digest is still refused.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject } from '../log/event.js';
import type { Hasher, Sha256 } from '../log/hash.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { LanguageModel, ModelMessage } from '../providers/language-model.js';
import { nodeSha256, nodeSha256Hex } from '../store/node-sha256.js';
import { renderSurface, SURFACE_RENDERER_VERSION, SurfaceRenderCache } from './render-surface.js';
import { RequestWriter } from './request-writer.js';

/** Gives a model that can render for a recorded provider and model (no network needed). */
export type RendererResolver = (provider: string, modelId: string) => LanguageModel;

/** How replay renders a recorded request again and hashes it. */
export interface RequestRenders {
  /** The renderer of a provider and model (throws as the resolver does when there is none). */
  model(provider: string, modelId: string): LanguageModel;
  /** The surface as provider-neutral messages, rendered as `surfaceVersion` renders it (renderSurface's errors). */
  messages(nodes: readonly SurfaceNode[], surfaceVersion: string): ModelMessage[];
  /** The lowercase hex SHA-256 of the canonical JSON of `body`. */
  digest(body: JsonObject): string;
}

/** Renders every request from scratch: for one call replayed alone. */
export function oneShotRenders(resolveRenderer: RendererResolver, hasher: Hasher = nodeSha256Hex): RequestRenders {
  return {
    model: resolveRenderer,
    messages: (nodes, surfaceVersion) => renderSurface(nodes, surfaceVersion),
    digest: (body) => hasher(canonicalJson(body)),
  };
}

/**
 * One per session walked in order: pass it to replayNextRequest for each call, in log order.
 * Its caches hold what the previous calls rendered; a call that shares nothing with them costs
 * what a call replayed alone costs.
 */
export class ReplayRenders implements RequestRenders {
  private readonly models = new Map<string, LanguageModel>();
  private readonly surfaces = new SurfaceRenderCache();
  private readonly writer: RequestWriter;

  constructor(
    private readonly resolveRenderer: RendererResolver,
    sha256: Sha256 = nodeSha256,
  ) {
    this.writer = new RequestWriter(sha256);
  }

  /** The same renderer for the same provider and model on every call, so that its memos hold across calls. */
  readonly model = (provider: string, modelId: string): LanguageModel => {
    const key = `${provider}\u0000${modelId}`;
    let model = this.models.get(key);
    if (model === undefined) {
      model = this.resolveRenderer(provider, modelId);
      this.models.set(key, model);
    }
    return model;
  };

  messages(nodes: readonly SurfaceNode[], surfaceVersion: string): ModelMessage[] {
    // Another version is refused by renderSurface, with its own error.
    return surfaceVersion === SURFACE_RENDERER_VERSION ? this.surfaces.render(nodes) : renderSurface(nodes, surfaceVersion);
  }

  digest(body: JsonObject): string {
    return this.writer.write(body).digest;
  }
}
