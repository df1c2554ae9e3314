/// <reference lib="dom" />
// The page's copy of the session: its structure (each event's type, what each replacement
// stands for) and every call's figures, merged from the first document and from each follow
// message; the events' content and the calls' details loaded a block at a time when a list
// shows them (page-source.ts), and surfaces decoded per call on demand.

import type { SessionWindow } from '../session-window.js';
import type {
  CallView,
  ChainView,
  CompactionView,
  PageDelta,
  PolicyView,
  PruneView,
  ViewBranches,
  ViewMeter,
  ViewProblem,
} from '../view-data.js';
import { type ClientRewrite, clientRewriteOf } from './client-rewrites.js';
import { CALL_BLOCK, type CallSummary, decodeCallRow, EVENT_BLOCK } from './page-blocks.js';
import type { DataSource } from './page-source.js';
import { diffSurfaces, SURFACE_TYPES, type SurfaceDiff } from './surface-diff.js';
import type { ClientEvent } from './text.js';

export type TimelineItem =
  | { readonly kind: 'turn'; readonly seq: number; readonly turn: number }
  | { readonly kind: 'call'; readonly seq: number }
  | { readonly kind: 'compaction'; readonly seq: number }
  | { readonly kind: 'prune'; readonly seq: number }
  | { readonly kind: 'seed'; readonly seq: number }
  /** A client's rewrite of its history (the proxy's replacement). */
  | { readonly kind: 'rewrite'; readonly seq: number; readonly rewrite: ClientRewrite }
  /** The call at `seq` asks another model than the call before it. */
  | { readonly kind: 'switch'; readonly seq: number; readonly from: string; readonly to: string };

/** What the structure tells of an event: enough for origins, surface changes and client rewrites. */
export interface StructureEvent {
  readonly seq: number;
  readonly type: string;
  readonly surfaceOp?: { readonly op: 'replace' };
  readonly sourceEventSeqs?: readonly number[];
  readonly data: { readonly copyOf?: number };
}

/** Blocks of content kept at once: a long session's page holds a window of it, not all. */
const KEPT_BLOCKS = 64;

export class SessionModel {
  sessionId = '';
  eventCount = 0;
  headHash: string | null = null;
  private typeNames: readonly string[] = [];
  private readonly types: number[] = [];
  private readonly sources = new Map<number, { readonly replaces: boolean; readonly seqs: readonly number[] }>();
  private readonly copies = new Map<number, number>();
  readonly calls: CallSummary[] = [];
  readonly callIndexBySeq = new Map<number, number>();
  readonly compactions = new Map<string, CompactionView>();
  private readonly compactionsByStart = new Map<number, CompactionView>();
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
  /** The session's parent when it is a branch, and its branches. */
  branches: ViewBranches | null = null;
  /** The event types that are the source's noise (foreign events, as show --record leaves them out): the server names them. */
  readonly noiseTypes = new Set<string>();
  /** The client rewrites, by the seq of the replacement. */
  readonly rewrites = new Map<number, ClientRewrite>();
  /** The calls that ask another model than the call before them. */
  readonly switches: Array<{ readonly seq: number; readonly from: string; readonly to: string }> = [];
  private lastModel: string | undefined;
  /** Where content comes from (none in a test that reads only the structure). */
  source: DataSource | undefined;
  private readonly eventBlocks = new Map<number, readonly ClientEvent[]>();
  private readonly eventLoads = new Map<number, Promise<void>>();
  private readonly callBlocks = new Map<number, readonly CallView[]>();
  private readonly callLoads = new Map<number, Promise<void>>();
  private readonly surfaces = new Map<number, readonly number[]>();

