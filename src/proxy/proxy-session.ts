// One session the proxy records: its log (this process owns it while the proxy runs), what the
// client's next request is matched against, and the calls waiting to be written. Calls are
// written strictly in order, each request with its outcome, on one chain: the store sees one
// writer per session, and a call routed here while another is in flight (concurrent calls
// naming one session) is written after that one's outcome, against the surface it left, so
// that every answer is written on the surface of the request it answers. Matching needs no
// store: the keys of the surface are kept here, updated when a request is routed and when its
// answer arrives, before the client sees its end.

import { hostname } from 'node:os';
import { FoldStateError, messageOf, ShadowlogError } from '../log/errors.js';
import type { EventDraft, JsonObject, JsonValue, LogEvent, RawAnswer, TurnEndReason } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { prepareAppend } from '../log/seal.js';
import { encodeRequestSurface } from '../log/surface-change.js';
import type { ModelResult } from '../providers/language-model.js';
import { knownModelLimits } from '../providers/model-limits.js';
import type { LogStore, Ownership } from '../store/log-store.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { type CheckpointedObserver, SessionLog } from '../store/session-log.js';
import { keyOfNode } from './node-keys.js';
import type { ProxyProtocol } from './protocols.js';
import { messageKey, type ProxyRequest } from './proxy-message.js';
import { type Plan, planRequest } from './session-plan.js';

/**
 * The turn numbering the proxy continues from: the latest turn/start, and whether a turn/end
 * closed it. Saved in the fold checkpoints the proxy's logs write, so that continuing a session
 * reads the newest one and the events after it.
 */
export class TurnObserver implements CheckpointedObserver {
  readonly key = 'proxy 1';
  turn = 0;
  open = false;

  observe(event: LogEvent): void {
    if (event.type === 'turn/start') {
      this.turn = dataOf(event, 'turn/start').turn;
      this.open = true;
    } else if (event.type === 'turn/end') this.open = false;
  }

  save(): JsonValue {
    return { turn: this.turn, open: this.open };
  }

  restore(saved: JsonValue): void {
    const { turn, open } = (typeof saved === 'object' && saved !== null && !Array.isArray(saved) ? saved : {}) as Record<string, unknown>;
    if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 0 || typeof open !== 'boolean')
      throw new FoldStateError('the proxy state is not {turn, open}');
    this.turn = turn;
    this.open = open;
  }
}

/** The harnessVersion of the sessions the proxy starts: the mark of a session a client may name to continue it. */
export const PROXY_HARNESS_VERSION = 'shadowlog proxy';

/** Why a call was recorded in a session of its own rather than in the one its client named. */
export interface SiblingNote {
  readonly sessionId: string;
  readonly reason: string;
}

/** A call as received: the bytes, their digest, and what the proxy could read of them. */
export interface ReceivedCall {
  readonly protocol: ProxyProtocol;
  /** The request target as the log records it: credential query parameters redacted. */
  readonly path: string;
  readonly body: Buffer;
  readonly digest: string;
  /** The request read, or why it could not be (recorded as unparsed). */
  readonly request: ProxyRequest | { readonly unparsed: string };
  /** The request headers as the log records them (credentials redacted). */
  readonly headers: Record<string, string>;
  readonly redactedHeaders: readonly string[];
}

export type CallOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly result: ModelResult; readonly raw: RawAnswer }
  | {
      readonly kind: 'failure';
      readonly code: string;
      readonly message: string;
      readonly retryable: boolean;
      readonly contextOverflow: boolean;
      readonly status?: number;
      /** What the upstream sent before it failed (an error body, a cut stream), when anything; base64 for bytes that could not be decoded. */
      readonly raw?: RawAnswer | { readonly format: 'base64'; readonly text: string };
    };

export type RouteMode = 'match' | 'continues';

/** A call's outcome as it arrived, and the keys the session held right after it. */
interface Answered {
  readonly outcome: CallOutcome;
  readonly keysAfter: readonly string[];
}

