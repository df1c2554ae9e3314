/// <reference lib="dom" />
// The page's copy of the session: the events and what the server worked out from them, merged
// from the first document and from each follow message; surfaces decoded per call on demand.

import type { SessionWindow } from '../session-window.js';
import type { CallView, ChainView, CompactionView, PolicyView, PruneView, ViewDelta, ViewMeter, ViewProblem } from '../view-data.js';
import { type ClientRewrite, clientRewriteOf } from './client-rewrites.js';
import { diffSurfaces, SURFACE_TYPES, type SurfaceDiff } from './surface-diff.js';
import type { ClientEvent } from './text.js';

export type TimelineItem =
  | { readonly kind: 'turn'; readonly seq: number; readonly turn: number }
  | { readonly kind: 'call'; readonly seq: number }
  | { readonly kind: 'compaction'; readonly seq: number; readonly compactionId: string }
  | { readonly kind: 'prune'; readonly seq: number }
  | { readonly kind: 'seed'; readonly seq: number }
  /** A client's rewrite of its history (the proxy's replacement). */
  | { readonly kind: 'rewrite'; readonly seq: number; readonly rewrite: ClientRewrite }
  /** The call at `seq` asks another model than the call before it. */
  | { readonly kind: 'switch'; readonly seq: number; readonly from: string; readonly to: string };

const CHECKPOINT_EVERY = 32;

export class SessionModel {
  sessionId = '';
  readonly events: ClientEvent[] = [];
  readonly calls: CallView[] = [];
  readonly callIndexBySeq = new Map<number, number>();
  readonly compactions = new Map<string, CompactionView>();
  readonly prunes = new Map<number, PruneView>();
  readonly policies: PolicyView[] = [];
  private readonly originsCache = new Map<number, readonly number[]>();
  readonly timeline: TimelineItem[] = [];
  readonly problems: ViewProblem[] = [];
  /** Which replacement shadowed each event, as of the end of the log. */
  readonly shadowedBy = new Map<number, number>();
  chain: ChainView = { intact: true, firstBrokenSeq: null };
  /** From the first document: the meter, the price table and the window (they do not change while following). */
  meter: ViewMeter | null = null;
  prices: { readonly date: string; readonly source: string } | null = null;
  window: SessionWindow | null = null;
  private readonly surfaces = new Map<number, readonly number[]>();
  /** The event types that are the source's noise (foreign events, as show --record leaves them out): the server names them. */
  readonly noiseTypes = new Set<string>();
  /** The client rewrites, by the seq of the replacement. */
  readonly rewrites = new Map<number, ClientRewrite>();
  /** The calls that ask another model than the call before them. */
  readonly switches: Array<{ readonly seq: number; readonly from: string; readonly to: string }> = [];
  private lastModel: string | undefined;

  /** Merges a document of the server's; false when it does not continue the events held. */
  merge(delta: ViewDelta): boolean {
    if (delta.fromSeq !== this.events.length) return false;
    this.sessionId = delta.sessionId;
    for (const event of delta.events as unknown as ClientEvent[]) {
      this.events.push(event);
      this.addToTimeline(event);
      for (const source of Array.isArray(event.sourceEventSeqs) ? event.sourceEventSeqs : []) this.shadowedBy.set(source, event.seq);
    }
    for (const call of delta.calls) {
      const index = this.callIndexBySeq.get(call.seq);
      if (index === undefined) {
        this.callIndexBySeq.set(call.seq, this.calls.length);
        this.calls.push(call);
      } else {
        this.calls[index] = call;
      }
    }
    for (const type of delta.noiseTypes ?? []) this.noiseTypes.add(type);
    for (const compaction of delta.compactions) this.compactions.set(compaction.compactionId, compaction);
    for (const prune of delta.prunes) this.prunes.set(prune.seq, prune);
    for (const policy of delta.policies) if (!this.policies.some((known) => known.seq === policy.seq)) this.policies.push(policy);
    for (const problem of delta.problems) if (!this.problems.some((known) => known.seq === problem.seq)) this.problems.push(problem);
    this.chain = delta.chain;
    return true;
  }