  /** Merges a document of the server's; false when its structure does not continue the events held. */
  merge(delta: PageDelta): boolean {
    const structure = delta.structure;
    if (structure.types.length > 0 && delta.fromSeq !== this.eventCount) return false;
    this.sessionId = delta.sessionId;
    this.typeNames = structure.typeNames;
    const rows = delta.calls.map(decodeCallRow);
    const models = new Map(rows.map((call) => [call.seq, `${call.provider}/${call.model}`]));
    for (const compaction of delta.compactions) {
      this.compactions.set(compaction.compactionId, compaction);
      this.compactionsByStart.set(compaction.startSeq, compaction);
    }
    const listed = new Map<number, readonly number[]>();
    for (const entry of structure.sources) listed.set(entry[0] as number, entry);
    const turns = new Map<number, number>();
    for (let at = 0; at + 1 < structure.turns.length; at += 2) turns.set(structure.turns[at] as number, structure.turns[at + 1] as number);
    for (let at = 0; at + 1 < structure.copies.length; at += 2)
      this.copies.set(structure.copies[at] as number, structure.copies[at + 1] as number);
    for (const [index, type] of structure.types.entries()) {
      const seq = delta.fromSeq + index;
      this.types.push(type);
      this.eventCount = seq + 1;
      const entry = listed.get(seq);
      if (entry !== undefined) {
        const seqs = entry.slice(2);
        this.sources.set(seq, { replaces: entry[1] === 1, seqs });
        for (const source of seqs) this.shadowedBy.set(source, seq);
      }
      this.addToTimeline(seq, this.typeNames[type] ?? '', turns, models);
    }
    for (const call of rows) {
      const index = this.callIndexBySeq.get(call.seq);
      if (index === undefined) {
        this.callIndexBySeq.set(call.seq, this.calls.length);
        this.calls.push(call);
      } else {
        this.calls[index] = call;
        // Its details changed (a check, an answer): read them again when next shown.
        this.callBlocks.delete(Math.floor(index / CALL_BLOCK));
      }
    }
    if (delta.headHash !== null && delta.toSeq >= this.eventCount) this.headHash = delta.headHash;
    for (const type of delta.noiseTypes ?? []) this.noiseTypes.add(type);
    for (const prune of delta.prunes) this.prunes.set(prune.seq, prune);
    for (const policy of delta.policies) if (!this.policies.some((known) => known.seq === policy.seq)) this.policies.push(policy);
    for (const problem of delta.problems) if (!this.problems.some((known) => known.seq === problem.seq)) this.problems.push(problem);
    this.chain = delta.chain;
    return true;
  }

  private addToTimeline(seq: number, type: string, turns: ReadonlyMap<number, number>, models: ReadonlyMap<number, string>): void {
    if (type === 'turn/start') this.timeline.push({ kind: 'turn', seq, turn: turns.get(seq) ?? Number.NaN });
    else if (type === 'model/request') {
      const model = models.get(seq);
      if (model !== undefined && this.lastModel !== undefined && model !== this.lastModel) {
        const change = { seq, from: this.lastModel, to: model };
        this.switches.push(change);
        this.timeline.push({ kind: 'switch', ...change });
      }
      if (model !== undefined) this.lastModel = model;
      this.timeline.push({ kind: 'call', seq });
    } else if (type === 'compaction/start') this.timeline.push({ kind: 'compaction', seq });
    else if (type === 'compaction/prune') this.timeline.push({ kind: 'prune', seq });
    else if (type === 'session/end-seed') this.timeline.push({ kind: 'seed', seq });
    else if (this.sources.has(seq)) {
      const rewrite = clientRewriteOf(this.structureAt(seq), (at) => this.structureAt(at));
      if (rewrite !== undefined) {
        this.rewrites.set(seq, rewrite);
        this.timeline.push({ kind: 'rewrite', seq, rewrite });
      }
    }
  }

  /** The type of the event at `seq`. */
  typeOf(seq: number): string | undefined {
    const type = this.types[seq];
    return type === undefined ? undefined : this.typeNames[type];
  }

  /** The types of the events up to `upToSeq`, each once, sorted. */
  typesUpTo(upToSeq: number): string[] {
    const present = new Set<number>();
    const last = Math.min(upToSeq, this.types.length - 1);
    for (let seq = 0; seq <= last; seq++) present.add(this.types[seq] as number);
    return [...present].map((type) => this.typeNames[type] as string).sort();
  }

  /** What the structure tells of the event at `seq`. */
  structureAt(seq: number): StructureEvent | undefined {
    const type = this.typeOf(seq);
    if (type === undefined) return undefined;
    const listed = this.sources.get(seq);
    const copyOf = this.copies.get(seq);
    return {
      seq,
      type,
      ...(listed?.replaces === true ? { surfaceOp: { op: 'replace' as const } } : {}),
      ...(listed === undefined ? {} : { sourceEventSeqs: listed.seqs }),
      data: copyOf === undefined ? {} : { copyOf },
    };
  }

  /** The event at `seq` with its content, when its block is loaded (loadEvents). */
  event(seq: number): ClientEvent | undefined {
    return this.eventBlocks.get(Math.floor(seq / EVENT_BLOCK))?.[seq % EVENT_BLOCK];
  }

  /** Loads the blocks holding `seqs`; resolves when each is in. */
  async loadEvents(seqs: Iterable<number>): Promise<void> {
    const blocks = new Set<number>();
    for (const seq of seqs) if (seq >= 0 && seq < this.eventCount) blocks.add(Math.floor(seq / EVENT_BLOCK));
    await Promise.all([...blocks].map((block) => this.loadEventBlock(block)));
  }