export class ProxySession {
  /** The keys of the surface as the next request should find it. */
  keys: string[] = [];
  lastResponseId: string | undefined;
  conversationKey: string | undefined;
  readonly protocol: string;
  lastUsed = 0;
  private chain: Promise<void> = Promise.resolve();
  /** The calls routed here whose outcome has not arrived: what gives each its outcome, and its writes once written. */
  private readonly pending = new Map<ReceivedCall, { readonly answer: (answered: Answered) => void; readonly written: Promise<void> }>();
  /** The call routed here last: its surface is the session's once the calls before it are written. */
  private latest: ReceivedCall | undefined;
  private readonly nodeKeys = new Map<number, string>();
  /** Calls written as off the surface (unparsed, or unmatched): their answers are not appended to it. */
  private readonly offSurface = new WeakSet<ReceivedCall>();
  private turn = 0;
  private step = 0;
  private turnOpen = false;
  private lastReason: TurnEndReason = 'completed';

  private log: SessionLog | undefined;
  private ownership: Ownership | undefined;
  /** Why the session could not be started in the store, if it could not: its calls are reported, not written. */
  private startFailure: unknown;

  private constructor(
    readonly id: string,
    protocol: string,
    private onError: (error: unknown, session: string) => void,
    /** Set on a session that holds the calls of another the proxy could not write (its owner is another writer). */
    readonly siblingOf?: SiblingNote,
  ) {
    this.protocol = protocol;
  }

  /** A call is routed here and its answer has not arrived: only the session header joins it then. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /**
   * A new session, routed to at once: its ownership and session/start are the first writes on its
   * chain, so that the call that opened it is forwarded without waiting for the store.
   */
  static start(
    store: LogStore,
    id: string,
    protocol: string,
    onError: (error: unknown, session: string) => void,
    siblingOf?: SiblingNote,
  ): ProxySession {
    const session = new ProxySession(id, protocol, onError, siblingOf);
    session.enqueue(async () => {
      const ownership = await store.acquireOwnership(id);
      try {
        session.log = await SessionLog.create(store, id, { harnessVersion: PROXY_HARNESS_VERSION, observer: new TurnObserver() });
        session.ownership = ownership;
      } catch (error) {
        await ownership.release();
        session.startFailure = error;
        throw error;
      }
    });
    return session;
  }

  /** A new session the client named: started before its first call is forwarded, so that a refusal (another owner) reaches the client. */
  static async started(
    store: LogStore,
    id: string,
    protocol: string,
    onError: (error: unknown, session: string) => void,
  ): Promise<ProxySession> {
    const session = ProxySession.start(store, id, protocol, () => {});
    await session.chain;
    if (session.startFailure !== undefined) throw session.startFailure;
    session.onError = onError;
    return session;
  }

  /** Continues a stored session (the client named it): a new lifecycle, its surface keyed from the log. */
  static async open(
    store: LogStore,
    id: string,
    protocol: string,
    onError: (error: unknown, session: string) => void,
  ): Promise<ProxySession> {
    const ownership = await store.acquireOwnership(id);
    try {
      // Restored from the newest fold checkpoint a proxy wrote, and the events after it.
      const turns = new TurnObserver();
      const log = await SessionLog.open(store, id, { observer: turns });
      const { turn, open } = turns;
      const session = new ProxySession(id, protocol, onError);
      session.log = log;
      session.ownership = ownership;
      const drafts: EventDraft[] = [
        { type: 'session/end-seed', data: { reason: `continued by shadowlog proxy, pid ${process.pid} on ${hostname()}` } },
      ];
      if (open) drafts.push({ type: 'turn/end', data: { turn, reason: 'interrupted' } });
      await log.append(drafts);
      session.turn = turn;
      session.keys = log.fold.toArray().map((node) => session.keyOf(node.seq));
      return session;
    } catch (error) {
      await ownership.release();
      throw error;
    }
  }

