// Works out the audit page's data in one pass over a session, event by event, so that a live
// session can be followed: each call's surface rebuilt and its digest checked where it stands
// (as replay does, without reading the prefix again per call), each compaction's trigger,
// policy, summarizer and outcome, each prune and what replaced it.
//
//   const builder = new ViewBuilder({ sessionId, resolveRenderer });
//   for (const event of events) builder.apply(event);
//   const delta = builder.take(); // what changed since the last take()
//
// It keeps the session's structure and calls, not its events: a page's content is packed on the
// way (view-content.ts) or read from the store by range when a served page asks.

import { replayNextSummary } from '../compaction/replay-summary.js';
import { parseEnvelope } from '../log/envelope.js';
import { CorruptLogError, ShadowlogError } from '../log/errors.js';
import { isSurfaceType, type LogEvent, type ModelRequestData, type RequestProvenance } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { isForeignType } from '../log/foreign-event.js';
import { offSurfaceReason } from '../log/off-surface.js';
import { encodeRequestSurface, type RequestSurfaceList } from '../log/surface-change.js';
import { isReplaceOp } from '../log/surface-op.js';
import type { CallMeter } from '../meter/call-meter.js';
import { acceptChecked, type RendererResolver, replayNextRequest } from '../spine/replay.js';
import { ReplayRenders } from '../spine/replay-renders.js';
import { ChainCheck, type ChainLink } from '../store/chain-check.js';
import { CALL_BLOCK } from './client/page-blocks.js';
import { compactionOf, pruneOf } from './compaction-views.js';
import { StructureRecorder } from './event-structure.js';
import type { CallCheck, CallPricer, CallView, CompactionView, PolicyView, PruneView, ViewDelta, ViewProblem } from './view-data.js';

export interface ViewBuilderOptions {
  readonly sessionId: string;
  /** Renders a recorded provider's request again (no network), for the digest checks. */
  readonly resolveRenderer: RendererResolver;
  /** The event types the session may hold (the CLI's: core and compaction). */
  readonly registry?: EventTypeRegistry;
  /** Rebuild and check each call's request (default true); false marks them pending, for a page drawn before its checks. */
  readonly checkCalls?: boolean;
  /**
   * Recompute the hash chain (default true); false reads the events as they are stored, for a
   * page drawn before its checks (the chain shows as not checked yet, and so do the calls).
   */
  readonly checkChain?: boolean;
  /**
   * The session's calibrated meter (createSessionCallMeter), fed every event the fold accepts:
   * each call gets the estimate `stats --calls` gives it. Without one, calls carry only the
   * estimate their request recorded.
   */
  readonly callMeter?: CallMeter;
  /** Prices a call from its reported usage. */
  readonly priceCall?: CallPricer;
}

export class ViewBuilder {
  private readonly sessionId: string;
  private readonly resolveRenderer: RendererResolver;
  /** What each call's check keeps for the next: it renders and hashes only what changed since the call before. */
  private readonly renders: ReplayRenders;
  private readonly checkCalls: boolean;
  private readonly checkChain: boolean;
  private readonly callMeter: CallMeter | undefined;
  private readonly priceCall: CallPricer | undefined;
  /** Why the meter stopped, once it refused an event. */
  private meterStopped: string | undefined;
  private meteredRows = 0;
  private offSurfaceRows = 0;
  private readonly callsBySeq = new Map<number, CallView>();
  private readonly chain: ChainCheck;
  private broken: ChainLink | undefined;
  private refused: ViewProblem | undefined;
  private readonly structure = new StructureRecorder();
  private headHash: string | null = null;
  private previousSurface: RequestSurfaceList | undefined;
  private lastCall: CallView | undefined;
  private readonly compactions = new Map<string, CompactionView>();
  private readonly summaryOwners = new Map<number, CompactionView>();
  /** The tools of each model call, by seq: a native compaction names the call whose tools it sent. */
  private readonly toolsAt = new Map<number, readonly unknown[]>();
  private readonly prunes = new Map<number, PruneView>();
  private readonly policies = new Map<number, PolicyView>();
  // What changed since the last take().
  private fromSeq = 0;
  private changedCalls = new Map<number, CallView>();
  private changedCompactions = new Set<CompactionView>();
  private changedPrunes = new Set<PruneView>();
  private newPolicies: PolicyView[] = [];
  private newProblems: ViewProblem[] = [];

