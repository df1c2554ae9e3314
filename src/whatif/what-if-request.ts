// The request a what-if sends (SPEC §15), built before anything is sent or written: the
// counterfactual surface as copies of the audited messages (data.copyOf names each), folded in a
// session of memory exactly as the what-if session will hold them, rendered from that fold as
// replay will render it, digested, priced, and held to the model's window.

import { canonicalJson } from '../log/canonical-json.js';
import type { EventDraft, JsonObject, LogEvent, SurfaceType, WhatIfLink } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { SurfaceMeter } from '../meter/measure.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type { LanguageModel, ModelMessage, ModelParams } from '../providers/language-model.js';
import { renderSurface, SURFACE_RENDERER_VERSION } from '../spine/render-surface.js';
import { fixedRequestText } from '../spine/request-overhead.js';
import { MemoryLogStore } from '../store/memory/memory-store.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { SessionLog } from '../store/session-log.js';

/** One node of a counterfactual surface: a copy of an audited message, or a message the question made (a policy's summary). */
export type SurfaceEntry =
  | { readonly copyOf: LogEvent }
  | { readonly type: SurfaceType; readonly data: JsonObject; readonly standsFor: readonly number[] };

export interface BuiltRequest {
  /** The drafts of the what-if session's surface, in order. */
  readonly drafts: readonly EventDraft[];
  readonly messages: readonly ModelMessage[];
  readonly params: ModelParams;
  readonly body: JsonObject;
  /** canonicalJson(body): the bytes sent, and what the digest is of. */
  readonly wireText: string;
  readonly digest: string;
  /** The request's input by the script-aware estimate: the messages and what every request carries besides (tool definitions, parameters). */
  readonly inputTokens: number;
  /** The completion tokens it reserves: its maxOutputTokens, else the model's default. */
  readonly reservedTokens: number;
  readonly rendererVersion: string;
}

/** Builds the request `entries` make for `model`, through a what-if session held in memory; throws the log's typed error for a surface it refuses. */
export async function buildWhatIfRequest(
  auditedSessionId: string,
  entries: readonly SurfaceEntry[],
  model: LanguageModel,
  params: ModelParams,
  link: WhatIfLink,
  registry: EventTypeRegistry,
): Promise<BuiltRequest> {
  model.checkParams?.(params);
  const drafts = entries.map((entry) => draftOf(auditedSessionId, entry));
  const log = await SessionLog.create(new MemoryLogStore(), link.run, { registry, whatif: link, checkpoints: false });
  if (drafts.length > 0) await log.append(drafts);
  const nodes = log.fold.toArray();
  const messages = renderSurface(nodes);
  const { body } = model.render({ messages, params });
  const wireText = canonicalJson(body);
  const meter = new SurfaceMeter(scriptAwareEstimator);
  let inputTokens = scriptAwareEstimator.countText(fixedRequestText(model, params));
  for (const node of nodes) inputTokens += meter.priceOf(node);
  return {
    drafts,
    messages,
    params,
    body,
    wireText,
    digest: nodeSha256Hex(wireText),
    inputTokens: Math.ceil(inputTokens),
    reservedTokens: params.maxOutputTokens ?? model.limits.defaultMaxOutputTokens,
    rendererVersion: `${SURFACE_RENDERER_VERSION} ${model.rendererVersion}`,
  };
}

/** The draft of one node: a copy keeps what the renderer reads of the original, and names it. */
function draftOf(sessionId: string, entry: SurfaceEntry): EventDraft {
  if (!('copyOf' in entry)) {
    return { type: entry.type, data: { ...entry.data, standsFor: { sessionId, seqs: [...entry.standsFor] } }, surfaceOp: 'append' };
  }
  return copyDraft(sessionId, entry.copyOf);
}

/** An appended copy of `event`, an event of session `sessionId`: what the renderer reads of it, and copyOf naming it. */
export function copyDraft(sessionId: string, event: LogEvent): EventDraft {
  return {
    type: event.type,
    data: { ...renderedData(event.type as SurfaceType, event.data), copyOf: { sessionId, seq: event.seq } },
    surfaceOp: 'append',
  };
}

/** What the renderer reads of a message's data (not its usage, ids or provenance). */
export function renderedData(type: SurfaceType, data: JsonObject): JsonObject {
  switch (type) {
    case 'assistant/message':
      return { content: data.content ?? [], toolCalls: data.toolCalls ?? [], model: data.model ?? '' };
    case 'tool/result':
      return { callId: data.callId ?? '', content: data.content ?? [], ...(data.error === undefined ? {} : { error: data.error }) };
    default:
      return { content: data.content ?? [] };
  }
}