  /** Routes `call` here: the keys move to its messages now, its events are written in turn. */
  begin(call: ReceivedCall, mode: RouteMode): void {
    this.latest = call;
    this.lastUsed = Date.now();
    if (!('unparsed' in call.request)) {
      const keys = call.request.messages.map(messageKey);
      this.keys =
        mode === 'continues'
          ? [...this.keys, ...keys.slice(this.keys.length > 0 && call.request.messages[0]?.type === 'system/message' ? 1 : 0)]
          : keys;
      if (call.request.conversationKey !== undefined) this.conversationKey = call.request.conversationKey;
    }
    let answer: (answered: Answered) => void = () => {};
    const answered = new Promise<Answered>((resolve) => {
      answer = resolve;
    });
    const model = 'unparsed' in call.request ? 'unknown' : call.request.model;
    // The request, then its outcome once it arrives, as one job: nothing of a later call comes between.
    const written = this.enqueue(async () => {
      await this.writeRequest(call, mode);
      const { outcome, keysAfter } = await answered;
      await this.writeOutcome(call, outcome, model, keysAfter);
    });
    this.pending.set(call, { answer, written });
  }

  /**
   * The call's outcome: the session is free for the next request at once; the events follow on
   * the chain. Resolves once the call is written (or its write failed, which onError reports).
   */
  finish(call: ReceivedCall, outcome: CallOutcome): Promise<void> {
    // Only the call routed last leaves its answer on the surface: an earlier one's is followed by
    // a later request. A request off the surface (unparsed; unmatched, once written) leaves the
    // surface as it was, answered or not: the keys are those of the log's surface (writeOutcome
    // sees to a request written after its outcome arrived).
    const offSurface = this.offSurface.has(call) || 'unparsed' in call.request;
    if (outcome.kind === 'answer' && call === this.latest) {
      const toolCalls = outcome.result.toolCalls.map((tool) => ({ id: tool.callId, name: tool.name, arguments: tool.arguments }));
      if (!offSurface) this.keys = [...this.keys, messageKey({ type: 'assistant/message', content: outcome.result.content, toolCalls })];
      this.lastResponseId = outcome.result.responseId;
    }
    if (this.offSurface.has(call) && call === this.latest && this.log !== undefined) this.keys = this.surfaceKeys(this.log);
    const pending = this.pending.get(call);
    if (pending === undefined) return this.chain;
    this.pending.delete(call);
    pending.answer({ outcome, keysAfter: this.keys });
    return pending.written;
  }

  /** Waits for every write queued so far. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Ends the open turn and gives up the session. */
  async close(): Promise<void> {
    // Every call has its outcome by now (the server waits for them); one that has not is written as interrupted rather than left waiting.
    for (const call of [...this.pending.keys()]) {
      void this.finish(call, {
        kind: 'failure',
        code: 'PROXY_INTERRUPTED',
        message: 'the proxy stopped before the outcome of this call arrived',
        retryable: true,
        contextOverflow: false,
      });
    }
    this.enqueue(async () => {
      if (this.turnOpen) await this.written().append([this.turnEnd(this.busy ? 'interrupted' : this.lastReason)]);
      this.turnOpen = false;
    });
    await this.chain;
    await this.ownership?.release();
  }

  /** The session's log; throws when the session could not be started, for every call it was to write. */
  private written(): SessionLog {
    if (this.log === undefined) throw new ProxySessionUnavailableError(this.id, this.startFailure);
    return this.log;
  }

  /** Queues `job` on the chain; resolves once it ran (a failure goes to onError). */
  private enqueue(job: () => Promise<void>): Promise<void> {
    // Each write waits for the event loop's next turn: the call it records is on the wire first (a
    // store that writes synchronously, as SQLite does, would otherwise hold the call back by its fsync).
    this.chain = this.chain
      .then(nextTurn)
      .then(job)
      .catch((error: unknown) => this.onError(error, this.id));
    return this.chain;
  }

  private keyOf(seq: number): string {
    let key = this.nodeKeys.get(seq);
    if (key === undefined) {
      const node = this.written().fold.node(seq);
      key = node === undefined ? '' : keyOfNode(node);
      this.nodeKeys.set(seq, key);
    }
    return key;
  }