  constructor(options: ViewBuilderOptions) {
    this.sessionId = options.sessionId;
    this.renders = new ReplayRenders(options.resolveRenderer);
    // The summaries' checks render with the same renderers (one per provider and model).
    this.resolveRenderer = this.renders.model;
    this.checkChain = options.checkChain !== false;
    // A call is checked against the chain it stands on: without the chain, no call is.
    this.checkCalls = options.checkCalls !== false && this.checkChain;
    this.callMeter = options.callMeter;
    this.priceCall = options.priceCall;
    this.chain = new ChainCheck(options.registry === undefined ? {} : { registry: options.registry });
  }

  /** The seq the next event must have. */
  get nextSeq(): number {
    return this.structure.nextSeq;
  }

  /** The calls so far, in log order. */
  get calls(): IterableIterator<CallView> {
    return this.callsBySeq.values();
  }

  /** Reads the next event of the session. An event the log's rules refuse is reported, not thrown. */
  apply(event: LogEvent): void {
    if (event.seq !== this.structure.nextSeq) {
      throw new CorruptLogError(`expected event seq ${this.structure.nextSeq}, found ${event.seq}`, { seq: event.seq });
    }
    this.structure.add(event);
    this.headHash = event.hash;
    if (this.refused !== undefined) {
      if (event.type === 'model/request') this.unfoldedCall(event);
      return;
    }
    try {
      const link = this.checkChain ? this.chain.link(event) : { event: parseEnvelope(event), recomputedHash: event.hash, intact: true };
      this.broken ??= link.intact ? undefined : link;
      this.before(link.event);
      acceptChecked(this.chain, link, this.broken, this.sessionId, `event #${event.seq}`);
      this.after(link.event);
      this.meter(link.event);
    } catch (error) {
      if (!ShadowlogError.isInstance(error)) throw error;
      this.refused = { seq: event.seq, code: error.code, message: error.message };
      this.newProblems.push(this.refused);
      if (event.type === 'model/request' && !this.changedCalls.has(event.seq)) this.unfoldedCall(event);
    }
  }

  /** Feeds the meter and gives each call it finished its estimate. */
  private meter(event: LogEvent): void {
    const meter = this.callMeter;
    if (meter === undefined || this.meterStopped !== undefined) return;
    try {
      meter.apply(event);
    } catch (error) {
      if (!ShadowlogError.isInstance(error)) throw error;
      this.meterStopped = `the meter stopped at event #${event.seq} (${error.code}: ${error.message})`;
      for (const call of this.callsBySeq.values()) {
        if (call.metered !== undefined || call.unmetered !== undefined) continue;
        call.unmetered = this.meterStopped;
        this.changedCalls.set(call.seq, call);
      }
      return;
    }
    for (; this.meteredRows < meter.calls.length; this.meteredRows++) {
      const row = meter.calls[this.meteredRows];
      const call = row === undefined ? undefined : this.callsBySeq.get(row.seq);
      if (row === undefined || call === undefined) continue;
      call.metered = { estimatedTokens: row.estimatedTokens, anchored: row.anchored, error: row.error };
      this.changedCalls.set(call.seq, call);
    }
    for (; this.offSurfaceRows < meter.offSurfaceCalls.length; this.offSurfaceRows++) {
      const row = meter.offSurfaceCalls[this.offSurfaceRows];
      const call = row === undefined ? undefined : this.callsBySeq.get(row.seq);
      if (call === undefined) continue;
      call.unmetered = "not on the session's surface: the meter prices a surface, and this call sent its own body";
      this.changedCalls.set(call.seq, call);
    }
  }

  private priced(call: CallView): void {
    if (this.priceCall !== undefined && call.usage !== undefined) call.cost = this.priceCall(call.provider, call.model, call.usage);
  }

  /** Everything applied since the last take() (the whole session the first time). */
  take(): ViewDelta {
    const structure = this.structure.take();
    const delta: ViewDelta = {
      sessionId: this.sessionId,
      fromSeq: this.fromSeq,
      toSeq: this.structure.nextSeq,
      structure,
      headHash: this.headHash,
      noiseTypes: [...new Set(structure.types)].map((type) => structure.typeNames[type] as string).filter(isForeignType),
      calls: [...this.changedCalls.values()].map((call) => ({ ...call })),
      compactions: [...this.changedCompactions].map((compaction) => ({ ...compaction })),
      prunes: [...this.changedPrunes].map((prune) => ({ ...prune })),
      policies: this.newPolicies,
      chain: { checked: this.checkChain, intact: this.broken === undefined, firstBrokenSeq: this.broken?.event.seq ?? null },
      problems: this.newProblems,
    };
    this.fromSeq = this.structure.nextSeq;
    this.changedCalls = new Map();
    this.changedCompactions = new Set();
    this.changedPrunes = new Set();
    this.newPolicies = [];
    this.newProblems = [];
    return delta;
  }

