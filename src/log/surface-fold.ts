// The incremental surface fold (SPEC §3): the state every reader and writer builds from a log.
// Applying one event costs time proportional to what it changes, never to the log; the fold
// keeps the current surface nodes, the open tool calls on them, and one bit per event.

import { formatVersionOf, isCoreType } from './core-shapes.js';
import { CorruptLogError, FoldStateError, InvalidEventError, SurfaceOpError, UnknownEventTypeError } from './errors.js';
import { FORMAT_VERSION, type FormatVersion, isSurfaceType, type LogEvent, type ModelRequestData, type SurfaceType } from './event.js';
import { appliedDataOf } from './event-data.js';
import { EventTypeRegistry } from './event-types.js';
import type { FoldState } from './fold-state.js';
import { checkForeignEvent, isForeignType } from './foreign-event.js';
import { checkForkEvent } from './fork-point.js';
import { GENESIS_HASH } from './hash.js';
import { MeteringLedger } from './metering-ledger.js';
import { checkReplacementRules } from './replacement-rules.js';
import { checkSources } from './replacement-sources.js';
import { RequestSurfaces } from './request-surface.js';
import type { SessionSeq } from './seq.js';
import type { RequestSurfaceList } from './surface-change.js';
import { isReplaceOp, parseSurfaceOp } from './surface-op.js';

/** One entry of the surface: an event the model is shown, and what it stands for. */
export interface SurfaceNode {
  readonly seq: SessionSeq;
  readonly type: SurfaceType;
  /** The events this node replaced; `[]` for an appended node. */
  readonly sourceEventSeqs: readonly SessionSeq[];
  readonly event: LogEvent;
}

interface LinkedNode extends SurfaceNode {
  /** Orders current nodes by position: a replacement takes the label of its first shadowed node. */
  readonly label: number;
  prev: LinkedNode | undefined;
  next: LinkedNode | undefined;
}

interface ToolCallState {
  readonly callNode: LinkedNode;
  resultNode: LinkedNode | undefined;
}

export interface SurfaceFoldOptions {
  /** Types besides the core ones that this reader knows (compaction registers its own). */
  readonly registry?: EventTypeRegistry;
}

const NO_SEQS: readonly SessionSeq[] = Object.freeze([]);

/** The undo of an application that changed nothing to undo. */
const NOTHING_TO_UNDO = (): void => {};

/** One undo that runs `second`, then `first` (the reverse of the order they were done in). */
function bothUndone(second: () => void, first: () => void): () => void {
  return () => {
    second();
    first();
  };
}

export class SurfaceFold {
  readonly registry: EventTypeRegistry;
  private first: LinkedNode | undefined;
  private last: LinkedNode | undefined;
  private readonly bySeq = new Map<number, LinkedNode>();
  private readonly calls = new Map<string, ToolCallState>();
  private readonly meters = new MeteringLedger();
  private surfaceBits: Uint8Array = new Uint8Array(1024);
  private labels = 0;
  private applied = 0;
  private headHash = GENESIS_HASH;
  private version: FormatVersion = FORMAT_VERSION;
  private readonly requests = new RequestSurfaces();
  /** The hash of event 0: which session's history this is. */
  private startHash = GENESIS_HASH;
  /** Each type seen that is not a core type, with what this registry made of it (a checkpoint names them). */
  private readonly extensionTypes = new Map<string, { readonly known: boolean; readonly metering: boolean }>();

  constructor(options: SurfaceFoldOptions = {}) {
    this.registry = options.registry ?? new EventTypeRegistry();
  }

  /** The seq the next event must have: the number of events applied. */
  get nextSeq(): number {
    return this.applied;
  }

  /** The hash of the last applied event (64 zeros before the first). */
  get lastHash(): string {
    return this.headHash;
  }

  /** The hash of event 0 (64 zeros before it): it tells this session's history from another's. */
  get firstHash(): string {
    return this.startHash;
  }

  /** The format version of the session, as its session/start names it (before seq 0: the version new sessions get). */
  get formatVersion(): FormatVersion {
    return this.version;
  }

  /** The latest model/request applied, with the seqs of the surface it rendered (decoded); read it before the next event is applied. */
  get lastRequestSurface(): RequestSurfaceList | undefined {
    return this.requests.latest;
  }

