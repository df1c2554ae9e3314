// What a source mapper hands the session builder for one model call, in shadowlog's terms.

import type { ContentBlock, JsonValue, Usage } from '../log/event.js';

/**
 * Where an event came from in the source file: the line, and its text when this event is the
 * one that keeps it (every line's text is kept exactly once, in a foreign event or in the
 * `sourceLines` of the event mapped from it).
 */
export interface SourceLineRef {
  readonly line: number;
  readonly text?: string;
}

/** A tool call as the source wrote it; the builder gives it a call id unique in the session. */
export interface SourceToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: JsonValue;
  readonly argumentsText?: string;
}

interface ImportedCallBase {
  readonly provider: string;
  readonly model: string;
  /** The window the source states for the call (Codex does); else --window, else the model table's. */
  readonly contextWindow?: number;
  readonly usage?: Usage;
  readonly sourceLines: readonly SourceLineRef[];
}

/** A call that answered: its assistant message. */
export interface ImportedAnswer extends ImportedCallBase {
  readonly content: ContentBlock[];
  readonly toolCalls: readonly SourceToolCall[];
  /** Further data of the assistant message (a copy's copyOf, say). */
  readonly extra?: Record<string, unknown>;
}

/** A call that failed or was cut off (pi's `error` and `aborted` answers). */
export interface ImportedFailure extends ImportedCallBase {
  readonly code: string;
  readonly message: string;
}