  private addToTimeline(event: ClientEvent): void {
    const data = event.data ?? {};
    if (event.type === 'turn/start') this.timeline.push({ kind: 'turn', seq: event.seq, turn: Number(data.turn) });
    else if (event.type === 'model/request') {
      const model = `${String(data.provider)}/${String(data.model)}`;
      if (this.lastModel !== undefined && model !== this.lastModel) {
        const change = { seq: event.seq, from: this.lastModel, to: model };
        this.switches.push(change);
        this.timeline.push({ kind: 'switch', ...change });
      }
      this.lastModel = model;
      this.timeline.push({ kind: 'call', seq: event.seq });
    } else if (event.type === 'compaction/start')
      this.timeline.push({ kind: 'compaction', seq: event.seq, compactionId: String(data.compactionId) });
    else if (event.type === 'compaction/prune') this.timeline.push({ kind: 'prune', seq: event.seq });
    else if (event.type === 'session/end-seed') this.timeline.push({ kind: 'seed', seq: event.seq });
    else {
      const rewrite = clientRewriteOf(event, (seq) => this.events[seq]);
      if (rewrite !== undefined) {
        this.rewrites.set(event.seq, rewrite);
        this.timeline.push({ kind: 'rewrite', seq: event.seq, rewrite });
      }
    }
  }

  /** Does the event at `seq` replace earlier nodes (a summary, a pruned result)? */
  isReplacement(seq: number): boolean {
    const op = this.events[seq]?.surfaceOp as { op?: unknown } | undefined;
    return typeof op === 'object' && op !== null && op.op === 'replace';
  }

  /**
   * The append-origin events the surface event at `seq` stands for, ascending (SPEC §3, as
   * log/origins.ts computes them): its sourceEventSeqs expanded recursively, log-only events
   * left out, a copy (data.copyOf) followed to what it copies.
   */
  originsOf(seq: number): readonly number[] {
    const cached = this.originsCache.get(seq);
    if (cached !== undefined) return cached;
    const found = new Set<number>();
    const stack: number[] = [seq];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const at = stack.pop() as number;
      const event = this.events[at];
      if (event === undefined || seen.has(at) || !SURFACE_TYPES.has(event.type)) continue;
      seen.add(at);
      if (!this.isReplacement(at)) {
        const copyOf = event.data?.copyOf;
        if (typeof copyOf === 'number' && copyOf < at) stack.push(copyOf);
        else found.add(at);
        continue;
      }
      for (const source of Array.isArray(event.sourceEventSeqs) ? event.sourceEventSeqs : []) stack.push(source);
    }
    const origins = [...found].sort((a, b) => a - b);
    this.originsCache.set(seq, origins);
    return origins;
  }

  compactionAt(seq: number): CompactionView | undefined {
    for (const compaction of this.compactions.values()) if (compaction.startSeq === seq) return compaction;
    return undefined;
  }

  /** The policy in force at `seq`: the latest recorded before it. */
  policyAt(seq: number): PolicyView | undefined {
    let found: PolicyView | undefined;
    for (const policy of this.policies) if (policy.seq < seq) found = policy;
    return found;
  }

  /** The seqs of the surface call `index` was sent. */
  surfaceOf(index: number): readonly number[] {
    const cached = this.surfaces.get(index);
    if (cached !== undefined) return cached;
    let start = index;
    while (start > 0 && !this.surfaces.has(start - 1) && 'surfaceChange' in (this.calls[start]?.surface ?? {})) start--;
    let previous = start > 0 ? this.surfaces.get(start - 1) : undefined;
    let seqs: readonly number[] = [];
    for (let at = start; at <= index; at++) {
      seqs = decodeSurface(this.calls[at] as CallView, previous);
      if (at === index || at % CHECKPOINT_EVERY === 0) this.surfaces.set(at, seqs);
      previous = seqs;
    }
    return seqs;
  }

  /** The change from the call before `index` to it (everything appended, for the first). */
  diffOf(index: number): SurfaceDiff {
    return diffSurfaces(index > 0 ? this.surfaceOf(index - 1) : [], this.surfaceOf(index), (seq) => this.events[seq]);
  }
}

/** A call's surface list: its plain list, or its change applied to the previous call's list. */
function decodeSurface(call: CallView, previous: readonly number[] | undefined): readonly number[] {
  if ('surfaceSeqs' in call.surface) return call.surface.surfaceSeqs;
  const base = previous ?? [];
  const out: number[] = [];
  let cursor = 0;
  for (const splice of call.surface.surfaceChange.splices) {
    const [position, deleteCount] = splice;
    for (let at = cursor; at < position; at++) out.push(base[at] as number);
    for (let at = 2; at < splice.length; at++) out.push(splice[at] as number);
    cursor = position + deleteCount;
  }
  for (let at = cursor; at < base.length; at++) out.push(base[at] as number);
  return out;
}