  /**
   * The seqs of the nodes appended to the surface since the latest model/request applied, in
   * order, when the surface has only grown since (it is then that request's list followed by
   * these); undefined after a replacement, or before any model/request. A writer encodes its next
   * request from this in time proportional to the change (encodeGrownSurface), not to the surface.
   */
  get appendedSinceLastRequest(): readonly number[] | undefined {
    return this.requests.appendedSinceLatest;
  }

  /**
   * The seqs a model/request not yet applied rendered, decoded against the latest one applied
   * (replay reads a call before applying it). Throws InvalidEventError when they cannot be decoded.
   */
  requestSurfaceSeqs(data: ModelRequestData, seq: number): readonly number[] {
    return this.requests.decode(data, seq);
  }

  /** The number of nodes on the surface. */
  get size(): number {
    return this.bySeq.size;
  }

  /** Is `seq` a node of the current surface? */
  isCurrent(seq: number): boolean {
    return this.bySeq.has(seq);
  }

  node(seq: number): SurfaceNode | undefined {
    return this.bySeq.get(seq);
  }

  /** The node standing right after the current node `seq` on the surface. */
  nodeAfter(seq: number): SurfaceNode | undefined {
    return this.bySeq.get(seq)?.next;
  }

  /** Was the event at `seq` of a surface type? (One bit per event is kept for this.) */
  isSurfaceEvent(seq: number): boolean {
    return seq < this.applied && ((this.surfaceBits[seq >>> 3] as number) & (1 << (seq & 7))) !== 0;
  }

  /** Metering events (compaction's summary and prune) that no replacement has claimed yet. */
  unclaimedMeteringEvents(): ReadonlyArray<{ readonly seq: number; readonly type: string }> {
    return this.meters.unclaimed().map(({ seq, type }) => ({ seq, type }));
  }

  /** Tool calls on the surface that have no result yet, in the order they were made. */
  pendingToolCalls(): Array<{ readonly callId: string; readonly callSeq: SessionSeq }> {
    const pending: Array<{ callId: string; callSeq: SessionSeq }> = [];
    for (const [callId, state] of this.calls) if (state.resultNode === undefined) pending.push({ callId, callSeq: state.callNode.seq });
    return pending;
  }

  *nodes(): IterableIterator<SurfaceNode> {
    for (let node = this.first; node !== undefined; node = node.next) yield node;
  }

  toArray(): SurfaceNode[] {
    const out: SurfaceNode[] = [];
    for (let node = this.first; node !== undefined; node = node.next) out.push(node);
    return out;
  }

