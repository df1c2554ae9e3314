// Replay of a summarizer call (SPEC §4): the request a compaction sent to its summarizer
// model, rebuilt from the shadowed events and checked against the digest it recorded. As for a
// turn's call, the hash chain is checked from seq 0 up to the compaction/summary event: the
// shadowed events all stand before it, and so does nothing else the digest depends on.

import { canonicalJson } from '../log/canonical-json.js';
import type { JsonObject, LogEvent } from '../log/event.js';
import { EventTypeRegistry } from '../log/event-types.js';
import type { Hasher } from '../log/hash.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { ModelMessage, ModelRequest, RenderedRequest, ToolDefinition } from '../providers/language-model.js';
import { renderSurface, SURFACE_RENDERER_VERSION } from '../spine/render-surface.js';
import { acceptChecked, chainBroken, type RendererResolver } from '../spine/replay.js';
import { ReplayError } from '../spine/spine-errors.js';
import { ChainCheck, type ChainLink } from '../store/chain-check.js';
import type { LogStore } from '../store/log-store.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import {
  COMPACTION_EVENT_TYPES,
  COMPACTION_POLICY,
  COMPACTION_START,
  COMPACTION_SUMMARY,
  type CompactionPolicyData,
  type CompactionSummaryData,
} from './event-types.js';
import { summaryRequest } from './summarizer.js';

export interface SummaryReplayResult {
  readonly compactionId: string;
  /** Who made the call: a model summarizer, or the provider's own compaction (`native`). */
  readonly summarizer: 'model' | 'native';
  /** The seq of the compaction/summary event. */
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly rendererVersion: string;
  readonly requestDigest: string;
  readonly verified: true;
  readonly request: JsonObject;
  readonly messages: readonly ModelMessage[];
  /** The compaction/policy the compaction ran under (its seq and numbers); null when none was recorded. */
  readonly policy: (CompactionPolicyData & { readonly seq: number }) | null;
}

export interface SummaryReplayOptions {
  /** The types the log holds (default: the core ones and compaction's). */
  readonly registry?: EventTypeRegistry;
  /** Computes the SHA-256 of the chain and of the request (default: node:crypto). */
  readonly hasher?: Hasher;
}

/** The summary event found, with the surface at its position and the first broken link before it. */
interface Found {
  readonly event: LogEvent;
  /** Native: the tools of the model/request the compaction named (toolsSeq); undefined when none. */
  readonly tools: readonly unknown[] | undefined;
  readonly policy: SummaryReplayResult['policy'];
  readonly nodes: ReadonlyMap<number, SurfaceNode>;
  readonly broken: ChainLink | undefined;
}

