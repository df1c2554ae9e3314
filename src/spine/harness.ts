// The harness: a store, a model, tools and capabilities, from which sessions are created or
// reopened. Reopening starts a new lifecycle (session/end-seed) under a fresh ownership.

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { runCleanupAfter } from '../log/cleanup.js';
import { ConfigError } from '../log/errors.js';
import type { EventDraft, LogEvent, SessionParent } from '../log/event.js';
import { EventTypeRegistry } from '../log/event-types.js';
import { assertSessionId } from '../log/session-id.js';
import type { LanguageModel, ModelParams, ReasoningParams, ToolChoice } from '../providers/language-model.js';
import { type RetryClock, type RetrySettings, resolveRetrySettings, SYSTEM_RETRY_CLOCK } from '../providers/retry-schedule.js';
import type { LogStore, Ownership } from '../store/log-store.js';
import { SessionLog } from '../store/session-log.js';
import { AgentSession } from './agent-session.js';
import type { Capability } from './capability.js';
import { lazyFixedRequestText } from './request-overhead.js';
import { SessionObserver } from './session-observer.js';
import { indexTools, type Tool } from './tool.js';
import type { ToolCallIds } from './tool-call-ids.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS_LIMIT } from './tool-results.js';

/** What a harness is made of: the store and model, and optionally tools, capabilities (compaction) and request settings. */
export interface HarnessOptions {
  readonly store: LogStore;
  readonly model: LanguageModel;
  readonly tools?: readonly Tool[];
  readonly capabilities?: readonly Capability[];
  /** Appended as the system message of each new session. */
  readonly systemPrompt?: string;
  /** Model calls allowed per turn (default 24). */
  readonly maxSteps?: number;
  /**
   * Completion tokens reserved per request (default: DEFAULT_MAX_OUTPUT_TOKENS, or the model's
   * maximum output when that is smaller). The reserve is what the compaction trigger subtracts
   * from the window, so a model's maximum (64,000 for some) would make it compact far too early.
   */
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  /** Reasoning effort or thinking budget, for models that reason (sent as each API takes it). */
  readonly reasoning?: ReasoningParams;
  /** Whether the model must call a tool, and which (default: its own choice). */
  readonly toolChoice?: ToolChoice;
  /** false: at most one tool call per answer (default: the provider's, usually several). */
  readonly parallelToolCalls?: boolean;
  /** Stream responses (default true). */
  readonly stream?: boolean;
  /**
   * Retries of a failed model call that may pass (429, 529, 5xx, a dropped connection): each
   * attempt is logged as model/error and the retry is a step of its own. Default: twice, within
   * 120 s of the first attempt (see providers/retry-schedule.ts); maxRetries 0 turns them off.
   */
  readonly retries?: Partial<RetrySettings>;
  /** The clock retries wait by (tests pass their own). */
  readonly retryClock?: RetryClock;
  /** Called with every event as it lands in the log. */
  readonly onEvent?: (event: LogEvent) => void;
  /** Called with streamed answer text as it arrives. */
  readonly onTextDelta?: (text: string) => void;
  /** The clock for event times. */
  readonly now?: () => string;
  /**
   * The longest tool output recorded, in UTF-16 code units of its text and image data (default
   * 32 Mi, at most 80 Mi); a longer one becomes an error result that says so, and the turn goes on.
   */
  readonly maxToolResultChars?: number;
}

/**
 * The completion tokens a request reserves unless told otherwise: what peer harnesses use for
 * an agent's answers (16k–32k), not the model's maximum.
 */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

/** A store, a model, tools and capabilities, from which agent sessions are created or reopened. */
export class Harness {
  readonly registry: EventTypeRegistry;
  private readonly tools: Map<string, Tool>;
  /** The parameters of every request: tool definitions, the reserve, streaming, temperature. */
  readonly requestParams: ModelParams;
  readonly retries: RetrySettings;
  /** What every request carries besides the surface, in wire form (see request-overhead.ts); computed when first needed. */
  readonly fixedRequestText: () => string;