  private async writeRequest(call: ReceivedCall, mode: RouteMode): Promise<void> {
    const fold = this.written().fold;
    const parsed = 'unparsed' in call.request ? undefined : call.request;
    let plan: Plan | undefined;
    let turnDrafts: EventDraft[] = [];
    if (parsed !== undefined) {
      const nodes = fold.toArray();
      const input = {
        nodes,
        nodeKeys: nodes.map((node) => this.keyOf(node.seq)),
        messages: parsed.messages,
        keys: parsed.messages.map(messageKey),
        model: parsed.model,
        continues: mode === 'continues',
      };
      for (const attempt of [0, 1] as const) {
        plan = planRequest(input, attempt);
        if (plan === undefined) continue;
        turnDrafts = this.turnDrafts(plan.startsTurn);
        try {
          const trial = prepareAppend(
            fold,
            [...turnDrafts, ...plan.messages.map((message) => message.draft)],
            () => new Date().toISOString(),
            nodeSha256Hex,
          );
          trial.rollback();
          break;
        } catch (error) {
          if (!ShadowlogError.isInstance(error)) throw error;
          plan = undefined;
        }
      }
    }
    let unmatched: string | undefined;
    if (plan === undefined) {
      // The log's rules refuse the messages as a change of this surface (a client whose list breaks
      // its own API's rules), or the body could not be read: the call is still recorded, its body
      // holds them, and it is off the surface (log/off-surface.ts): its answer is not appended.
      if (parsed !== undefined) unmatched = "the request's messages cannot be written as a change of the session's surface";
      this.offSurface.add(call);
      plan = { messages: [], startsTurn: false };
      turnDrafts = this.turnDrafts(false);
    }
    this.applyTurn(plan.startsTurn);
    const messageDrafts = plan.messages.map((message) => message.draft);
    // The surface the request stands for: the fold after these drafts (a trial append, rolled back).
    const trial = prepareAppend(fold, [...turnDrafts, ...messageDrafts], () => new Date().toISOString(), nodeSha256Hex);
    const surfaceSeqs = fold.toArray().map((node) => node.seq);
    trial.rollback();
    const request: JsonObject = {
      turn: this.turn,
      step: this.step,
      provider: call.protocol.upstream,
      model: parsed?.model ?? 'unknown',
      provenance: 'proxied',
      requestDigest: call.digest,
      requestBody: bodyOf(call.body),
      ...(encodeRequestSurface(fold.lastRequestSurface, surfaceSeqs) as unknown as JsonObject),
      ...windowOf(parsed?.model),
      proxy: {
        protocol: call.protocol.name,
        path: call.path,
        headers: call.headers,
        redactedHeaders: [...call.redactedHeaders],
        stream: parsed?.stream ?? false,
        ...(parsed === undefined ? { unparsed: (call.request as { unparsed: string }).unparsed } : {}),
        ...(unmatched === undefined ? {} : { unmatched }),
        ...(parsed !== undefined && parsed.notes.length > 0 ? { notes: [...parsed.notes] } : {}),
        ...(plan.rewrite === undefined ? {} : { rewrite: plan.rewrite as unknown as JsonObject }),
        ...(this.siblingOf === undefined ? {} : { siblingOf: { ...this.siblingOf } }),
      },
    };
    const written = await this.written().append([...turnDrafts, ...messageDrafts, { type: 'model/request', data: request }]);
    const offset = turnDrafts.length;
    plan.messages.forEach((message, index) => {
      const event = written[offset + index];
      if (event !== undefined) this.nodeKeys.set(event.seq, message.key);
    });
  }