/** `compactionId` may be a unique prefix of the id (as `show --record` prints eight characters). */
export async function replaySummary(
  store: LogStore,
  sessionId: string,
  compactionId: string,
  resolveRenderer: RendererResolver,
  options: SummaryReplayOptions = {},
): Promise<SummaryReplayResult> {
  const hasher = options.hasher ?? nodeSha256Hex;
  const chain = new ChainCheck({ hasher, registry: options.registry ?? new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
  const isMatch = (event: LogEvent) => event.type === COMPACTION_SUMMARY && String(event.data?.compactionId).startsWith(compactionId);
  const call = `the summarizer call of compaction ${compactionId}`;
  let broken: ChainLink | undefined;
  let found: Found | undefined;
  let matches = 0;
  // The policies recorded before the summary, and the one each compaction/start named.
  const policies = new Map<number, CompactionPolicyData>();
  const policyOf = new Map<string, number>();
  // The tools of each model call before the summary, by seq: a native compaction names the call whose tools it sent.
  const toolsAt = new Map<number, readonly unknown[]>();
  for await (const page of store.read(sessionId)) {
    for (const raw of page) {
      if (found !== undefined) {
        // Past the summary: only looking for another compaction the prefix also names.
        if (isMatch(raw)) matches++;
        continue;
      }
      const link = chain.link(raw);
      broken ??= link.intact ? undefined : link;
      if (isMatch(link.event)) {
        chain.fold.registry.validateData(link.event.type, link.event.data, link.event.seq);
        matches++;
        const policySeq = policyOf.get(String(link.event.data.compactionId));
        const policy = policySeq === undefined ? undefined : policies.get(policySeq);
        const toolsSeq = (link.event.data as { toolsSeq?: unknown }).toolsSeq;
        found = {
          event: link.event,
          tools: typeof toolsSeq === 'number' ? toolsAt.get(toolsSeq) : undefined,
          nodes: shadowedNodes(chain, link.event),
          broken,
          policy: policy === undefined || policySeq === undefined ? null : { ...policy, seq: policySeq },
        };
        continue;
      }
      if (link.event.type === 'model/request') {
        const tools = (link.event.data.params as { tools?: unknown } | undefined)?.tools;
        if (Array.isArray(tools)) toolsAt.set(link.event.seq, tools);
      }
      if (link.event.type === COMPACTION_POLICY) policies.set(link.event.seq, link.event.data as unknown as CompactionPolicyData);
      if (link.event.type === COMPACTION_START && typeof link.event.data.policySeq === 'number') {
        policyOf.set(String(link.event.data.compactionId), link.event.data.policySeq);
      }
      acceptChecked(chain, link, broken, sessionId, call);
    }
  }
  if (found === undefined)
    throw new ReplayError(
      'no-such-call',
      `session ${sessionId} has no compaction ${compactionId}; \`shadowlog show ${sessionId} --record\` lists them`,
    );
  if (matches > 1)
    throw new ReplayError('no-such-call', `${compactionId} names ${matches} compactions of ${sessionId}; give more of the id`);
  return rebuild(found, sessionId, resolveRenderer, hasher);
}

/**
 * Replays the summarizer call of the compaction/summary `event`, read by `chain.link()` and not
 * yet applied, against the fold as it stands there, as replaySummary() does. `broken` is the
 * first broken link from seq 0 to it. For a reader that walks a whole session once (the audit
 * page) instead of reading the prefix again per compaction.
 */
export function replayNextSummary(
  chain: ChainCheck,
  event: LogEvent,
  sessionId: string,
  broken: ChainLink | undefined,
  resolveRenderer: RendererResolver,
  options: {
    readonly policy?: SummaryReplayResult['policy'];
    readonly hasher?: Hasher;
    /** The tools of the model/request at a seq before the event (a native compaction names the call whose tools it sent). */
    readonly toolsAt?: (seq: number) => readonly unknown[] | undefined;
  } = {},
): SummaryReplayResult {
  chain.fold.registry.validateData(event.type, event.data, event.seq);
  const toolsSeq = (event.data as { toolsSeq?: unknown }).toolsSeq;
  const tools = typeof toolsSeq === 'number' ? options.toolsAt?.(toolsSeq) : undefined;
  const found = { event, tools, nodes: shadowedNodes(chain, event), broken, policy: options.policy ?? null };
  return rebuild(found, sessionId, resolveRenderer, options.hasher ?? nodeSha256Hex);
}

/** The current surface nodes the summary names, read before the summary is applied. */
function shadowedNodes(chain: ChainCheck, event: LogEvent): Map<number, SurfaceNode> {
  const nodes = new Map<number, SurfaceNode>();
  const listed = (event.data as { shadowedSeqs?: unknown }).shadowedSeqs;
  for (const seq of Array.isArray(listed) ? listed : []) {
    const node = typeof seq === 'number' ? chain.fold.node(seq) : undefined;
    if (node !== undefined) nodes.set(seq, node);
  }
  return nodes;
}

function rebuild(found: Found, sessionId: string, resolveRenderer: RendererResolver, hasher: Hasher): SummaryReplayResult {
  const { event, broken } = found;
  const data = event.data as unknown as CompactionSummaryData & { maxTokens?: number };
  const call = `${callKind(data.summarizer)} of compaction ${data.compactionId} (event #${event.seq})`;
  if ((data as { provenance?: unknown }).provenance === 'imported') throw importedSummary(sessionId, event.seq, data);
  if (data.requestDigest === null || data.rendererVersion === null) {
    throw new ReplayError(
      'no-such-call',
      `compaction ${data.compactionId} used the ${data.summarizer ?? 'extractive'} summarizer, which sends no model request; its summary is the event after #${event.seq}`,
    );
  }
  const nodes: SurfaceNode[] = [];
  for (const seq of data.shadowedSeqs) {
    const node = found.nodes.get(seq);
    if (node === undefined) {
      const detail = `event #${seq}, listed as shadowed, is not a message on the surface at event #${event.seq}`;
      if (broken !== undefined) throw chainBroken(broken, sessionId, call, detail);
      throw new ReplayError('surface-differs', `${call}: ${detail}; the hash chain from seq 0 to ${event.seq} is intact`);
    }
    nodes.push(node);
  }
  const { request, rendered } = renderRecorded(found, nodes, data, resolveRenderer, call);
  const digest = hasher(canonicalJson(rendered.body));
  const recorded = `the digest recorded at event #${event.seq} (${data.requestDigest.slice(0, 16)}…)`;
  if (broken !== undefined) {
    const detail =
      digest === data.requestDigest
        ? `the rebuilt request does hash to ${recorded}, but a digest over a changed log proves nothing`
        : `and ${recorded} does not match the rebuilt request either (${digest.slice(0, 16)}…)`;
    throw chainBroken(broken, sessionId, call, detail);
  }
  if (digest !== data.requestDigest) {
    throw new ReplayError(
      'digest-differs',
      `${call}: ${recorded} does not match the rebuilt request, which hashes to ${digest.slice(0, 16)}…; the hash chain from seq 0 to ${event.seq} is intact, so the log is as it was written, and the renderer (${data.rendererVersion}) now renders it differently`,
    );
  }
  return {
    compactionId: data.compactionId,
    summarizer: data.summarizer === 'native' ? 'native' : 'model',
    seq: event.seq,
    provider: data.provider,
    model: data.model,
    rendererVersion: data.rendererVersion,
    requestDigest: digest,
    verified: true,
    request: rendered.body,
    messages: request.messages,
    policy: found.policy,
  };
}

/** What a compaction's recorded call is called in messages: the summarizer's, or the provider's compaction. */
function callKind(summarizer: string | undefined): string {
  return summarizer === 'native' ? "the provider's compaction call" : 'the summarizer call';
}

/** The recorded request rendered again: the summarizer's, or (summarizer native) the provider's compaction request. */
function renderRecorded(
  found: Found,
  nodes: readonly SurfaceNode[],
  data: CompactionSummaryData & { maxTokens?: number },
  resolveRenderer: RendererResolver,
  call: string,
): { readonly request: ModelRequest; readonly rendered: RenderedRequest } {
  const model = resolveRenderer(data.provider, data.model);
  if (data.summarizer !== 'native') {
    const { request, modelVersion } = recordedSummaryRequest(nodes, data);
    return { request, rendered: model.render(request, modelVersion) };
  }
  if (model.nativeCompaction === undefined) {
    throw new ReplayError(
      'no-such-call',
      `${call}: ${data.provider}/${data.model} made it with its own compaction, which this shadowlog cannot render`,
    );
  }
  if (data.toolsSeq !== undefined && found.tools === undefined) {
    throw new ReplayError(
      'surface-differs',
      `${call}: it names the tools of model/request #${data.toolsSeq}, and the log holds no such call before it`,
    );
  }
  const params = { tools: (found.tools ?? []) as ToolDefinition[] };
  const messages = renderSurface(nodes, SURFACE_RENDERER_VERSION);
  const rendered = model.nativeCompaction.render({ messages, params }, data.rendererVersion ?? undefined);
  return { request: { messages, params: { ...params, stream: false } }, rendered };
}

/** A compaction another harness made: there is no request of shadowlog's to rebuild, so nothing to verify. */
function importedSummary(
  sessionId: string,
  seq: number,
  data: CompactionSummaryData & { source?: unknown; summarizerSessionId?: unknown },
) {
  const source = typeof data.source === 'string' ? data.source : 'another harness';
  const transcript =
    typeof data.summarizerSessionId === 'string' ? `; sub-session ${data.summarizerSessionId} holds the summarizer's transcript` : '';
  return new ReplayError(
    'no-such-call',
    `compaction ${data.compactionId} (event #${seq}) was imported from ${source}: ${data.provider}/${data.model} wrote its summary inside that harness, and no request of it went through shadowlog, so it cannot be byte-verified: there is no recorded request to rebuild. \`shadowlog origins ${sessionId} ${seq + 1}\` shows what it replaced${transcript}`,
  );
}

/**
 * The summarizer request a compaction/summary records, rebuilt from its shadowed nodes (in the
 * order of shadowedSeqs), and the model renderer version it was rendered with.
 */
export function recordedSummaryRequest(
  nodes: readonly SurfaceNode[],
  data: CompactionSummaryData & { readonly maxTokens?: number },
): { readonly request: ModelRequest; readonly modelVersion: string } {
  const [requestVersion = '', modelVersion = ''] = (data.rendererVersion ?? '').split(' ');
  const messages = renderSurface(nodes, SURFACE_RENDERER_VERSION);
  // Version 2 sends the range's earlier summary nodes (replacing user messages) apart, with the target it aimed at.
  const earlierSummaryIndexes = nodes.flatMap((node, index) =>
    node.type === 'user/message' && node.sourceEventSeqs.length > 0 ? [index] : [],
  );
  const request = summaryRequest(messages, data.maxTokens ?? 0, requestVersion, {
    earlierSummaryIndexes,
    ...(data.targetTokens === undefined ? {} : { targetTokens: data.targetTokens }),
  });
  return { request, modelVersion };
}
