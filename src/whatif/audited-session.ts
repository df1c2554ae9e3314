// One pass over an audited session for what-if calls (SPEC §15): the surface at each chosen
// call, the order in which each replacement shadowed its nodes (what undoing it puts back), the
// events behind them, each chosen call's recorded answer, and its replay (the recorded request
// proven by its digest, over a hash chain checked from seq 0). The pass reads no further than
// the answer of the last chosen call.

import { COMPACTION_MASK, COMPACTION_SUMMARY } from '../compaction/event-types.js';
import { messageOf, ShadowlogError } from '../log/errors.js';
import { isSurfaceType, type LogEvent, type ModelRequestData } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { SurfaceFold, SurfaceNode } from '../log/surface-fold.js';
import { isReplaceOp } from '../log/surface-op.js';
import { acceptChecked, type RendererResolver, type ReplayResult, replayNextRequest } from '../spine/replay.js';
import { ReplayError } from '../spine/spine-errors.js';
import { ChainCheck, type ChainLink } from '../store/chain-check.js';
import type { LogStore } from '../store/log-store.js';
import { WhatIfInputError } from './whatif-errors.js';

/** A model call named as replay names it. */
export interface CallName {
  readonly turn: number;
  /** The step within the turn (default 1). */
  readonly step?: number;
}

/** Which calls a pass takes: one by its name or by the seq of its model/request, or every call between a compaction and the next. */
export type CallChoice = { readonly call: CallName } | { readonly requestSeq: number } | { readonly compaction: string };

export interface AuditedCall {
  /** The seq of its model/request. */
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly data: ModelRequestData;
  /** The surface the call was sent. */
  readonly nodes: readonly SurfaceNode[];
  /** The recorded request rebuilt and checked (undefined when no renderer knows its provider: see unverified). */
  readonly replay: ReplayResult | undefined;
  /** Why the recorded request was not proven byte for byte, when it was not. */
  readonly unverified: string | undefined;
  /** Its answer: an assistant/message, or the model/error or model/unrecorded-answer in its place; undefined when the log has none. */
  answer: LogEvent | undefined;
}

export interface AuditedSession {
  readonly sessionId: string;
  /** The surface-type and compaction events read, by seq. */
  readonly events: ReadonlyMap<number, LogEvent>;
  /** For each replacement read, the nodes it shadowed, in surface order. */
  readonly shadowed: ReadonlyMap<number, readonly number[]>;
  /** The chosen calls, in order. */
  readonly calls: readonly AuditedCall[];
  /** Every model call read, in order (a policy's replay compacts before each). */
  readonly requests: ReadonlyArray<{ readonly seq: number; readonly turn: number; readonly step: number }>;
  /** With { compaction }: the compaction, its first replacement, and the compaction after it (if the session has one). */
  readonly compaction?: { readonly id: string; readonly seq: number; readonly nextId: string | null; readonly nextSeq: number | null };
}

export interface AuditOptions {
  readonly registry: EventTypeRegistry;
  readonly resolveRenderer: RendererResolver;
}

