// The event envelope (SPEC §2) and the data shapes of format version 1.

import type { SessionSeq } from './seq.js';
import type { SurfaceOp } from './surface-op.js';

export const FORMAT_VERSION = 1;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A stored event: sealed with its seq, time and hash. */
export interface LogEvent {
  readonly seq: SessionSeq;
  readonly type: string;
  /** ISO-8601 UTC, e.g. 2026-11-30T07:09:52.123Z. */
  readonly time: string;
  readonly data: JsonObject;
  /** Present exactly on surface types. */
  readonly surfaceOp?: SurfaceOp;
  /** Present exactly on surface events whose surfaceOp is a replace. */
  readonly sourceEventSeqs?: readonly SessionSeq[];
  /** An event of a type the reader does not know may be skipped only when this is true. */
  readonly ignorable?: true;
  /** Lowercase hex SHA-256 of prevHash + canonicalJson(envelope without hash). */
  readonly hash: string;
}

/** What a writer supplies; the log assigns seq, time (unless given) and hash. */
export interface EventDraft {
  readonly type: string;
  readonly data: JsonObject | object;
  readonly surfaceOp?: SurfaceOp;
  readonly sourceEventSeqs?: readonly number[];
  readonly ignorable?: true;
  readonly time?: string;
}

export type TextBlock = { type: 'text'; text: string };
export type ImageBlock = { type: 'image'; mediaType: string; data: string };
export type ContentBlock = TextBlock | ImageBlock;

export interface ToolCall {
  /** Unique within the session: what its tool/result names, and the id renderers send. */
  callId: string;
  name: string;
  /**
   * The arguments as a JSON value. When the provider's text is not JSON that canonical JSON can
   * hold (not JSON at all, or a number such as 1e400 that parses to Infinity), that text as a
   * string, and `argumentsText` holds it too.
   */
  arguments: JsonValue;
  /**
   * The arguments exactly as the provider wrote them, present when `arguments` would not give
   * them back: text that is not canonical JSON (key order, spaces, escapes), a JSON string
   * literal, or text that `arguments` cannot hold. A string `arguments` without it was written
   * by an earlier version and is text that was not JSON.
   */
  argumentsText?: string;
  /** The id the provider gave the call, present when `callId` differs: it was empty, repeated in the answer, or already used in the session. */
  providerCallId?: string;
}

export interface SessionStartData {
  formatVersion: number;
  harnessVersion: string;
}
export interface SessionEndSeedData {
  reason: string;
}
export interface TurnStartData {
  turn: number;
}
export const TURN_END_REASONS = ['completed', 'aborted', 'error', 'max-steps', 'interrupted'] as const;
export type TurnEndReason = (typeof TURN_END_REASONS)[number];
export interface TurnEndData {
  turn: number;
  reason: TurnEndReason;
}
export interface MessageData {
  content: ContentBlock[];
}
export interface AssistantMessageData {
  content: ContentBlock[];
  toolCalls: ToolCall[];
  model: string;
  usage?: { inputTokens: number; outputTokens: number };
}
export interface ToolResultData {
  callId: string;
  content: ContentBlock[];
  error?: { message: string };
}
export interface ModelRequestData {
  turn: number;
  step: number;
  provider: string;
  model: string;
  params: JsonObject;
  surfaceSeqs: SessionSeq[];
  requestDigest: string;
  estimatedTokens: number;
  rendererVersion: string;
}
export interface ModelErrorData {
  turn: number;
  step: number;
  code: string;
  message: string;
  retryable: boolean;
  contextOverflow: boolean;
}

/**
 * A model's answer that could not be appended as an assistant/message (a log rule refused it),
 * kept so that nothing a model said is missing from the record. The turn ends with `error`.
 */
export interface ModelUnrecordedAnswerData {
  turn: number;
  step: number;
  /** The code and message of the error that refused the answer. */
  code: string;
  message: string;
  /** The answer as it arrived; see RawAnswer. */
  raw: RawAnswer;
}

/**
 * An answer as it arrived: `json`, the response body; `sse`, the stream's events as event-stream
 * text (`event:` and `data:` lines, a blank line after each); `result`, for a model with no wire
 * form (the scripted one), the JSON of its result with values JSON cannot hold written as text.
 */
export interface RawAnswer {
  format: 'json' | 'sse' | 'result';
  text: string;
}

/** The event types that make up what the model is shown. */
export const SURFACE_TYPES = ['system/message', 'user/message', 'assistant/message', 'tool/result'] as const;
export type SurfaceType = (typeof SURFACE_TYPES)[number];

/** The spine's own log-only types. */
export const CORE_LOG_ONLY_TYPES = [
  'session/start',
  'session/end-seed',
  'turn/start',
  'turn/end',
  'model/request',
  'model/error',
  'model/unrecorded-answer',
] as const;

export function isSurfaceType(type: string): type is SurfaceType {
  return (SURFACE_TYPES as readonly string[]).includes(type);
}