  private async writeOutcome(call: ReceivedCall, outcome: CallOutcome, model: string, keysAfter: readonly string[]): Promise<void> {
    if (outcome.kind === 'failure') {
      this.lastReason = 'error';
      await this.written().append([
        {
          type: 'model/error',
          data: {
            turn: this.turn,
            step: this.step,
            code: outcome.code,
            message: outcome.message,
            retryable: outcome.retryable,
            contextOverflow: outcome.contextOverflow,
            ...(outcome.status === undefined ? {} : { status: outcome.status }),
            ...(outcome.raw === undefined ? {} : { answer: outcome.raw }),
          },
        },
      ]);
      if (this.offSurface.has(call) && this.keys === keysAfter) this.keys = this.surfaceKeys(this.written());
      return;
    }
    const { result } = outcome;
    if (this.offSurface.has(call)) {
      await this.writeOffSurfaceAnswer(outcome, keysAfter);
      return;
    }
    const data = {
      content: result.content,
      toolCalls: result.toolCalls,
      model: result.responseModel ?? model,
      ...(result.usage === undefined ? {} : { usage: result.usage }),
      finishReason: result.finishReason,
      ...(result.responseId === undefined ? {} : { responseId: result.responseId }),
    };
    const toolCalls = result.toolCalls.map((tool) => ({ id: tool.callId, name: tool.name, arguments: tool.arguments }));
    try {
      const [event] = await this.written().append([{ type: 'assistant/message', data, surfaceOp: 'append' }]);
      if (event !== undefined) this.nodeKeys.set(event.seq, messageKey({ type: 'assistant/message', content: result.content, toolCalls }));
      this.lastReason = 'completed';
    } catch (error) {
      if (!ShadowlogError.isInstance(error)) throw error;
      // The log's rules refused the answer (a call id already on the surface): it is kept as it arrived.
      await this.written().append([
        {
          type: 'model/unrecorded-answer',
          data: { turn: this.turn, step: this.step, code: error.code, message: error.message, raw: outcome.raw },
        },
      ]);
      this.keys = this.keys.slice(0, -1);
      this.lastReason = 'error';
    }
  }

  /**
   * The answer to a request off the surface: it continues no surface the log holds, so it is kept
   * as it arrived, with its counts, in a log-only event. The keys go back to the surface as the
   * log holds it, unless a later call has moved them since this one's answer arrived.
   */
  private async writeOffSurfaceAnswer(outcome: Extract<CallOutcome, { kind: 'answer' }>, keysAfter: readonly string[]): Promise<void> {
    const usage = outcome.result.usage;
    await this.written().append([
      {
        type: 'model/unrecorded-answer',
        data: {
          turn: this.turn,
          step: this.step,
          code: 'PROXY_OFF_SURFACE',
          message:
            "the request it answers is not on the session's surface (its model/request says why), so the answer continues no surface and is not appended to one",
          raw: outcome.raw,
          ...(usage === undefined ? {} : { usage: usage as unknown as JsonObject }),
        },
        ignorable: true,
      },
    ]);
    if (this.keys === keysAfter) this.keys = this.surfaceKeys(this.written());
    this.lastReason = 'completed';
  }

  private surfaceKeys(log: SessionLog): string[] {
    return log.fold.toArray().map((node) => this.keyOf(node.seq));
  }

  private turnDrafts(startsTurn: boolean): EventDraft[] {
    if (this.turnOpen && !startsTurn) return [];
    const drafts: EventDraft[] = [];
    if (this.turnOpen) drafts.push(this.turnEnd(this.lastReason));
    drafts.push({ type: 'turn/start', data: { turn: this.turn + 1 } });
    return drafts;
  }

  private applyTurn(startsTurn: boolean): void {
    if (this.turnOpen && !startsTurn) {
      this.step++;
      return;
    }
    this.turn++;
    this.step = 1;
    this.turnOpen = true;
    this.lastReason = 'completed';
  }

  private turnEnd(reason: TurnEndReason): EventDraft {
    return { type: 'turn/end', data: { turn: this.turn, reason } };
  }
}

/** A call of a session the store would not start (it failed): forwarded, and reported unrecorded. */
export class ProxySessionUnavailableError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, cause: unknown) {
    super(
      'PROXY_SESSION_UNAVAILABLE',
      `session ${sessionId} could not be started in the store (${messageOf(cause)}), so this call was forwarded and not recorded`,
      { cause },
    );
    this.sessionId = sessionId;
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function bodyOf(body: Buffer): JsonObject {
  const text = body.toString('utf8');
  // Bytes that are not UTF-8 do not survive a round trip through a string: they are kept as base64.
  return Buffer.from(text, 'utf8').equals(body) ? { encoding: 'utf-8', text } : { encoding: 'base64', text: body.toString('base64') };
}

function windowOf(model: string | undefined): JsonObject {
  const window = model === undefined ? undefined : knownModelLimits(model)?.contextWindow;
  return window === undefined ? {} : { contextWindow: window };
}