  private loadEventBlock(block: number): Promise<void> {
    if (this.eventBlocks.has(block)) return Promise.resolve();
    const source = this.source;
    if (source === undefined) return Promise.reject(new Error('this page has no source of content'));
    let loading = this.eventLoads.get(block);
    if (loading === undefined) {
      const count = Math.min(EVENT_BLOCK, this.eventCount - block * EVENT_BLOCK);
      loading = source.eventBlock(block, count).then(
        (events) => {
          this.eventLoads.delete(block);
          this.eventBlocks.set(block, events);
          // The oldest loaded block goes first when too many are held.
          if (this.eventBlocks.size > KEPT_BLOCKS) this.eventBlocks.delete(this.eventBlocks.keys().next().value as number);
        },
        (error: unknown) => {
          this.eventLoads.delete(block);
          throw error;
        },
      );
      this.eventLoads.set(block, loading);
    }
    return loading;
  }

  /** The details of call `index`, when its block is loaded (loadCalls). */
  callDetail(index: number): CallView | undefined {
    return this.callBlocks.get(Math.floor(index / CALL_BLOCK))?.[index % CALL_BLOCK];
  }

  /** Loads the details of the calls at `indexes`. */
  async loadCalls(indexes: Iterable<number>): Promise<void> {
    const blocks = new Set<number>();
    for (const index of indexes) if (index >= 0 && index < this.calls.length) blocks.add(Math.floor(index / CALL_BLOCK));
    await Promise.all([...blocks].map((block) => this.loadCallBlock(block)));
  }

  private loadCallBlock(block: number): Promise<void> {
    if (this.callBlocks.has(block)) return Promise.resolve();
    const source = this.source;
    if (source === undefined) return Promise.reject(new Error('this page has no source of content'));
    let loading = this.callLoads.get(block);
    if (loading === undefined) {
      const count = Math.min(CALL_BLOCK, this.calls.length - block * CALL_BLOCK);
      loading = source.callBlock(block, count).then(
        (calls) => {
          this.callLoads.delete(block);
          this.callBlocks.set(block, calls);
          for (let at = 0; at < calls.length; at++) this.surfaces.delete(block * CALL_BLOCK + at);
          if (this.callBlocks.size > KEPT_BLOCKS) this.callBlocks.delete(this.callBlocks.keys().next().value as number);
        },
        (error: unknown) => {
          this.callLoads.delete(block);
          throw error;
        },
      );
      this.callLoads.set(block, loading);
    }
    return loading;
  }

  /** Does the event at `seq` replace earlier nodes (a summary, a pruned result)? */
  isReplacement(seq: number): boolean {
    return this.sources.get(seq)?.replaces === true;
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
      const type = this.typeOf(at);
      if (type === undefined || seen.has(at) || !SURFACE_TYPES.has(type)) continue;
      seen.add(at);
      if (!this.isReplacement(at)) {
        const copyOf = this.copies.get(at);
        if (copyOf !== undefined && copyOf < at) stack.push(copyOf);
        else found.add(at);
        continue;
      }
      for (const source of this.sources.get(at)?.seqs ?? []) stack.push(source);
    }
    const origins = [...found].sort((a, b) => a - b);
    this.originsCache.set(seq, origins);
    return origins;
  }

  compactionAt(seq: number): CompactionView | undefined {
    return this.compactionsByStart.get(seq);
  }

  /** The policy in force at `seq`: the latest recorded before it. */
  policyAt(seq: number): PolicyView | undefined {
    let found: PolicyView | undefined;
    for (const policy of this.policies) if (policy.seq < seq) found = policy;
    return found;
  }

  /** Loads what surfaceOf and diffOf need for call `index`: its details and the call's before. */
  loadSurface(index: number): Promise<void> {
    return this.loadCalls([index - 1, index]);
  }

  /** The seqs of the surface call `index` was sent (its details loaded: loadSurface). */
  surfaceOf(index: number): readonly number[] {
    const cached = this.surfaces.get(index);
    if (cached !== undefined) return cached;
    // Each block opens with a plain list: decode from there.
    const start = index - (index % CALL_BLOCK);
    let previous: readonly number[] | undefined;
    let seqs: readonly number[] = [];
    for (let at = start; at <= index; at++) {
      const call = this.callDetail(at);
      if (call === undefined) throw new Error(`call ${at + 1}'s details are not loaded`);
      seqs = this.surfaces.get(at) ?? decodeSurface(call, previous);
      this.surfaces.set(at, seqs);
      previous = seqs;
    }
    return seqs;
  }

  /** The change from the call before `index` to it (everything appended, for the first). */
  diffOf(index: number): SurfaceDiff {
    return diffSurfaces(index > 0 ? this.surfaceOf(index - 1) : [], this.surfaceOf(index), (seq) => this.structureAt(seq));
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