/** Reads `sessionId` up to the answer of the last call `choice` names; throws a typed error when it names none. */
export async function readAudit(store: LogStore, sessionId: string, choice: CallChoice, options: AuditOptions): Promise<AuditedSession> {
  const chain = new ChainCheck({ registry: options.registry });
  const events = new Map<number, LogEvent>();
  const shadowed = new Map<number, readonly number[]>();
  const calls: AuditedCall[] = [];
  const requests: Array<{ seq: number; turn: number; step: number }> = [];
  const picker = 'compaction' in choice ? new CompactionPicker(choice.compaction) : new CallPicker(choice);
  let broken: ChainLink | undefined;
  let open: AuditedCall | undefined;
  const renderer = guardedRenderer(options.resolveRenderer);
  reading: for await (const page of store.read(sessionId)) {
    for (const raw of page) {
      const link = chain.link(raw);
      broken ??= link.intact ? undefined : link;
      const event = link.event;
      if (open !== undefined && isAnswerOf(event, open)) {
        open.answer = event;
        open = undefined;
      }
      if (picker.stopsAt(event)) break reading;
      if (event.type === 'model/request') {
        chain.fold.registry.validateData(event.type, event.data, event.seq, chain.fold.formatVersion);
        const data = dataOf(event, 'model/request');
        requests.push({ seq: event.seq, turn: data.turn, step: data.step });
        open = undefined;
        if (picker.takes(event.seq, data, chain.fold)) {
          open = auditedCall(chain, event, data, sessionId, broken, renderer);
          calls.push(open);
        }
      }
      if (isSurfaceType(event.type) || event.type.startsWith('compaction/')) events.set(event.seq, event);
      if (isReplaceOp(event.surfaceOp))
        shadowed.set(event.seq, shadowedOrder(chain.fold, event.surfaceOp.startSeq, event.surfaceOp.endSeq));
      acceptChecked(chain, link, broken, sessionId, `the what-if of ${picker.describe()}`);
      picker.noteApplied(event, events);
    }
  }
  picker.finish(calls);
  const compaction = picker instanceof CompactionPicker ? picker.found() : undefined;
  return { sessionId, events, shadowed, calls, requests, ...(compaction === undefined ? {} : { compaction }) };
}

function auditedCall(
  chain: ChainCheck,
  event: LogEvent,
  data: ModelRequestData,
  sessionId: string,
  broken: ChainLink | undefined,
  renderer: RendererResolver,
): AuditedCall {
  const base = { seq: event.seq, turn: data.turn, step: data.step, data, nodes: chain.fold.toArray(), answer: undefined };
  try {
    const replay = replayNextRequest(chain, event, sessionId, broken, renderer);
    const unverified = replay.verified ? undefined : 'it was imported from another harness: no digest of what was sent exists';
    return { ...base, replay, unverified };
  } catch (error) {
    if (!(error instanceof NoRenderer)) throw error;
    return { ...base, replay: undefined, unverified: `no renderer of provider ${data.provider} (${error.message})` };
  }
}

/** A resolver whose failure is told apart from replay's own errors: a call without a renderer is audited unverified, not refused. */
class NoRenderer extends ShadowlogError {
  constructor(message: string, cause: unknown) {
    super('WHATIF_NO_RENDERER', message, { cause });
  }
}
function guardedRenderer(resolve: RendererResolver): RendererResolver {
  return (provider, model) => {
    try {
      return resolve(provider, model);
    } catch (error) {
      throw new NoRenderer(messageOf(error), error);
    }
  };
}

/** The current nodes from startSeq to endSeq, in surface order (read before the replacement is applied). */
function shadowedOrder(fold: SurfaceFold, startSeq: number, endSeq: number): number[] {
  const order: number[] = [];
  for (let node = fold.node(startSeq); node !== undefined; node = fold.nodeAfter(node.seq)) {
    order.push(node.seq);
    if (node.seq === endSeq) break;
  }
  return order;
}

/** The event that answers `call`: its assistant message, or the error or unrecorded answer of its turn and step. */
function isAnswerOf(event: LogEvent, call: AuditedCall): boolean {
  if (event.type === 'assistant/message') return !isReplaceOp(event.surfaceOp);
  if (event.type !== 'model/error' && event.type !== 'model/unrecorded-answer') return false;
  const { turn, step } = dataOf(event, event.type);
  return turn === call.turn && step === call.step;
}

interface Picker {
  /** Whether the pass ends before `event` (nothing after it is needed). */
  stopsAt(event: LogEvent): boolean;
  takes(seq: number, data: ModelRequestData, fold: SurfaceFold): boolean;
  noteApplied(event: LogEvent, events: ReadonlyMap<number, LogEvent>): void;
  describe(): string;
  /** Throws the typed error for a choice that named nothing. */
  finish(calls: readonly AuditedCall[]): void;
}

