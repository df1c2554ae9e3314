// Exact replay (SPEC §4): rebuild the surface at a recorded model/request, render it with the
// recorded renderer, and prove by digest that it is the request the model received. The digest
// proves something only over the log as it was written, so replay checks the hash chain from
// seq 0 up to the request (it reads that prefix anyway) and refuses to call a request verified
// when a link before it is broken: a digest recomputed over a changed log proves nothing.
//
// Not every call was sent by shadowlog (format 2, model/request.provenance). An imported call
// (another harness made it; shadowlog read it from its files) has no digest: replay rebuilds the
// surface it was recorded with and says it is reconstructed, not byte-verified. A proxied call
// stored the exact bytes the proxy received: replay returns those bytes, checked against their
// digest, instead of rendering anything. A proxied call off the surface (log/off-surface.ts)
// proves only its bytes: the surface recorded with it is the session's, not what it sent, so
// replay gives no messages for it and says why; its body is what the model received.

import { ShadowlogError } from '../log/errors.js';
import type {
  JsonObject,
  LogEvent,
  ModelRequestData,
  ProxiedModelRequestData,
  RequestProvenance,
  SentModelRequestData,
} from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { Hasher } from '../log/hash.js';
import { type InProcessRecording, inProcessRecording } from '../log/in-process-recording.js';
import { offSurfaceReason } from '../log/off-surface.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { ModelMessage, ModelParams } from '../providers/language-model.js';
import { brokenLink, ChainCheck, type ChainLink } from '../store/chain-check.js';
import type { LogStore } from '../store/log-store.js';
import { nodeSha256Hex, nodeSha256HexOfBytes } from '../store/node-sha256.js';
import { renderSurface } from './render-surface.js';
import { oneShotRenders, type RendererResolver, type RequestRenders } from './replay-renders.js';
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
  /** The renderer that rendered it; null for a call shadowlog did not render (imported, proxied) when none was recorded. */
  readonly rendererVersion: string | null;
  /** The digest recomputed and matched; null for an imported call, which has none. */
  readonly requestDigest: string | null;
  /** True when the request was proven byte for byte against its digest; false for an imported call. */
  readonly verified: boolean;
  /** Absent for a call shadowlog sent itself; else where the call came from. */
  readonly provenance?: RequestProvenance;
  /**
   * The request body. Sent: exactly as sent (its canonical JSON is the wire body). Proxied: the
   * stored body parsed, or null when it is not a JSON object. Imported: a reconstruction, the
   * provider-neutral `{provider, model, messages}` of the recorded surface.
   */
  readonly request: JsonObject | null;
  /** A proxied call's body, byte for byte as the proxy received it. */
  readonly wireBody?: Uint8Array;
  /**
   * Set for a proxied call whose messages are not on the session's surface: why (the proxy could
   * not read its body, or could not write its messages as a change of the surface), and the API
   * the proxy received it as. Its digest proves the stored bytes; what they hold is known only
   * from them.
   */
  readonly offSurface?: OffSurfaceCall;
  /** The surface the request was rendered from, as provider-neutral messages; empty for a call off the surface. */
  readonly messages: readonly ModelMessage[];
  /** Set for a call an integration recorded in the app's process (shadowlog/ai-sdk): by whom, and whether its bytes were captured. */
  readonly recordedInProcess?: InProcessRecording;
}

export interface OffSurfaceCall {
  readonly reason: string;
  /** The proxy's name for the API of the body (openai-chat, openai-responses, anthropic-messages), as it recorded it; null if it did not. */
  readonly protocol: string | null;
}

export type { RendererResolver } from './replay-renders.js';

export interface ReplayOptions {
  readonly resolveRenderer: RendererResolver;
  readonly registry?: EventTypeRegistry;
  /** Computes the SHA-256 of the chain and of the request (default: node:crypto, as the spine records digests). */
  readonly hasher?: Hasher;
}

/** Rebuilds a recorded model request byte for byte from the log, and checks it against the digest recorded when it was sent (SPEC §5). */
export async function replay(store: LogStore, sessionId: string, target: ReplayTarget, options: ReplayOptions): Promise<ReplayResult> {
  const step = target.step ?? 1;
  const hasher = options.hasher ?? nodeSha256Hex;
  const chain = new ChainCheck({ hasher, ...(options.registry === undefined ? {} : { registry: options.registry }) });
  let broken: ChainLink | undefined;
  const turnsSeen = new Set<number>();
  for await (const page of store.read(sessionId)) {
    for (const raw of page) {
      const link = chain.link(raw);
      broken ??= link.intact ? undefined : link;
      const event = link.event;
      if (event.type === 'model/request') {
        chain.fold.registry.validateData(event.type, event.data, event.seq, chain.fold.formatVersion);
        const data = dataOf(event, 'model/request');
        turnsSeen.add(data.turn);
        if (data.turn === target.turn && data.step === step)
          return replayNextRequest(chain, event, sessionId, broken, options.resolveRenderer, hasher);
      }
      acceptChecked(chain, link, broken, sessionId, `turn ${target.turn}, step ${step}`);
    }
  }
  const known = turnsSeen.size === 0 ? 'it has no model calls' : `its model calls are in turns ${describeTurns(turnsSeen)}`;
  throw new ReplayError('no-such-call', `session ${sessionId} has no model call at turn ${target.turn}, step ${step}; ${known}`);
}

