// One session the proxy records: its log (this process owns it while the proxy runs), what the
// client's next request is matched against, and the calls waiting to be written. A call is
// written once its outcome is known, its request and its outcome as one job, after the calls
// whose outcome came before it: so every answer follows the request it answers, on the surface
// that request sent, and a call waits for no other call's upstream (concurrent calls naming one
// session are written in the order they end; one that did not include an earlier one's answer is
// written as a rewrite of it). Matching needs no store: the keys of the surface are kept here,
// updated when a request is routed and when its outcome arrives, and set to the log's own once a
// write lands and nothing has moved them since.

import { isUtf8 } from 'node:buffer';
import { hostname } from 'node:os';
import { FoldStateError, messageOf, ShadowlogError } from '../log/errors.js';
import type { EventDraft, JsonObject, JsonValue, LogEvent, RawAnswer, SessionContinuation, TurnEndReason } from '../log/event.js';
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
  /** The bytes received; given up (emptied) once its request is sealed for the store, when nothing else needs them. */
  body: Buffer;
  readonly digest: string;
  /** The request read, or why it could not be (recorded as unparsed). */
  readonly request: ProxyRequest | { readonly unparsed: string };
  /** The request headers as the log records them (credentials redacted). */
  readonly headers: Record<string, string>;
  readonly redactedHeaders: readonly string[];
}

/** A model call that failed, as a recorder writes it to the log: the proxy's and the AI SDK recorder's. */
export interface RecordedFailure {
  readonly kind: 'failure';
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
  readonly contextOverflow: boolean;
}

export type CallOutcome =
  | { readonly kind: 'answer'; readonly status: number; readonly result: ModelResult; readonly raw: RawAnswer }
  | (RecordedFailure & {
      readonly status?: number;
      /** What the upstream sent before it failed (an error body, a cut stream), when anything; base64 for bytes that could not be decoded. */
      readonly raw?: RawAnswer | { readonly format: 'base64'; readonly text: string };
    });

export type RouteMode = 'match' | 'continues';

/** A call routed here whose outcome has not arrived. */
interface Pending {
  readonly mode: RouteMode;
  /** The keys of the surface its request stands for (undefined when its body could not be read). */
  readonly keys: readonly string[] | undefined;
}

/** The turn numbering, moved only once the events that move it are in the store. */
interface TurnState {
  readonly turn: number;
  readonly step: number;
  readonly open: boolean;
}

export class ProxySession {
  /** The keys of the surface as the next request should find it. */
  keys: string[] = [];
  lastResponseId: string | undefined;
  conversationKey: string | undefined;
  /** The Responses API conversation its requests add to, if they name one. */
  serverConversation: string | undefined;
  /** The model and tools of its latest request: what a client's compaction of it keeps (session-link.ts). */
  model: string | undefined;
  toolsKey: string | undefined;
  readonly protocol: string;
  lastUsed = 0;
  /** When its latest call's outcome arrived (ms since the epoch); undefined before any did. */
  lastEnded: number | undefined;
  private chain: Promise<boolean> = Promise.resolve(true);
  /** The calls routed here whose outcome has not arrived. */
  private readonly pending = new Map<ReceivedCall, Pending>();
  /** Counts routings and outcomes: a write sets the keys to the log's surface only if nothing moved them after its outcome. */
  private moves = 0;
  private readonly nodeKeys = new Map<number, string>();
  private turns: TurnState = { turn: 0, step: 0, open: false };
  private lastReason: TurnEndReason = 'completed';

  private log: SessionLog | undefined;
  private ownership: Ownership | undefined;
  /** Why the session could not be started in the store, if it could not: its calls are reported, not written. */
  private startFailure: unknown;

