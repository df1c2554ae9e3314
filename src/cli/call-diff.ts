// What changed on the surface between two model calls of a session, priced: the nodes appended,
// the nodes replaced (and by what: a compaction's summary, a pruned or masked tool result, a
// client's rewrite), the nodes gone, and the tokens before and after. The change itself is the
// audit page's (view's diffSurfaces); the tokens are the meter's, with the estimator and the
// call estimates `stats --calls` uses (stats-calls.ts), so the three agree.

import { COMPACTION_MASK, COMPACTION_PRUNE, COMPACTION_SUMMARY, meterSessionCalls } from '../compaction/index.js';
import { dataOf, isSurfaceType, type ModelRequestData, offSurfaceReason, ShadowlogError, SurfaceFold } from '../log/index.js';
import { createEstimator, SurfaceMeter } from '../meter/index.js';
import { ReplayError } from '../spine/index.js';
import type { LogStore } from '../store/index.js';
import { type DiffEvent, diffSurfaces, type ReplacementKind, sourcesOf } from '../view/index.js';
import { createCliRegistry } from './registry.js';
import { UsageError } from './usage-error.js';

/** A model call, named as replay and the page name it: turn 3, step 2 is call 3.2. */
export interface CallName {
  readonly turn: number;
  readonly step: number;
}

export interface DiffCall extends CallName {
  /** The seq of its model/request. */
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly provenance: 'sent' | 'imported' | 'proxied';
  /** The nodes of its surface. */
  readonly nodes: number;
  /** Their tokens by the meter's estimator, node by node (what the changes below add up to). */
  readonly surfaceTokens: number;
  /** The whole call as `stats --calls` estimates it: the surface, the fixed part, calibrated. */
  readonly estimatedTokens: number | null;
  /** The input tokens the provider reported; null when none was recorded. */
  readonly reportedInputTokens: number | null;
}

export interface DiffNode {
  readonly seq: number;
  readonly type: string;
  readonly tokens: number;
  /** A node the proxy appended again as a copy of an earlier one (a client's rewrite). */
  readonly copyOf?: number;
}

/** The compaction/summary, compaction/prune or compaction/mask event that made a replacement. */
export interface ReplacedBy {
  readonly seq: number;
  readonly type: string;
  readonly compactionId?: string;
  /** For a compaction imported from another harness: that harness. */
  readonly importedFrom?: string;
}

export interface DiffReplacement extends DiffNode {
  readonly kind: ReplacementKind;
  /** The nodes of the earlier call's surface it stands for. */
  readonly shadowed: readonly DiffNode[];
  /** Nodes it stands for that came onto the surface after the earlier call (and left it before the later one). */
  readonly since: readonly DiffNode[];
  /** Replacements it stands for that came and went between the two calls. */
  readonly via: readonly number[];
  readonly by: ReplacedBy | null;
}

/** An appended node that is itself a replacement, of nodes that came after the earlier call only (a result pruned before it was sent). */
export interface DiffAppended extends DiffNode {
  readonly replaces?: {
    readonly kind: ReplacementKind;
    readonly since: readonly DiffNode[];
    readonly via: readonly number[];
    readonly by: ReplacedBy | null;
  };
}

export interface CallDiffReport {
  readonly sessionId: string;
  readonly estimator: string;
  readonly from: DiffCall;
  readonly to: DiffCall;
  readonly appended: readonly DiffAppended[];
  readonly replaced: readonly DiffReplacement[];
  readonly removed: readonly DiffNode[];
  readonly tokens: {
    readonly before: number;
    readonly after: number;
    readonly appended: number;
    /** The tokens of the earlier call's nodes that were replaced. */
    readonly shadowed: number;
    /** The tokens of what replaced them. */
    readonly replacements: number;
    readonly removed: number;
  };
}

/** A proxied call whose messages are not on the session's surface: it has no surface to compare. */
export class CallOffSurfaceError extends ShadowlogError {
  readonly sessionId: string;
  readonly turn: number;
  readonly step: number;
  readonly seq: number;
  constructor(sessionId: string, call: CallName, seq: number, reason: string) {
    super(
      'CALL_OFF_SURFACE',
      `call ${call.turn}.${call.step} (event #${seq}) of ${sessionId} is not on the session's surface: ${reason}. The proxy stored its bytes, and none of the session's events is what it sent, so it has no surface to diff; \`shadowlog replay ${sessionId} --turn ${call.turn} --step ${call.step}\` lists what its body held`,
    );
    this.sessionId = sessionId;
    this.turn = call.turn;
    this.step = call.step;
    this.seq = seq;
  }
}

interface Found {
  readonly data: ModelRequestData;
  readonly seq: number;
  readonly surface: readonly number[];
}

interface Gathered {
  readonly from: Found;
  readonly to: Found;
  readonly events: ReadonlyMap<number, DiffEvent & { readonly copyOf?: number }>;
  readonly prices: ReadonlyMap<number, number>;
  readonly makers: ReadonlyMap<number, ReplacedBy>;
}

const MAKERS = new Set<string>([COMPACTION_SUMMARY, COMPACTION_PRUNE, COMPACTION_MASK]);

