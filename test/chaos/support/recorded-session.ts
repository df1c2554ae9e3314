// A real recorded session for replay tests: the harness with a scripted model, a tool, and
// compaction with a model summarizer, so that its log holds model/request events and
// compaction/summary events whose digests are the ones actually computed when they were sent.
// And what an attacker with access to the stored rows does after changing an event: recompute
// the digest of a request over the changed log, so that the digest alone would still "verify".

import { z } from 'zod';
import { createCliRegistry } from '../../../src/cli/registry.js';
import { rendererFor } from '../../../src/cli/renderers.js';
import { createCompaction } from '../../../src/compaction/compaction-capability.js';
import type { CompactionSummaryData } from '../../../src/compaction/event-types.js';
import { recordedSummaryRequest } from '../../../src/compaction/replay-summary.js';
import { canonicalJson } from '../../../src/log/canonical-json.js';
import type { LogEvent, SentModelRequestData } from '../../../src/log/event.js';
import { SurfaceFold } from '../../../src/log/surface-fold.js';
import type { ModelParams } from '../../../src/providers/language-model.js';
import { type ScriptedCall, ScriptedModel } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { renderSurface, SURFACE_RENDERER_VERSION } from '../../../src/spine/render-surface.js';
import { defineTool } from '../../../src/spine/tool.js';
import type { LogStore } from '../../../src/store/log-store.js';
import { nodeSha256Hex } from '../../../src/store/node-sha256.js';
import { SELF_SUMMARIZING_LIMITS, SELF_SUMMARIZING_POLICY } from '../../support/self-summarizing-session.js';

const LIMITS = SELF_SUMMARIZING_LIMITS;

const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => `${topic}: ${'fact '.repeat(120)}`,
});

/** Answers summary requests (no tools offered) with a short summary, and plays an agent otherwise. */
function replies(call: ScriptedCall) {
  const tools = call.body.tools as unknown[];
  if (tools.length === 0) return { text: 'The user asked about several topics; each was looked up.' };
  const last = call.messages[call.messages.length - 1];
  return last?.role === 'user'
    ? { toolCalls: [{ name: 'lookup', arguments: { topic: `topic ${call.index}` } }] }
    : { text: `Noted. ${'detail '.repeat(30)}` };
}

/** Records `turns` turns of a session that compacts with a model summarizer; returns its events. */
export async function recordSession(store: LogStore, sessionId: string, turns = 14): Promise<LogEvent[]> {
  const model = new ScriptedModel({ replies, limits: LIMITS });
  const compaction = createCompaction({ config: { ...SELF_SUMMARIZING_POLICY, summarizer: { kind: 'session-model' } } });
  const harness = createHarness({ store, model, tools: [lookup], capabilities: [compaction] });
  const session = await harness.createSession(sessionId);
  for (let turn = 1; turn <= turns; turn++) await session.send(`Tell me about thing ${turn}.`);
  await session.close();
  return readAll(store, sessionId);
}

export async function readAll(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** The surface before `seq`, folded without any hash check (as an attacker's own tool would). */
function surfaceBefore(events: readonly LogEvent[], seq: number) {
  const fold = new SurfaceFold({ registry: createCliRegistry() });
  for (const event of events.slice(0, seq)) fold.apply(event);
  return fold;
}

/** The digest of the model/request at `seq`, recomputed over `events` as they are now. */
export function redigestRequest(events: readonly LogEvent[], seq: number): string {
  const request = events[seq] as LogEvent;
  const data = request.data as unknown as SentModelRequestData;
  const messages = renderSurface(surfaceBefore(events, seq).toArray(), SURFACE_RENDERER_VERSION);
  const [, modelVersion] = data.rendererVersion.split(' ');
  const rendered = rendererFor(data.provider, data.model).render({ messages, params: data.params as unknown as ModelParams }, modelVersion);
  return nodeSha256Hex(canonicalJson(rendered.body));
}

/** The digest of the summarizer request of the compaction/summary at `seq`, recomputed over `events`. */
export function redigestSummary(events: readonly LogEvent[], seq: number): string {
  const summary = events[seq] as LogEvent;
  const data = summary.data as unknown as CompactionSummaryData & { maxTokens?: number };
  const fold = surfaceBefore(events, seq);
  const nodes = data.shadowedSeqs.map((shadowed) => fold.node(shadowed)).filter((node) => node !== undefined);
  const { request, modelVersion } = recordedSummaryRequest(nodes, data);
  return nodeSha256Hex(canonicalJson(rendererFor(data.provider, data.model).render(request, modelVersion).body));
}

/** An event's stored body with one text of its data changed (a user's or a tool's words). */
export function withChangedText(event: LogEvent, replacement: string): string {
  const data = structuredClone(event.data) as { content?: Array<{ type: string; text?: string }> };
  const block = data.content?.find((candidate) => candidate.type === 'text');
  if (block === undefined) throw new Error(`event ${event.seq} (${event.type}) has no text to change`);
  block.text = replacement;
  return canonicalJson({ ...event, data });
}

/** A stored body with the requestDigest of its data replaced. */
export function withDigest(event: LogEvent, requestDigest: string): string {
  return canonicalJson({ ...event, data: { ...event.data, requestDigest } });
}
