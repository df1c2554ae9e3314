// Exact replay (SPEC §4): rebuild the surface at a recorded model/request, render it with the
// recorded renderer, and prove by digest that it is the request the model received.

import { canonicalJson } from '../log/canonical-json.js';
import { parseEnvelope } from '../log/envelope.js';
import type { JsonObject, ModelRequestData } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { sha256Hex } from '../log/sha256.js';
import { SurfaceFold } from '../log/surface-fold.js';
import type { LanguageModel, ModelMessage, ModelParams } from '../providers/language-model.js';
import type { LogStore } from '../store/log-store.js';
import { renderSurface } from './render-surface.js';
import { ReplayError } from './spine-errors.js';

export interface ReplayTarget {
  readonly turn: number;
  /** The step within the turn (default 1). */
  readonly step?: number;
}

export interface ReplayResult {
  readonly turn: number;
  readonly step: number;
  /** The seq of the model/request event. */
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly rendererVersion: string;
  readonly requestDigest: string;
  readonly verified: true;
  /** The request body, exactly as sent: its canonical JSON is the wire body. */
  readonly request: JsonObject;
  /** The surface the request was rendered from, as provider-neutral messages. */
  readonly messages: readonly ModelMessage[];
}

/** Gives a model that can render for a recorded provider and model (no network needed). */
export type RendererResolver = (provider: string, modelId: string) => LanguageModel;

export interface ReplayOptions {
  readonly resolveRenderer: RendererResolver;
  readonly registry?: EventTypeRegistry;
}

export async function replay(store: LogStore, sessionId: string, target: ReplayTarget, options: ReplayOptions): Promise<ReplayResult> {
  const step = target.step ?? 1;
  const fold = new SurfaceFold(options.registry === undefined ? {} : { registry: options.registry });
  const turnsSeen = new Set<number>();
  for await (const page of store.read(sessionId)) {
    for (const raw of page) {
      const event = parseEnvelope(raw);
      if (event.type === 'model/request') {
        const data = event.data as unknown as ModelRequestData;
        turnsSeen.add(data.turn);
        if (data.turn === target.turn && data.step === step) return rebuild(fold, event.seq, data, options.resolveRenderer);
      }
      fold.apply(event);
    }
  }
  const known = turnsSeen.size === 0 ? 'it has no model calls' : `its model calls are in turns ${describeTurns(turnsSeen)}`;
  throw new ReplayError('no-such-call', `session ${sessionId} has no model call at turn ${target.turn}, step ${step}; ${known}`);
}

function rebuild(fold: SurfaceFold, seq: number, data: ModelRequestData, resolveRenderer: RendererResolver): ReplayResult {
  const nodes = fold.toArray();
  const rebuiltSeqs = nodes.map((node) => node.seq);
  const difference = firstDifference(data.surfaceSeqs, rebuiltSeqs);
  if (difference !== undefined) {
    throw new ReplayError(
      'surface-differs',
      `turn ${data.turn} step ${data.step}: the surface rebuilt at event #${seq} differs from the one recorded, ${difference}`,
    );
  }
  const [surfaceVersion = '', modelVersion = ''] = data.rendererVersion.split(' ');
  const messages = renderSurface(nodes, surfaceVersion);
  const model = resolveRenderer(data.provider, data.model);
  const rendered = model.render({ messages, params: data.params as unknown as ModelParams }, modelVersion);
  const digest = sha256Hex(canonicalJson(rendered.body));
  if (digest !== data.requestDigest) {
    throw new ReplayError(
      'digest-differs',
      `turn ${data.turn} step ${data.step}: the rebuilt request hashes to ${digest.slice(0, 16)}…, but the request recorded at event #${seq} hashed to ${data.requestDigest.slice(0, 16)}…; the same surface rendered differently (renderer ${data.rendererVersion})`,
    );
  }
  return {
    turn: data.turn,
    step: data.step,
    seq,
    provider: data.provider,
    model: data.model,
    rendererVersion: data.rendererVersion,
    requestDigest: digest,
    verified: true,
    request: rendered.body,
    messages,
  };
}

function firstDifference(recorded: readonly number[], rebuilt: readonly number[]): string | undefined {
  const length = Math.max(recorded.length, rebuilt.length);
  for (let position = 0; position < length; position++) {
    if (recorded[position] !== rebuilt[position]) {
      const show = (seq: number | undefined) => (seq === undefined ? 'nothing' : `#${seq}`);
      return `first at position ${position}: recorded ${show(recorded[position])}, rebuilt ${show(rebuilt[position])} (recorded ${recorded.length} nodes, rebuilt ${rebuilt.length})`;
    }
  }
  return undefined;
}

function describeTurns(turns: ReadonlySet<number>): string {
  const sorted = [...turns].sort((a, b) => a - b);
  return sorted.length <= 2 ? sorted.join(' and ') : `${sorted[0]} to ${sorted[sorted.length - 1]}`;
}