  /**
   * Checks `event` against every rule of SPEC §2–§3 and applies it. Returns a function that
   * undoes exactly this application (for atomic batches). Throws, changing nothing, when the
   * event is refused.
   */
  apply(event: LogEvent): () => void {
    const { seq, type } = event;
    if (seq !== this.applied) {
      throw new CorruptLogError(`expected event seq ${this.applied}, found ${seq}; seqs are dense and start at 0`, { seq });
    }
    if (seq === 0 && type !== 'session/start') {
      throw new InvalidEventError('type', 'session/start (the first event of a session)', type, seq);
    }
    if (seq !== 0 && type === 'session/start') {
      throw new InvalidEventError('type', 'anything but session/start, which stands only at seq 0', type, seq);
    }
    const known = this.registry.isKnown(type);
    const version = seq === 0 ? formatVersionOfStart(this.registry, event) : this.version;
    if (!known && version >= 2 && isForeignType(type)) checkForeignEvent(event, seq);
    if (!known && event.ignorable !== true) throw new UnknownEventTypeError(type, seq);
    this.registry.validateData(type, event.data, seq, version);
    if (type === 'session/fork') checkForkEvent(event, this);
    const newType = !isSurfaceType(type) && !this.extensionTypes.has(type) && !isCoreType(type);

    let undo: () => void;
    if (!isSurfaceType(type)) {
      if (event.surfaceOp !== undefined || event.sourceEventSeqs !== undefined) {
        throw new SurfaceOpError(
          'not-surface-type',
          seq,
          `${type} is a log-only type; only surface types (system/message, user/message, assistant/message, tool/result) carry surfaceOp and sourceEventSeqs`,
        );
      }
      const undoRequest = type === 'model/request' ? this.requests.apply(event, this.nodes()) : undefined;
      const metered = known ? this.registry.shadowedSeqsOf(type, event.data) : undefined;
      if (metered !== undefined) {
        this.meters.checkRange(seq, type, metered, this);
        undo = this.meters.record(seq, type, metered);
      } else {
        undo = undoRequest ?? NOTHING_TO_UNDO;
      }
    } else {
      const op = parseSurfaceOp(event.surfaceOp, seq);
      const replace = isReplaceOp(op);
      const undoNode = replace ? this.applyReplace(event, type, op.startSeq, op.endSeq) : this.applyAppend(event, type);
      undo = bothUndone(this.requests.noteSurfaceChange(replace ? undefined : seq), undoNode);
      this.surfaceBits = ensureCapacity(this.surfaceBits, seq);
      this.surfaceBits[seq >>> 3] = (this.surfaceBits[seq >>> 3] as number) | (1 << (seq & 7));
    }
    const previousHash = this.headHash;
    const previousVersion = this.version;
    this.applied = seq + 1;
    this.headHash = event.hash;
    this.version = version;
    if (seq === 0) this.startHash = event.hash;
    if (newType) this.extensionTypes.set(type, { known, metering: known && this.registry.isMetering(type) });
    return () => {
      undo();
      if (newType) this.extensionTypes.delete(type);
      if (seq === 0) this.startHash = GENESIS_HASH;
      this.version = previousVersion;
      if (isSurfaceType(type)) this.surfaceBits[seq >>> 3] = (this.surfaceBits[seq >>> 3] as number) & ~(1 << (seq & 7));
      this.applied = seq;
      this.headHash = previousHash;
    };
  }