  private constructor(
    readonly id: string,
    protocol: string,
    private readonly onError: (error: unknown, session: string) => void,
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
   * chain, so that the call that opened it is forwarded without waiting for the store. When they
   * fail, each of its calls is reported unrecorded (ProxySessionUnavailableError, with the reason).
   */
  static start(
    store: LogStore,
    id: string,
    protocol: string,
    onError: (error: unknown, session: string) => void,
    siblingOf?: SiblingNote,
    continues?: SessionContinuation,
  ): ProxySession {
    const session = new ProxySession(id, protocol, onError, siblingOf);
    session.chain = nextTurn().then(async () => {
      let ownership: Ownership | undefined;
      try {
        ownership = await store.acquireOwnership(id);
        session.log = await SessionLog.create(store, id, {
          harnessVersion: PROXY_HARNESS_VERSION,
          observer: new TurnObserver(),
          ...(continues === undefined ? {} : { continues }),
        });
        session.ownership = ownership;
      } catch (error) {
        await ownership?.release().catch(() => {});
        session.startFailure = error;
      }
      return true;
    });
    return session;
  }

  /**
   * A new session the client named: started before its first call is forwarded, so that a session
   * another writer has just claimed (SessionBusyError) or started (SessionExistsError) reaches the
   * router, which records the call elsewhere.
   */
  static async started(
    store: LogStore,
    id: string,
    protocol: string,
    onError: (error: unknown, session: string) => void,
  ): Promise<ProxySession> {
    const session = ProxySession.start(store, id, protocol, onError);
    await session.chain;
    if (session.log === undefined) throw session.startFailure;
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
      session.turns = { turn, step: 0, open: false };
      session.keys = session.surfaceKeys(log);
      return session;
    } catch (error) {
      await ownership.release();
      throw error;
    }
  }

  /** Routes `call` here: the keys move to its messages now; it is written once its outcome arrives (finish). */
  begin(call: ReceivedCall, mode: RouteMode): void {
    this.lastUsed = Date.now();
    this.moves++;
    let keys: string[] | undefined;
    if (!('unparsed' in call.request)) {
      const own = call.request.messages.map(messageKey);
      keys =
        mode === 'continues'
          ? [...this.keys, ...own.slice(this.keys.length > 0 && call.request.messages[0]?.type === 'system/message' ? 1 : 0)]
          : own;
      this.keys = keys;
      if (call.request.conversationKey !== undefined) this.conversationKey = call.request.conversationKey;
      if (call.request.serverConversation !== undefined) this.serverConversation = call.request.serverConversation;
      this.model = call.request.model;
      this.toolsKey = call.request.toolsKey;
    }
    this.pending.set(call, { mode, keys });
  }

  /**
   * The call's outcome: the session is free for the next request at once, its keys those of the
   * surface this call leaves; the request and the outcome are written after the writes queued
   * before. Resolves true once they are in the store, false when they could not be written
   * (onError has the reason; a call whose request could not be written has no outcome written
   * either, since an outcome cannot stand without its request).
   */
  finish(call: ReceivedCall, outcome: CallOutcome): Promise<boolean> {
    const pending = this.pending.get(call);
    if (pending === undefined) return Promise.resolve(false);
    this.pending.delete(call);
    this.moves++;
    this.lastEnded = Date.now();
    if (pending.keys !== undefined) {
      // What the log will hold once this call is written; a request written off the surface puts the log's own back (below).
      this.keys = [...pending.keys];
      if (outcome.kind === 'answer') this.keys.push(answerKey(outcome.result));
    }
    if (outcome.kind === 'answer') this.lastResponseId = outcome.result.responseId;
    const moves = this.moves;
    const model = 'unparsed' in call.request ? 'unknown' : call.request.model;
    return this.enqueue(async () => {
      try {
        const offSurface = await this.writeRequest(call, pending.mode);
        await this.writeOutcome(outcome, model, offSurface);
      } finally {
        if (this.moves === moves && this.log !== undefined) this.keys = this.surfaceKeys(this.log);
      }
    });
  }

  /** Waits for every write queued so far. */
  async settled(): Promise<void> {
    await this.chain;
  }