  /** What must be read before the event changes the fold: a call's request and a summary's are rebuilt where they stand. */
  private before(event: LogEvent): void {
    if (event.type === 'model/request') {
      this.checkCall(event);
      const tools = (event.data.params as { tools?: unknown } | undefined)?.tools;
      if (Array.isArray(tools)) this.toolsAt.set(event.seq, tools);
    }
    if (event.type === 'compaction/summary') {
      const compaction = this.compactions.get(String(event.data.compactionId));
      if (compaction === undefined) return;
      compaction.summarySeq = event.seq;
      compaction.summary = compactionOf(
        event,
        this.checkCalls
          ? () =>
              replayNextSummary(this.chain, event, this.sessionId, this.broken, this.resolveRenderer, {
                toolsAt: (seq) => this.toolsAt.get(seq),
              })
          : undefined,
      );
      this.summaryOwners.set(event.seq, compaction);
      this.changedCompactions.add(compaction);
    }
  }

  private after(event: LogEvent): void {
    const data = event.data as Record<string, unknown>;
    switch (event.type) {
      case 'assistant/message':
        if (this.lastCall !== undefined && this.lastCall.answerSeq === undefined && this.lastCall.error === undefined) {
          const usage = dataOf(event, 'assistant/message').usage;
          this.lastCall.answerSeq = event.seq;
          if (usage !== undefined) this.lastCall.usage = usage;
          this.priced(this.lastCall);
          this.changedCalls.set(this.lastCall.seq, this.lastCall);
        }
        break;
      case 'model/unrecorded-answer':
        if (this.lastCall !== undefined && this.lastCall.answerSeq === undefined && this.lastCall.unrecordedAnswer === undefined) {
          const answer = dataOf(event, 'model/unrecorded-answer');
          this.lastCall.unrecordedAnswer = { seq: event.seq, code: answer.code, message: answer.message };
          if (answer.usage !== undefined) this.lastCall.usage = answer.usage;
          this.priced(this.lastCall);
          this.changedCalls.set(this.lastCall.seq, this.lastCall);
        }
        break;
      case 'model/error':
        if (this.lastCall !== undefined && this.lastCall.answerSeq === undefined) {
          const error = dataOf(event, 'model/error');
          this.lastCall.error = { seq: event.seq, code: error.code, message: error.message, contextOverflow: error.contextOverflow };
          this.changedCalls.set(this.lastCall.seq, this.lastCall);
        }
        break;
      case 'compaction/policy':
        this.policy(event, data);
        break;
      case 'compaction/start': {
        const compaction: CompactionView = {
          compactionId: String(data.compactionId),
          startSeq: event.seq,
          trigger: String(data.trigger),
          turn: typeof data.turn === 'number' ? data.turn : null,
          policySeq: typeof data.policySeq === 'number' ? data.policySeq : null,
          strategy: typeof data.strategy === 'string' ? data.strategy : null,
          outcome: 'open',
        };
        this.compactions.set(compaction.compactionId, compaction);
        this.changedCompactions.add(compaction);
        break;
      }
      case 'compaction/end': {
        const compaction = this.compactions.get(String(data.compactionId));
        if (compaction === undefined) break;
        compaction.endSeq = event.seq;
        const error = data.error as { reason?: unknown; message?: unknown; cause?: { code?: unknown } } | undefined;
        compaction.outcome = error === undefined ? 'compacted' : 'failed';
        if (error !== undefined) {
          compaction.error = {
            reason: String(error.reason ?? 'error'),
            message: String(error.message ?? ''),
            ...(typeof error.cause?.code === 'string' ? { code: error.cause.code } : {}),
          };
        }
        this.changedCompactions.add(compaction);
        break;
      }
      case 'compaction/prune': {
        const prune = pruneOf(event);
        this.prunes.set(event.seq, prune);
        this.changedPrunes.add(prune);
        break;
      }
      case 'session/end-seed':
      case 'session/fork':
        // Locks left open before a new lifecycle (or an operator's unlock, or a branch's fork) block nothing now.
        for (const compaction of this.compactions.values()) {
          if (compaction.outcome !== 'open') continue;
          compaction.outcome = 'stale';
          compaction.staleBy = {
            seq: event.seq,
            reason: event.type === 'session/fork' ? `a branch of ${String(data.parentSessionId)} starts here` : String(data.reason),
          };
          this.changedCompactions.add(compaction);
        }
        break;
      default:
        if (isSurfaceType(event.type) && isReplaceOp(event.surfaceOp)) this.replacement(event);
    }
  }

