// Replay of a summarizer call (SPEC §4): the request a compaction sent to its summarizer
// model, rebuilt from the shadowed events and checked against the digest it recorded.

import { canonicalJson } from '../log/canonical-json.js';
import { isSurfaceType, type JsonObject, type LogEvent } from '../log/event.js';
import type { SessionSeq } from '../log/seq.js';
import { sha256Hex } from '../log/sha256.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import type { ModelMessage } from '../providers/language-model.js';
import { renderSurface, SURFACE_RENDERER_VERSION } from '../spine/render-surface.js';
import type { RendererResolver } from '../spine/replay.js';
import { ReplayError } from '../spine/spine-errors.js';
import type { LogStore } from '../store/log-store.js';
import { COMPACTION_SUMMARY, type CompactionSummaryData } from './event-types.js';
import { summaryRequest } from './summarizer.js';

export interface SummaryReplayResult {
  readonly compactionId: string;
  /** The seq of the compaction/summary event. */
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly rendererVersion: string;
  readonly requestDigest: string;
  readonly verified: true;
  readonly request: JsonObject;
  readonly messages: readonly ModelMessage[];
}

/** `compactionId` may be a unique prefix of the id (as `show --record` prints eight characters). */
export async function replaySummary(
  store: LogStore,
  sessionId: string,
  compactionId: string,
  resolveRenderer: RendererResolver,
): Promise<SummaryReplayResult> {
  const matches: LogEvent[] = [];
  for await (const page of store.read(sessionId)) {
    for (const event of page)
      if (event.type === COMPACTION_SUMMARY && String(event.data.compactionId).startsWith(compactionId)) matches.push(event);
  }
  const event = matches[0];
  if (event === undefined)
    throw new ReplayError(
      'no-such-call',
      `session ${sessionId} has no compaction ${compactionId}; \`shadowlog show ${sessionId} --record\` lists them`,
    );
  if (matches.length > 1)
    throw new ReplayError('no-such-call', `${compactionId} names ${matches.length} compactions of ${sessionId}; give more of the id`);
  const data = event.data as unknown as CompactionSummaryData & { maxTokens?: number };
  if (data.requestDigest === null || data.rendererVersion === null) {
    throw new ReplayError(
      'no-such-call',
      `compaction ${data.compactionId} used the ${data.summarizer ?? 'extractive'} summarizer, which sends no model request; its summary is the event after #${event.seq}`,
    );
  }
  const nodes: SurfaceNode[] = [];
  for (const seq of data.shadowedSeqs) {
    const shadowed = await store.readEvent(sessionId, seq);
    if (!isSurfaceType(shadowed.type))
      throw new ReplayError(
        'surface-differs',
        `event #${seq}, listed as shadowed by compaction ${data.compactionId}, is a ${shadowed.type}, not a message`,
      );
    nodes.push({ seq: seq as SessionSeq, type: shadowed.type, sourceEventSeqs: shadowed.sourceEventSeqs ?? [], event: shadowed });
  }
  const [requestVersion = '', modelVersion = ''] = data.rendererVersion.split(' ');
  const messages = renderSurface(nodes, SURFACE_RENDERER_VERSION);
  const model = resolveRenderer(data.provider, data.model);
  // Version 2 sends the range's earlier summary nodes (replacing user messages) apart, with the target it aimed at.
  const earlierSummaryIndexes = nodes.flatMap((node, index) =>
    node.type === 'user/message' && node.sourceEventSeqs.length > 0 ? [index] : [],
  );
  const request = summaryRequest(messages, data.maxTokens ?? 0, requestVersion, {
    earlierSummaryIndexes,
    ...(data.targetTokens === undefined ? {} : { targetTokens: data.targetTokens }),
  });
  const rendered = model.render(request, modelVersion);
  const digest = sha256Hex(canonicalJson(rendered.body));
  if (digest !== data.requestDigest) {
    throw new ReplayError(
      'digest-differs',
      `compaction ${data.compactionId}: the rebuilt summarizer request hashes to ${digest.slice(0, 16)}…, but ${data.requestDigest.slice(0, 16)}… was recorded at event #${event.seq}`,
    );
  }
  return {
    compactionId: data.compactionId,
    seq: event.seq,
    provider: data.provider,
    model: data.model,
    rendererVersion: data.rendererVersion,
    requestDigest: digest,
    verified: true,
    request: rendered.body,
    messages: request.messages,
  };
}