/** The change on the surface from call `from` to the later call `to` of `sessionId`. */
export async function diffCalls(store: LogStore, sessionId: string, from: CallName, to: CallName): Promise<CallDiffReport> {
  const calls = await meterSessionCalls(store, sessionId);
  const meter = new SurfaceMeter(await createEstimator(calls.estimator));
  const gathered = await gather(store, sessionId, from, to, meter);
  if (gathered.from.seq > gathered.to.seq) {
    const [earlier, later] = [`${to.turn}.${to.step}`, `${from.turn}.${from.step}`];
    throw new UsageError(
      `call ${later} (event #${gathered.from.seq}) comes after call ${earlier} (event #${gathered.to.seq}): name the earlier call first (shadowlog diff ${sessionId} ${earlier} ${later})`,
    );
  }
  const { events, prices } = gathered;
  const node = (seq: number): DiffNode => {
    const event = events.get(seq);
    return {
      seq,
      type: event?.type ?? 'unknown',
      tokens: prices.get(seq) ?? 0,
      ...(event?.copyOf === undefined ? {} : { copyOf: event.copyOf }),
    };
  };
  const eventAt = (seq: number) => events.get(seq);
  const makerOf = (seq: number): ReplacedBy | null => {
    for (const source of sourcesOf(events.get(seq))) {
      const maker = gathered.makers.get(source);
      if (maker !== undefined) return maker;
    }
    return null;
  };
  const diff = diffSurfaces(gathered.from.surface, gathered.to.surface, eventAt);
  const appended = diff.appended.map((seq): DiffAppended => {
    const replacement = diff.appendedReplacements.find((change) => change.seq === seq);
    if (replacement === undefined) return node(seq);
    const { kind, since, via } = replacement;
    return { ...node(seq), replaces: { kind, since: since.map(node), via, by: makerOf(seq) } };
  });
  const replaced = diff.replaced.map(
    (change): DiffReplacement => ({
      ...node(change.seq),
      kind: change.kind,
      shadowed: change.shadowed.map(node),
      since: change.since.map(node),
      via: change.via,
      by: makerOf(change.seq),
    }),
  );
  const removed = diff.removed.map(node);
  const sum = (nodes: readonly { tokens: number }[]) => nodes.reduce((total, { tokens }) => total + tokens, 0);
  const callOf = (found: Found): DiffCall => {
    const row = calls.calls.find((call) => call.seq === found.seq);
    const { data } = found;
    return {
      turn: data.turn,
      step: data.step,
      seq: found.seq,
      provider: data.provider,
      model: data.model,
      provenance: data.provenance ?? 'sent',
      nodes: found.surface.length,
      surfaceTokens: sum(found.surface.map(node)),
      estimatedTokens: row?.estimatedTokens ?? null,
      reportedInputTokens: row?.reportedInputTokens ?? null,
    };
  };
  return {
    sessionId,
    estimator: calls.estimator,
    from: callOf(gathered.from),
    to: callOf(gathered.to),
    appended,
    replaced,
    removed,
    tokens: {
      before: sum(gathered.from.surface.map(node)),
      after: sum(gathered.to.surface.map(node)),
      appended: sum(appended),
      shadowed: sum(replaced.flatMap((change) => change.shadowed)),
      replacements: sum(replaced),
      removed: sum(removed),
    },
  };
}

/** One pass over the session up to the later call: both surfaces, and what the diff reads of each event. */
async function gather(store: LogStore, sessionId: string, from: CallName, to: CallName, meter: SurfaceMeter): Promise<Gathered> {
  const fold = new SurfaceFold({ registry: createCliRegistry() });
  const events = new Map<number, DiffEvent & { readonly copyOf?: number }>();
  const prices = new Map<number, number>();
  const makers = new Map<number, ReplacedBy>();
  const turns = new Set<number>();
  let foundFrom: Found | undefined;
  let foundTo: Found | undefined;
  reading: for await (const page of store.read(sessionId)) {
    for (const event of page) {
      fold.apply(event);
      const data = event.data as Record<string, unknown>;
      if (isSurfaceType(event.type)) {
        const copyOf = typeof data.copyOf === 'number' ? data.copyOf : undefined;
        events.set(event.seq, { type: event.type, sourceEventSeqs: event.sourceEventSeqs, ...(copyOf === undefined ? {} : { copyOf }) });
        prices.set(event.seq, meter.priceOfData(event.type, event.data));
      } else if (MAKERS.has(event.type)) {
        events.set(event.seq, { type: event.type });
        makers.set(event.seq, {
          seq: event.seq,
          type: event.type,
          ...(typeof data.compactionId === 'string' ? { compactionId: data.compactionId } : {}),
          ...(data.provenance === 'imported' && typeof data.source === 'string' ? { importedFrom: data.source } : {}),
        });
      } else if (event.type === 'model/request') {
        const request = dataOf(event, 'model/request');
        turns.add(request.turn);
        const isFrom = foundFrom === undefined && request.turn === from.turn && request.step === from.step;
        const isTo = foundTo === undefined && request.turn === to.turn && request.step === to.step;
        if (!isFrom && !isTo) continue;
        const reason = offSurfaceReason(request);
        if (reason !== undefined) throw new CallOffSurfaceError(sessionId, request, event.seq, reason);
        // The fold checked that the surface the request recorded is this one.
        const found = { data: request, seq: event.seq, surface: fold.toArray().map((node) => node.seq) };
        if (isFrom) foundFrom = found;
        if (isTo) foundTo = found;
        if (foundFrom !== undefined && foundTo !== undefined) break reading;
      }
    }
  }
  const missing = foundFrom === undefined ? from : foundTo === undefined ? to : undefined;
  if (missing !== undefined) {
    const sorted = [...turns].sort((a, b) => a - b);
    const known =
      sorted.length === 0
        ? 'it has no model calls'
        : `its model calls are in turns ${sorted.length <= 2 ? sorted.join(' and ') : `${sorted[0]} to ${sorted[sorted.length - 1]}`}`;
    throw new ReplayError(
      'no-such-call',
      `session ${sessionId} has no model call ${missing.turn}.${missing.step} (turn ${missing.turn}, step ${missing.step}); ${known}`,
    );
  }
  return { from: foundFrom as Found, to: foundTo as Found, events, prices, makers };
}