  private replacement(event: LogEvent): void {
    for (const source of event.sourceEventSeqs ?? []) {
      const compaction = this.summaryOwners.get(source);
      if (compaction !== undefined) {
        compaction.replacementSeq = event.seq;
        this.changedCompactions.add(compaction);
      }
      const prune = this.prunes.get(source);
      if (prune !== undefined) {
        prune.replacementSeq = event.seq;
        this.changedPrunes.add(prune);
      }
    }
  }

  private policy(event: LogEvent, data: Record<string, unknown>): void {
    const number = (key: string) => (typeof data[key] === 'number' ? (data[key] as number) : 0);
    const policy: PolicyView = {
      seq: event.seq,
      provider: String(data.provider),
      model: String(data.model),
      contextWindow: number('contextWindow'),
      reserve: number('reserve'),
      fixedTokens: number('fixedTokens'),
      threshold: number('threshold'),
      retain: number('retain'),
      decidedBy: typeof data.decidedBy === 'string' ? data.decidedBy : null,
      estimator: typeof data.estimator === 'string' ? data.estimator : null,
      strategy: typeof data.strategy === 'string' ? data.strategy : null,
      config: data.config ?? null,
    };
    this.policies.set(event.seq, policy);
    this.newPolicies.push(policy);
  }

  private checkCall(event: LogEvent): void {
    let check: CallCheck = { status: 'pending', digest: null };
    if (this.checkCalls) check = this.replayCall(event);
    let seqs: readonly number[];
    try {
      seqs = this.chain.fold.requestSurfaceSeqs(dataOf(event, 'model/request'), event.seq);
    } catch {
      // The recorded surface cannot be decoded (the check says why): show the one rebuilt there.
      seqs = this.chain.fold.toArray().map((node) => node.seq);
    }
    this.addCall(event, seqs, check);
  }

  private replayCall(event: LogEvent): CallCheck {
    try {
      const result = replayNextRequest(this.chain, event, this.sessionId, this.broken, this.renders);
      if (!result.verified || result.requestDigest === null) return { status: 'reconstructed', digest: null };
      // The bytes are proven, and no surface is: never a "verified" beside a surface it did not send.
      if (result.offSurface !== undefined) return { status: 'off-surface', digest: result.requestDigest, reason: result.offSurface.reason };
      return { status: 'verified', digest: result.requestDigest };
    } catch (error) {
      if (!ShadowlogError.isInstance(error)) throw error;
      return { status: 'failed', digest: null, code: error.code, message: error.message };
    }
  }

  /** A call after the fold stopped: its surface cannot be rebuilt, so it cannot be checked. */
  private unfoldedCall(event: LogEvent): void {
    const refused = this.refused as ViewProblem;
    this.addCall(event, [], {
      status: 'failed',
      digest: null,
      code: refused.code,
      message: `not checked: the log cannot be rebuilt past event #${refused.seq} (${refused.message})`,
    });
  }

  private addCall(event: LogEvent, seqs: readonly number[], check: CallCheck): void {
    const data = event.data as Record<string, unknown>;
    const provenance = (data.provenance ?? 'sent') as RequestProvenance | 'sent';
    // Read field by field (offSurfaceReason checks each): after the fold stopped, the data may not be valid.
    const offSurface = offSurfaceReason(data as unknown as ModelRequestData);
    const call: CallView = {
      seq: event.seq,
      turn: Number(data.turn),
      step: Number(data.step),
      provider: String(data.provider),
      model: String(data.model),
      provenance,
      rendererVersion: typeof data.rendererVersion === 'string' ? data.rendererVersion : null,
      recordedDigest: typeof data.requestDigest === 'string' ? data.requestDigest : null,
      estimatedTokens: typeof data.estimatedTokens === 'number' ? data.estimatedTokens : null,
      contextWindow: typeof data.contextWindow === 'number' ? data.contextWindow : null,
      // Each block of calls opens with a plain list, so that a page decodes any call from its own block.
      surface: encodeRequestSurface(this.callsBySeq.size % CALL_BLOCK === 0 ? undefined : this.previousSurface, seqs),
      surfaceLength: seqs.length,
      ...(offSurface === undefined ? {} : { offSurface }),
      check,
    };
    if (this.meterStopped !== undefined) call.unmetered = this.meterStopped;
    else if (this.refused !== undefined) call.unmetered = `the log cannot be rebuilt past event #${this.refused.seq}`;
    this.callsBySeq.set(call.seq, call);
    this.previousSurface = { seq: event.seq, seqs };
    this.lastCall = call;
    this.changedCalls.set(call.seq, call);
  }
}