/**
 * Replays the model/request `event`, read by `chain.link()` and not yet applied, against the
 * fold as it stands there, as replay() does at that call. `broken` is the first broken link
 * from seq 0 to it, itself included. For a reader that walks a whole session once (the audit
 * page) instead of reading the prefix again per call; such a reader passes one ReplayRenders
 * (replay-renders.ts) for all the calls, so that each renders and hashes only what changed
 * since the one before (the `hasher` is then the ReplayRenders' own).
 */
export function replayNextRequest(
  chain: ChainCheck,
  event: LogEvent,
  sessionId: string,
  broken: ChainLink | undefined,
  renderer: RendererResolver | RequestRenders,
  hasher: Hasher = nodeSha256Hex,
): ReplayResult {
  // A model/request changes nothing on the surface: the fold stands where the request was rendered.
  const data = dataOf(event, 'model/request');
  const position = { sessionId, seq: event.seq, data, nodes: chain.fold.toArray(), broken };
  checkRecordedSurface(position, recordedSurface(chain, position));
  return rebuild(position, typeof renderer === 'function' ? oneShotRenders(renderer, hasher) : renderer);
}

/**
 * Applies a link of the prefix to the fold. When the fold refuses an event after the chain broke,
 * the broken link is what the reader needs to hear about: the refusal is most likely its effect.
 */
export function acceptChecked(chain: ChainCheck, link: ChainLink, broken: ChainLink | undefined, sessionId: string, call: string): void {
  try {
    chain.accept(link);
  } catch (error) {
    if (broken === undefined || !ShadowlogError.isInstance(error)) throw error;
    throw chainBroken(broken, sessionId, call, `and event ${link.event.seq} is then refused (${error.message})`, error);
  }
}

/**
 * The error for a call whose prefix has a broken link: which seq, its hashes, and `detail` on
 * what the rebuilt request showed. A HashChainError (code CORRUPT_LOG).
 */
export function chainBroken(broken: ChainLink, sessionId: string, call: string, detail: string, cause?: unknown) {
  const seq = broken.event.seq;
  return brokenLink(
    broken,
    `${call} cannot be verified: the hash chain from seq 0 breaks at seq ${seq} (stored ${broken.event.hash.slice(0, 12)}…, recomputed ${broken.recomputedHash.slice(0, 12)}…), so event ${seq} was changed after it was written; ${detail}. \`shadowlog verify ${sessionId}\` lists every problem`,
    cause === undefined ? undefined : { cause },
  );
}

interface RequestPosition {
  readonly sessionId: string;
  readonly seq: number;
  readonly data: ModelRequestData;
  /** The surface at the request's position. */
  readonly nodes: readonly SurfaceNode[];
  /** The first broken link from seq 0 to the request, itself included. */
  readonly broken: ChainLink | undefined;
}

function callName(at: RequestPosition): string {
  return `turn ${at.data.turn} step ${at.data.step} (event #${at.seq})`;
}

/** The seqs the call recorded (decoded from its surfaceChange in format 2). */
function recordedSurface(chain: ChainCheck, at: RequestPosition): readonly number[] {
  try {
    return chain.fold.requestSurfaceSeqs(at.data, at.seq);
  } catch (error) {
    if (at.broken === undefined || !ShadowlogError.isInstance(error)) throw error;
    throw chainBroken(at.broken, at.sessionId, callName(at), `and its recorded surface cannot be read (${error.message})`, error);
  }
}

function checkRecordedSurface(at: RequestPosition, recorded: readonly number[]): void {
  const difference = firstDifference(
    recorded,
    at.nodes.map((node) => node.seq),
  );
  if (difference === undefined) return;
  const detail = `the surface rebuilt there differs from the one recorded, ${difference}`;
  if (at.broken !== undefined) throw chainBroken(at.broken, at.sessionId, callName(at), detail);
  throw new ReplayError('surface-differs', `${callName(at)}: ${detail}; the hash chain from seq 0 to ${at.seq} is intact`);
}