  /** Writes the calls still without an outcome as interrupted, ends the open turn and gives up the session. */
  async close(): Promise<void> {
    // The server cuts every call before it closes the sessions; one still here is written as interrupted rather than left waiting.
    for (const call of [...this.pending.keys()]) {
      void this.finish(call, {
        kind: 'failure',
        code: 'PROXY_INTERRUPTED',
        message: 'the proxy stopped before the outcome of this call arrived',
        retryable: true,
        contextOverflow: false,
      });
    }
    void this.enqueue(async () => {
      if (!this.turns.open) return;
      await this.written().append([this.turnEnd(this.lastReason)]);
      this.turns = { ...this.turns, open: false };
    });
    await this.chain;
    await this.ownership?.release();
  }

  /** The session's log; throws when the session could not be started, for every call it was to write. */
  private written(): SessionLog {
    if (this.log === undefined) throw new ProxySessionUnavailableError(this.id, this.startFailure);
    return this.log;
  }

  /** Queues `job` on the chain; resolves true once it ran, false when it failed (onError has the failure). */
  private enqueue(job: () => Promise<void>): Promise<boolean> {
    // Each write waits for the event loop's next turn: the call it records is on the wire first (a
    // store that writes synchronously, as SQLite does, would otherwise hold the call back by its fsync).
    const run = this.chain
      .then(nextTurn)
      .then(job)
      .then(
        () => true,
        (error: unknown) => {
          this.onError(error, this.id);
          return false;
        },
      );
    this.chain = run;
    return run;
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

  /** Writes the call's model/request and the surface events before it; true when it is off the surface. */
  private async writeRequest(call: ReceivedCall, mode: RouteMode): Promise<boolean> {
    const log = this.written();
    const fold = log.fold;
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
    let offSurface = false;
    if (plan === undefined) {
      // The log's rules refuse the messages as a change of this surface (a client whose list breaks
      // its own API's rules), or the body could not be read: the call is still recorded, its body
      // holds them, and it is off the surface (log/off-surface.ts): its answer is not appended.
      if (parsed !== undefined) unmatched = "the request's messages cannot be written as a change of the session's surface";
      offSurface = true;
      plan = { messages: [], startsTurn: false };
      turnDrafts = this.turnDrafts(false);
    }
    const turns = this.nextTurns(plan.startsTurn);
    const messageDrafts = plan.messages.map((message) => message.draft);
    // The surface the request stands for: the fold after these drafts (a trial append, rolled back).
    const trial = prepareAppend(fold, [...turnDrafts, ...messageDrafts], () => new Date().toISOString(), nodeSha256Hex);
    const surfaceSeqs = fold.toArray().map((node) => node.seq);
    trial.rollback();
    const requestBody = bodyOf(call.body);
    // The bytes are in requestBody now, and went upstream before the outcome arrived: nothing else needs them.
    call.body = EMPTY;
    const request: JsonObject = {
      turn: turns.turn,
      step: turns.step,
      provider: call.protocol.upstream,
      model: parsed?.model ?? 'unknown',
      provenance: 'proxied',
      requestDigest: call.digest,
      requestBody,
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
    const written = await log.append([...turnDrafts, ...messageDrafts, { type: 'model/request', data: request }]);
    // The turn moves only now that its events are in the store: a refused append leaves it as it was.
    this.turns = turns;
    if (turnDrafts.some((draft) => draft.type === 'turn/start')) this.lastReason = 'completed';
    const offset = turnDrafts.length;
    plan.messages.forEach((message, index) => {
      const event = written[offset + index];
      if (event !== undefined) this.nodeKeys.set(event.seq, message.key);
    });
    return offSurface;
  }

  private async writeOutcome(outcome: CallOutcome, model: string, offSurface: boolean): Promise<void> {
    const log = this.written();
    const { turn, step } = this.turns;
    if (outcome.kind === 'failure') {
      await log.append([
        {
          type: 'model/error',
          data: {
            turn,
            step,
            code: outcome.code,
            message: outcome.message,
            retryable: outcome.retryable,
            contextOverflow: outcome.contextOverflow,
            ...(outcome.status === undefined ? {} : { status: outcome.status }),
            ...(outcome.raw === undefined ? {} : { answer: outcome.raw }),
          },
        },
      ]);
      this.lastReason = outcome.code === 'PROXY_INTERRUPTED' ? 'interrupted' : 'error';
      return;
    }
    const { result } = outcome;
    if (offSurface) {
      await this.writeOffSurfaceAnswer(outcome);
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
    let event: LogEvent | undefined;
    try {
      [event] = await log.append([{ type: 'assistant/message', data, surfaceOp: 'append' }]);
    } catch (error) {
      if (!ShadowlogError.isInstance(error)) throw error;
      // The log's rules refused the answer (a call id already on the surface): it is kept as it arrived.
      await log.append([
        { type: 'model/unrecorded-answer', data: { turn, step, code: error.code, message: error.message, raw: outcome.raw } },
      ]);
      this.lastReason = 'error';
      return;
    }
    if (event !== undefined) this.nodeKeys.set(event.seq, answerKey(result));
    this.lastReason = 'completed';
  }

  /**
   * The answer to a request off the surface: it continues no surface the log holds, so it is kept
   * as it arrived, with its counts, in a log-only event.
   */
  private async writeOffSurfaceAnswer(outcome: Extract<CallOutcome, { kind: 'answer' }>): Promise<void> {
    const usage = outcome.result.usage;
    const { turn, step } = this.turns;
    await this.written().append([
      {
        type: 'model/unrecorded-answer',
        data: {
          turn,
          step,
          code: 'PROXY_OFF_SURFACE',
          message:
            "the request it answers is not on the session's surface (its model/request says why), so the answer continues no surface and is not appended to one",
          raw: outcome.raw,
          ...(usage === undefined ? {} : { usage: usage as unknown as JsonObject }),
        },
        ignorable: true,
      },
    ]);
    this.lastReason = 'completed';
  }

  private surfaceKeys(log: SessionLog): string[] {
    return log.fold.toArray().map((node) => this.keyOf(node.seq));
  }

  private turnDrafts(startsTurn: boolean): EventDraft[] {
    if (this.turns.open && !startsTurn) return [];
    const drafts: EventDraft[] = [];
    if (this.turns.open) drafts.push(this.turnEnd(this.lastReason));
    drafts.push({ type: 'turn/start', data: { turn: this.turns.turn + 1 } });
    return drafts;
  }

  /** The turn and step of the next request: the next step of the open turn, or the first of a new one. */
  private nextTurns(startsTurn: boolean): TurnState {
    const { turn, step, open } = this.turns;
    if (open && !startsTurn) return { turn, step: step + 1, open };
    return { turn: turn + 1, step: 1, open: true };
  }

  private turnEnd(reason: TurnEndReason): EventDraft {
    return { type: 'turn/end', data: { turn: this.turns.turn, reason } };
  }
}

/** A call of a session the store would not start (it failed): forwarded, and reported unrecorded. */
export class ProxySessionUnavailableError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, cause: unknown) {
    super(
      'PROXY_SESSION_UNAVAILABLE',
      `session ${sessionId} could not be started in the store (${cause === undefined ? 'no reason given' : messageOf(cause)}), so this call was forwarded and not recorded`,
      { cause },
    );
    this.sessionId = sessionId;
  }
}

const EMPTY = Buffer.alloc(0);

/** The key of an answer as the next request repeats it. */
function answerKey(result: ModelResult): string {
  const toolCalls = result.toolCalls.map((tool) => ({ id: tool.callId, name: tool.name, arguments: tool.arguments }));
  return messageKey({ type: 'assistant/message', content: result.content, toolCalls });
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function bodyOf(body: Buffer): JsonObject {
  // Bytes that are not UTF-8 do not survive a round trip through a string: they are kept as base64.
  return isUtf8(body) ? { encoding: 'utf-8', text: body.toString('utf8') } : { encoding: 'base64', text: body.toString('base64') };
}

function windowOf(model: string | undefined): JsonObject {
  const window = model === undefined ? undefined : knownModelLimits(model)?.contextWindow;
  return window === undefined ? {} : { contextWindow: window };
}