class CallPicker implements Picker {
  private taken = false;
  private readonly turns = new Set<number>();
  constructor(private readonly choice: { readonly call: CallName } | { readonly requestSeq: number }) {}
  stopsAt(event: LogEvent): boolean {
    return this.taken && event.type === 'model/request';
  }
  takes(seq: number, data: ModelRequestData): boolean {
    this.turns.add(data.turn);
    this.taken =
      'requestSeq' in this.choice
        ? seq === this.choice.requestSeq
        : data.turn === this.choice.call.turn && data.step === (this.choice.call.step ?? 1);
    return this.taken;
  }
  noteApplied(): void {}
  describe(): string {
    return 'requestSeq' in this.choice
      ? `the call at #${this.choice.requestSeq}`
      : `turn ${this.choice.call.turn}, step ${this.choice.call.step ?? 1}`;
  }
  finish(calls: readonly AuditedCall[]): void {
    if (calls.length > 0) return;
    if ('requestSeq' in this.choice)
      throw new ReplayError('no-such-call', `event #${this.choice.requestSeq} of the session is not a model call`);
    const sorted = [...this.turns].sort((a, b) => a - b);
    const known =
      sorted.length === 0
        ? 'it has no model calls'
        : `its model calls are in turns ${sorted.length <= 2 ? sorted.join(' and ') : `${sorted[0]} to ${sorted[sorted.length - 1]}`}`;
    throw new ReplayError('no-such-call', `the session has no model call at ${this.describe()}; ${known}`);
  }
}

/** Every call whose surface holds the compaction's replacement, up to the next compaction; the id may be given by its first characters (the first match is taken, as replay takes it). */
class CompactionPicker implements Picker {
  private id: string | undefined;
  private replacementSeq: number | undefined;
  private readonly replacements = new Set<number>();
  private next: { id: string; seq: number } | undefined;
  private readonly seen: string[] = [];
  constructor(private readonly given: string) {}

  stopsAt(event: LogEvent): boolean {
    if (this.id === undefined || !isCompaction(event)) return false;
    const id = String(event.data.compactionId);
    if (id === this.id) return false;
    this.next = { id, seq: event.seq };
    return true;
  }
  takes(_seq: number, _data: ModelRequestData, fold: SurfaceFold): boolean {
    return [...this.replacements].some((seq) => fold.isCurrent(seq));
  }
  noteApplied(event: LogEvent, events: ReadonlyMap<number, LogEvent>): void {
    if (isCompaction(event)) {
      const id = String(event.data.compactionId);
      if (!this.seen.includes(id)) this.seen.push(id);
      if (this.id === undefined && id.startsWith(this.given)) this.id = id;
      return;
    }
    if (this.id === undefined || !isReplaceOp(event.surfaceOp)) return;
    const metering = (event.sourceEventSeqs ?? []).map((seq) => events.get(seq));
    if (metering.some((source) => source !== undefined && isCompaction(source) && source.data.compactionId === this.id)) {
      this.replacements.add(event.seq);
      this.replacementSeq ??= event.seq;
    }
  }
  describe(): string {
    return `the calls after compaction ${this.given}`;
  }
  finish(calls: readonly AuditedCall[]): void {
    if (this.id === undefined) {
      const listed = this.seen.length === 0 ? 'it has none' : `its compactions are ${this.seen.join(', ')}`;
      throw new WhatIfInputError(`the session has no compaction ${JSON.stringify(this.given)}; ${listed}`);
    }
    if (this.replacementSeq === undefined)
      throw new WhatIfInputError(
        `compaction ${this.id} replaced nothing (it failed, or never ended); there is no call whose surface holds it`,
      );
    if (calls.length === 0)
      throw new WhatIfInputError(
        `no model call followed compaction ${this.id} (its replacement is #${this.replacementSeq}) before ${this.next === undefined ? 'the session ended' : `the next compaction, ${this.next.id}`}`,
      );
  }
  found(): AuditedSession['compaction'] {
    if (this.id === undefined || this.replacementSeq === undefined) return undefined;
    return { id: this.id, seq: this.replacementSeq, nextId: this.next?.id ?? null, nextSeq: this.next?.seq ?? null };
  }
}

function isCompaction(event: LogEvent): boolean {
  return (event.type === COMPACTION_SUMMARY || event.type === COMPACTION_MASK) && typeof event.data.compactionId === 'string';
}