function rebuild(at: RequestPosition, renders: RequestRenders): ReplayResult {
  const { data } = at;
  if (data.provenance === 'imported') return reconstructImported(at);
  if (data.provenance === 'proxied') return replayProxied(at, data);
  return rebuildSent(at, data, renders);
}

/** An imported call: the recorded surface, reconstructed; nothing to verify it against. */
function reconstructImported(at: RequestPosition): ReplayResult {
  const { seq, data, nodes, broken } = at;
  if (broken !== undefined)
    throw chainBroken(broken, at.sessionId, callName(at), 'so even the reconstruction of this imported call cannot be trusted');
  const messages = renderSurface(nodes);
  return {
    turn: data.turn,
    step: data.step,
    seq,
    provider: data.provider,
    model: data.model,
    rendererVersion: data.rendererVersion ?? null,
    requestDigest: null,
    verified: false,
    provenance: 'imported',
    request: { provider: data.provider, model: data.model, messages: messages as unknown as JsonObject[] },
    messages,
    ...inProcess(data),
  };
}

/** A proxied call: the stored bytes, checked against the digest recorded when they were received. */
function replayProxied(at: RequestPosition, data: ProxiedModelRequestData): ReplayResult {
  const { seq, nodes, broken } = at;
  const call = callName(at);
  const bytes = Buffer.from(data.requestBody.text, data.requestBody.encoding === 'base64' ? 'base64' : 'utf8');
  const digest = nodeSha256HexOfBytes(bytes);
  const recorded = `the digest recorded at event #${seq} (${data.requestDigest.slice(0, 16)}…)`;
  if (broken !== undefined) {
    throw chainBroken(
      broken,
      at.sessionId,
      call,
      digest === data.requestDigest
        ? `the stored body does hash to ${recorded}, but a digest over a changed log proves nothing`
        : `and ${recorded} does not match the stored body either`,
    );
  }
  if (digest !== data.requestDigest) {
    throw new ReplayError(
      'digest-differs',
      `${call}: ${recorded} does not match the stored request body, which hashes to ${digest.slice(0, 16)}…, though the hash chain from seq 0 to ${seq} is intact; the proxy recorded a digest of other bytes than it stored`,
    );
  }
  const reason = offSurfaceReason(data);
  const protocol = (data as { proxy?: { protocol?: unknown } }).proxy?.protocol;
  const offSurface = reason === undefined ? undefined : { reason, protocol: typeof protocol === 'string' ? protocol : null };
  return {
    turn: data.turn,
    step: data.step,
    seq,
    provider: data.provider,
    model: data.model,
    rendererVersion: data.rendererVersion ?? null,
    requestDigest: digest,
    verified: true,
    provenance: 'proxied',
    request: parsedBody(data.requestBody.encoding === 'utf-8' ? data.requestBody.text : bytes.toString('utf8')),
    wireBody: new Uint8Array(bytes),
    ...(offSurface === undefined ? {} : { offSurface }),
    messages: offSurface === undefined ? renderSurface(nodes) : [],
    ...inProcess(data),
  };
}

function inProcess(data: ModelRequestData): { recordedInProcess?: InProcessRecording } {
  const recording = inProcessRecording(data);
  return recording === undefined ? {} : { recordedInProcess: recording };
}

function parsedBody(text: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
  } catch {
    return null;
  }
}

function rebuildSent(at: RequestPosition, data: SentModelRequestData, renders: RequestRenders): ReplayResult {
  const { seq, nodes, broken } = at;
  const call = callName(at);
  const [surfaceVersion = '', modelVersion = ''] = data.rendererVersion.split(' ');
  const messages = renders.messages(nodes, surfaceVersion);
  const model = renders.model(data.provider, data.model);
  const rendered = model.render({ messages, params: data.params as unknown as ModelParams }, modelVersion);
  const digest = renders.digest(rendered.body);
  const recorded = `the digest recorded at event #${seq} (${data.requestDigest.slice(0, 16)}…)`;
  if (broken !== undefined) {
    const detail =
      digest === data.requestDigest
        ? `the rebuilt request does hash to ${recorded}, but a digest over a changed log proves nothing`
        : `and ${recorded} does not match the rebuilt request either (${digest.slice(0, 16)}…)`;
    throw chainBroken(broken, at.sessionId, call, detail);
  }
  if (digest !== data.requestDigest) {
    throw new ReplayError(
      'digest-differs',
      `${call}: ${recorded} does not match the rebuilt request, which hashes to ${digest.slice(0, 16)}…; the hash chain from seq 0 to ${seq} is intact, so the log is as it was written, and the renderer (${data.rendererVersion}) now renders the recorded surface differently from the request that was sent`,
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