  /** Everything apply() reads, nodes by seq: what a checkpoint keeps (fold-checkpoint.ts). */
  snapshot(): FoldState {
    const nodeSeqs: number[] = [];
    for (let node = this.first; node !== undefined; node = node.next) nodeSeqs.push(node.seq);
    const calls: Array<[string, number, number | null]> = [];
    for (const [callId, state] of this.calls) calls.push([callId, state.callNode.seq, state.resultNode?.seq ?? null]);
    // In the order a walk of the log makes them (an undone replace puts its calls back last); the sort is stable.
    calls.sort((a, b) => a[1] - b[1]);
    return {
      nextSeq: this.applied,
      headHash: this.headHash,
      firstHash: this.startHash,
      formatVersion: this.version,
      extensionTypes: [...this.extensionTypes]
        .map(([type, { known, metering }]) => ({ type, known, metering }))
        .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)),
      nodeSeqs,
      calls,
      meters: this.meters.snapshot(),
      surfaceBits: bitsOf(this.surfaceBits, (this.applied + 7) >>> 3),
      request: this.requests.snapshot(),
    };
  }

  /**
   * A fold in the state `state` describes, its nodes the events `eventAt` gives for their seqs
   * (read back from the log). Throws FoldStateError when the state does not hold together.
   */
  static restore(state: FoldState, eventAt: (seq: number) => LogEvent, options: SurfaceFoldOptions = {}): SurfaceFold {
    const fold = new SurfaceFold(options);
    let previous: LinkedNode | undefined;
    for (const seq of state.nodeSeqs) {
      if (seq >= state.nextSeq || fold.bySeq.has(seq))
        throw new FoldStateError(`surface node ${seq} is listed twice or past the state's seq`);
      const event = eventAt(seq);
      const type = event.type;
      if (event.seq !== seq || !isSurfaceType(type)) throw new FoldStateError(`surface node ${seq} is event ${event.seq}, a ${type}`);
      // The fold reads its nodes' data unchecked (appliedDataOf): a node read back is checked as apply checks it.
      fold.registry.validateData(type, event.data, seq, state.formatVersion);
      const sourceEventSeqs = isReplaceOp(event.surfaceOp) ? (event.sourceEventSeqs ?? NO_SEQS) : NO_SEQS;
      const node: LinkedNode = {
        seq: seq as SessionSeq,
        type,
        sourceEventSeqs,
        event,
        label: ++fold.labels,
        prev: previous,
        next: undefined,
      };
      if (previous === undefined) fold.first = node;
      else previous.next = node;
      previous = node;
      fold.bySeq.set(seq, node);
    }
    fold.last = previous;
    const nodeOf = (seq: number) => {
      const node = fold.bySeq.get(seq);
      if (node === undefined) throw new FoldStateError(`tool call state names seq ${seq}, which is not a surface node`);
      return node;
    };
    for (const [callId, callSeq, resultSeq] of state.calls) {
      if (fold.calls.has(callId)) throw new FoldStateError(`tool call ${JSON.stringify(callId)} is listed twice`);
      fold.calls.set(callId, { callNode: nodeOf(callSeq), resultNode: resultSeq === null ? undefined : nodeOf(resultSeq) });
    }
    fold.meters.restore(state.meters);
    fold.requests.restore(state.request);
    fold.surfaceBits = bitsOf(state.surfaceBits, Math.max(1024, state.surfaceBits.length));
    for (const seq of state.nodeSeqs) {
      if (!fold.isSurfaceEventAt(seq, state.nextSeq)) throw new FoldStateError(`surface node ${seq} has no surface bit`);
    }
    for (const { type, known, metering } of state.extensionTypes) fold.extensionTypes.set(type, { known, metering });
    fold.applied = state.nextSeq;
    fold.headHash = state.headHash;
    fold.startHash = state.firstHash;
    fold.version = state.formatVersion;
    return fold;
  }

  private isSurfaceEventAt(seq: number, applied: number): boolean {
    return seq < applied && ((this.surfaceBits[seq >>> 3] as number) & (1 << (seq & 7))) !== 0;
  }

  private applyAppend(event: LogEvent, type: SurfaceType): () => void {
    const seq = event.seq;
    if (event.sourceEventSeqs !== undefined) {
      throw new SurfaceOpError(
        'sources-malformed',
        seq,
        'an appended event has no sourceEventSeqs; only a replace lists the events it shadows',
      );
    }
    const node: LinkedNode = { seq, type, sourceEventSeqs: NO_SEQS, event, label: ++this.labels, prev: this.last, next: undefined };
    const newCalls = this.checkToolPairingOfAppend(node);
    if (this.last === undefined) this.first = node;
    else this.last.next = node;
    this.last = node;
    this.bySeq.set(seq, node);
    const result = type === 'tool/result' ? this.calls.get(appliedDataOf(event, 'tool/result').callId) : undefined;
    if (result !== undefined) result.resultNode = node;
    for (const callId of newCalls) this.calls.set(callId, { callNode: node, resultNode: undefined });
    return () => {
      this.last = node.prev;
      if (this.last === undefined) this.first = undefined;
      else this.last.next = undefined;
      this.bySeq.delete(seq);
      if (result !== undefined) result.resultNode = undefined;
      for (const callId of newCalls) this.calls.delete(callId);
    };
  }

  /** The tool calls an appended node opens; throws when it breaks a call/result pair. */
  private checkToolPairingOfAppend(node: LinkedNode): string[] {
    if (node.type === 'tool/result') {
      const callId = appliedDataOf(node.event, 'tool/result').callId;
      const state = this.calls.get(callId);
      if (state === undefined) {
        throw new SurfaceOpError(
          'tool-call-unknown',
          node.seq,
          `tool/result for call ${JSON.stringify(callId)}, but no assistant message on the surface made that call`,
        );
      }
      if (state.resultNode !== undefined) {
        throw new SurfaceOpError(
          'tool-call-duplicate',
          node.seq,
          `call ${JSON.stringify(callId)} already has its result at seq ${state.resultNode.seq}`,
        );
      }
      return [];
    }
    if (node.type === 'assistant/message') return this.checkNewCallIds(node);
    return [];
  }

  private checkNewCallIds(node: LinkedNode): string[] {
    const callIds = appliedDataOf(node.event, 'assistant/message').toolCalls.map((call) => call.callId);
    const seen = new Set<string>();
    for (const callId of callIds) {
      if (seen.has(callId) || this.calls.has(callId)) {
        throw new SurfaceOpError(
          'tool-call-duplicate',
          node.seq,
          `tool call id ${JSON.stringify(callId)} is already used on the surface; call ids must be unique`,
        );
      }
      seen.add(callId);
    }
    return callIds;
  }

  private applyReplace(event: LogEvent, type: SurfaceType, startSeq: SessionSeq, endSeq: SessionSeq): () => void {
    const seq = event.seq;
    if (startSeq >= seq || endSeq >= seq) {
      throw new SurfaceOpError(
        'not-before',
        seq,
        `a replace must shadow earlier events; startSeq ${startSeq} and endSeq ${endSeq} must both be smaller than ${seq}`,
      );
    }
    const start = this.bySeq.get(startSeq);
    const end = this.bySeq.get(endSeq);
    if (start === undefined || end === undefined) {
      const gone = [...new Set([startSeq, endSeq])].filter((s) => !this.bySeq.has(s));
      throw new SurfaceOpError(
        'not-current',
        seq,
        `seq ${gone.join(' and ')} ${gone.length > 1 ? 'are' : 'is'} not on the current surface (already shadowed, or not a surface event); a replace names current surface nodes`,
      );
    }
    if (start.label > end.label) {
      throw new SurfaceOpError(
        'out-of-order',
        seq,
        `startSeq ${startSeq} stands after endSeq ${endSeq} on the surface; the range runs from the earlier node to the later one by surface position`,
      );
    }
    const shadowed: LinkedNode[] = [];
    for (let node: LinkedNode | undefined = start; node !== undefined; node = node.next) {
      shadowed.push(node);
      if (node === end) break;
    }
    const { sources, meters } = checkSources(event, shadowed, this.meters, (source) => this.isSurfaceEvent(source));
    checkReplacementRules(event, type, shadowed, start === this.first, {
      resultOf: (callId) => this.calls.get(callId)?.resultNode,
      callOf: (callId) => this.calls.get(callId)?.callNode,
    });
    const unclaims = meters.map((meter) => this.meters.claim(meter, seq));

    const replacement: LinkedNode = { seq, type, sourceEventSeqs: sources, event, label: start.label, prev: start.prev, next: end.next };
    if (start.prev === undefined) this.first = replacement;
    else start.prev.next = replacement;
    if (end.next === undefined) this.last = replacement;
    else end.next.prev = replacement;
    for (const node of shadowed) this.bySeq.delete(node.seq);
    this.bySeq.set(seq, replacement);

    const removedCalls: Array<[string, ToolCallState]> = [];
    let redirected: ToolCallState | undefined;
    if (type === 'tool/result') {
      redirected = this.calls.get(appliedDataOf(event, 'tool/result').callId);
      if (redirected !== undefined) redirected.resultNode = replacement;
    } else {
      for (const node of shadowed) {
        if (node.type !== 'assistant/message') continue;
        for (const call of appliedDataOf(node.event, 'assistant/message').toolCalls) {
          const state = this.calls.get(call.callId);
          if (state !== undefined && state.callNode === node) {
            removedCalls.push([call.callId, state]);
            this.calls.delete(call.callId);
          }
        }
      }
    }
    return () => {
      for (const unclaim of unclaims) unclaim();
      if (start.prev === undefined) this.first = start;
      else start.prev.next = start;
      if (end.next === undefined) this.last = end;
      else end.next.prev = end;
      this.bySeq.delete(seq);
      for (const node of shadowed) this.bySeq.set(node.seq, node);
      if (redirected !== undefined) redirected.resultNode = shadowed[0];
      for (const [callId, state] of removedCalls) this.calls.set(callId, state);
    };
  }
}

/** The format version a session/start names: validated first, so that a newer version is refused before anything else is read. */
function formatVersionOfStart(registry: EventTypeRegistry, event: LogEvent): FormatVersion {
  registry.validateData('session/start', event.data, 0, FORMAT_VERSION);
  return formatVersionOf(appliedDataOf(event, 'session/start'));
}

/** The first `length` bytes of `bits`, zero-filled past its end. */
function bitsOf(bits: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  out.set(bits.subarray(0, length));
  return out;
}

function ensureCapacity(bits: Uint8Array, seq: number): Uint8Array {
  const needed = (seq >>> 3) + 1;
  if (needed <= bits.length) return bits;
  const grown = new Uint8Array(Math.max(needed, bits.length * 2));
  grown.set(bits);
  return grown;
}