  constructor(readonly options: HarnessOptions) {
    this.tools = indexTools(options.tools ?? []);
    this.registry = new EventTypeRegistry((options.capabilities ?? []).flatMap((capability) => capability.eventTypes ?? []));
    const maxSteps = options.maxSteps ?? 24;
    if (!Number.isSafeInteger(maxSteps) || maxSteps < 1)
      throw new ConfigError('maxSteps', `maxSteps must be a positive integer, found ${String(maxSteps)}`);
    const reserve = this.maxOutputTokens;
    if (!Number.isSafeInteger(reserve) || reserve < 1 || reserve >= options.model.limits.contextWindow) {
      throw new ConfigError(
        'maxOutputTokens',
        `maxOutputTokens must be a positive integer below the context window (${options.model.limits.contextWindow}), found ${String(reserve)}`,
      );
    }
    const limit = this.maxToolResultChars;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TOOL_RESULT_CHARS_LIMIT) {
      throw new ConfigError(
        'maxToolResultChars',
        `maxToolResultChars must be a positive integer of at most ${MAX_TOOL_RESULT_CHARS_LIMIT} (beyond it a result's JSON may not fit a string), found ${String(limit)}`,
      );
    }
    this.retries = resolveRetrySettings(options.retries);
    this.requestParams = {
      tools: [...this.tools.values()].map((tool) => tool.definition),
      maxOutputTokens: reserve,
      stream: options.stream ?? true,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
      ...(options.toolChoice === undefined ? {} : { toolChoice: options.toolChoice }),
      ...(options.parallelToolCalls === undefined ? {} : { parallelToolCalls: options.parallelToolCalls }),
    };
    // A parameter the model refuses on every call is refused now, before anything is written.
    options.model.checkParams?.(this.requestParams);
    this.fixedRequestText = lazyFixedRequestText(options.model, this.requestParams);
    for (const capability of options.capabilities ?? []) {
      capability.mount?.({ model: options.model, maxOutputTokens: reserve, fixedRequestText: this.fixedRequestText });
    }
  }

  get maxToolResultChars(): number {
    return this.options.maxToolResultChars ?? DEFAULT_MAX_TOOL_RESULT_CHARS;
  }

  get maxOutputTokens(): number {
    return this.options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, this.options.model.limits.defaultMaxOutputTokens);
  }

  /**
   * Starts a new session (with the system prompt, if any) owned by this process; with `parent`,
   * a sub-session naming the session (and tool call) that spawned it.
   */
  async createSession(
    sessionId: string = newSessionId(),
    options: { readonly parent?: SessionParent; readonly fork?: ForkPoint } = {},
  ): Promise<AgentSession> {
    assertSessionId(sessionId);
    if (options.fork !== undefined) {
      if (options.parent !== undefined) {
        throw new ConfigError(
          'fork',
          'a session is either a branch (fork) or a sub-session (parent), not both: a branch continues its parent',
        );
      }
      return this.forkSession(sessionId, options.fork);
    }
    const ownership = await this.options.store.acquireOwnership(sessionId);
    try {
      const observer = this.observer(sessionId, () => false);
      const log = await SessionLog.create(this.options.store, sessionId, {
        ...this.logOptions(),
        ...(options.parent === undefined ? {} : { parent: options.parent }),
        ...observer.forLog(),
      });
      if (this.options.systemPrompt !== undefined) {
        await log.append([
          { type: 'system/message', data: { content: [{ type: 'text', text: this.options.systemPrompt }] }, surfaceOp: 'append' },
        ]);
      }
      return this.session(log, ownership, 0, observer.callIds);
    } catch (error) {
      // A failed release (a full disk fails both) is attached to the first error, not thrown instead.
      await runCleanupAfter(error, () => ownership.release());
      throw error;
    }
  }

  /**
   * A branch of `fork.sessionId` after its event `fork.at` (SPEC §14), owned by this process: its
   * prefix is the parent's, read from it; a turn the prefix leaves open is closed as interrupted.
   * The parent is never written (and needs no ownership).
   */
  private async forkSession(sessionId: string, fork: ForkPoint): Promise<AgentSession> {
    const ownership = await this.options.store.acquireOwnership(sessionId);
    try {
      let reading = true;
      const observer = this.observer(sessionId, () => reading);
      const log = await SessionLog.fork(this.options.store, fork.sessionId, {
        ...this.logOptions(),
        ...observer.forLog(),
        at: fork.at,
        id: sessionId,
      });
      reading = false;
      const { openTurn, lastTurn } = observer;
      if (openTurn !== undefined) await log.append([{ type: 'turn/end', data: { turn: openTurn, reason: 'interrupted' } }]);
      return this.session(log, ownership, lastTurn, observer.callIds);
    } catch (error) {
      await runCleanupAfter(error, () => ownership.release());
      throw error;
    }
  }

  /**
   * Continues an existing session: takes ownership (SessionBusyError while another process
   * holds it), appends session/end-seed, and closes a turn the last lifecycle left open.
   */
  async openSession(sessionId: string, reason = `reopened by pid ${process.pid} on ${hostname()}`): Promise<AgentSession> {
    assertSessionId(sessionId);
    const ownership = await this.options.store.acquireOwnership(sessionId);
    try {
      let reading = true;
      // Restored from the newest fold checkpoint that holds its state, when every capability saves its own.
      const observer = this.observer(sessionId, () => reading);
      const log = await SessionLog.open(this.options.store, sessionId, { ...this.logOptions(), ...observer.forLog() });
      reading = false;
      const { openTurn, lastTurn } = observer;
      const drafts: EventDraft[] = [{ type: 'session/end-seed', data: { reason } }];
      if (openTurn !== undefined) {
        for (const pending of log.fold.pendingToolCalls()) {
          const message = 'the process running this tool stopped before it returned';
          drafts.push({
            type: 'tool/result',
            data: { callId: pending.callId, content: [{ type: 'text', text: `Error: ${message}` }], error: { message } },
            surfaceOp: 'append',
          });
        }
        drafts.push({ type: 'turn/end', data: { turn: openTurn, reason: 'interrupted' } });
      }
      await log.append(drafts);
      return this.session(log, ownership, lastTurn, observer.callIds);
    } catch (error) {
      await runCleanupAfter(error, () => ownership.release());
      throw error;
    }
  }

  private logOptions() {
    return { registry: this.registry, ...(this.options.now === undefined ? {} : { now: this.options.now }) };
  }

  /** Capabilities see every event, history included (or restored from a checkpoint); onEvent only what lands from now on. */
  private observer(sessionId: string, reading: () => boolean): SessionObserver {
    const onEvent = this.options.onEvent;
    return new SessionObserver(sessionId, this.options.capabilities ?? [], (event) => {
      if (onEvent !== undefined && !reading()) onEvent(event);
    });
  }

  private session(log: SessionLog, ownership: Ownership, lastTurn: number, callIds: ToolCallIds): AgentSession {
    const { options } = this;
    return new AgentSession(
      log,
      {
        model: options.model,
        tools: this.tools,
        capabilities: options.capabilities ?? [],
        maxSteps: options.maxSteps ?? 24,
        maxOutputTokens: this.maxOutputTokens,
        params: this.requestParams,
        fixedRequestText: this.fixedRequestText,
        maxToolResultChars: this.maxToolResultChars,
        retries: this.retries,
        retryClock: options.retryClock ?? SYSTEM_RETRY_CLOCK,
        ...(options.onTextDelta === undefined ? {} : { onTextDelta: options.onTextDelta }),
      },
      ownership,
      lastTurn,
      callIds,
    );
  }
}

/** Where a branch forks (SPEC §14): the session it continues, and the seq of the last event of it that it keeps. */
export interface ForkPoint {
  readonly sessionId: string;
  readonly at: number;
}

/** A harness over a store and a model, with the tools and capabilities given. */
export function createHarness(options: HarnessOptions): Harness {
  return new Harness(options);
}

/** A readable, sortable, unique session id: session-20261130-071530-3f9a2c. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `session-${stamp}-${randomBytes(3).toString('hex')}`;
}
