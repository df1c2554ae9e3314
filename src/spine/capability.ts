// Capabilities: optional behaviour mounted on the spine at construction (compaction is one).
// The spine calls them at fixed points and knows nothing else about them.

import type { JsonValue, LogEvent } from '../log/event.js';
import type { EventTypeDefinition } from '../log/event-types.js';
import type { LanguageModel } from '../providers/language-model.js';
import type { ProviderError } from '../providers/provider-error.js';
import type { SessionLog } from '../store/session-log.js';

export interface SessionContext {
  readonly sessionId: string;
  /** The session's log: its fold is the current surface; capabilities append through it. */
  readonly log: SessionLog;
  readonly model: LanguageModel;
  /** The completion tokens reserved for the answer on each request. */
  readonly maxOutputTokens: number;
  readonly signal: AbortSignal;
}

export interface StepContext extends SessionContext {
  readonly turn: number;
  readonly step: number;
}

export interface RequestErrorContext extends StepContext {
  readonly error: ProviderError;
  /** How many times this model call has been retried already. */
  readonly retries: number;
}

/** What a capability learns when it is mounted on a harness. */
export interface MountContext {
  readonly model: LanguageModel;
  /** The completion tokens reserved for the answer on each request. */
  readonly maxOutputTokens: number;
  /**
   * What every request carries besides the surface (tool definitions and parameters, in wire
   * form), for a meter that prices the whole request; computed on first call.
   */
  readonly fixedRequestText: () => string;
}

/** How a capability saves and restores the state it keeps per session (Capability.observedState). */
export interface ObservedCapabilityState {
  /** The layout of what `save` returns; a checkpoint saved under another version is not restored from. */
  readonly version: string;
  save(sessionId: string): JsonValue;
  /** Replaces the session's state by a saved one; throws a ShadowlogError, changing nothing, when it cannot. */
  restore(sessionId: string, saved: JsonValue): void;
}

export interface Capability {
  readonly name: string;
  /** The log-only event types it writes, so that readers know them (the spine never names them). */
  readonly eventTypes?: readonly EventTypeDefinition[];
  /** Called once when the harness is built; throw a ConfigError to refuse a configuration. */
  mount?(context: MountContext): void;
  /**
   * Called with every event of a session in seq order: its history when it is opened or
   * created, then each event as it lands. For state a capability keeps per session.
   */
  observe?(sessionId: string, event: LogEvent): void;
  /**
   * The per-session state `observe` keeps, saved in fold checkpoints, so that reopening a
   * session observes only the events after the newest one. Restored, it must equal the state
   * observing every event up to the checkpoint builds. Without it, a capability that observes
   * makes every reopen read the whole log.
   */
  readonly observedState?: ObservedCapabilityState;
  /** Runs before each step, before the request is rendered; capabilities run one after another. */
  beforeStep?(context: StepContext): Promise<void>;
  /** A model call failed; return true to ask for one retry (after changing the surface, say). */
  onRequestError?(context: RequestErrorContext): Promise<boolean>;
  /** The session was closed in this process: drop what was kept for it. */
  release?(sessionId: string): void;
  /** Runs after a turn ends and before the next begins (maintenance, manual compaction). */
  betweenTurns?(context: SessionContext): Promise<void>;
}
