// The event envelope (SPEC §2) and the data shapes of the core types, as a reader finds them in
// format version 1 or 2 (the shapes of version 2 hold everything version 1 wrote; what only
// version 2 may write is marked). The validators are in core-shapes.ts, the typed accessor in
// event-data.ts.

import type { ContentBlock } from './content-block.js';
import type { JsonObject, JsonValue } from './json-value.js';
import type { SessionSeq } from './seq.js';
import type { SurfaceChange } from './surface-change.js';
import type { SurfaceOp } from './surface-op.js';

export type {
  CompactionBlock,
  ContentBlock,
  ImageBlock,
  InlineImageBlock,
  ReasoningBlock,
  ServerToolCallBlock,
  ServerToolResultBlock,
  TextBlock,
  UrlImageBlock,
} from './content-block.js';
export type { JsonObject, JsonValue } from './json-value.js';

/** The format version new sessions are written in. */
export const FORMAT_VERSION = 2;
/** The versions this reader reads; a session keeps the version its session/start names (see core-shapes.ts). */
export type FormatVersion = 1 | 2;

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
  /** A sub-session (format 2): the session that spawned it, and the tool call that did, when known. */
  parent?: SessionParent;
  /**
   * The session this one most likely continues, when a recorder could tell no more than that (a
   * client that compacted its history and sent no conversation id): never a merge, a claim with
   * its evidence.
   */
  continues?: SessionContinuation;
  /**
   * A what-if session (SPEC §15): the recorded call it asks again, under a counterfactual
   * surface. Its surface holds copies of that call's messages (data.copyOf names each original).
   */
  whatif?: WhatIfLink;
}
/** The call a what-if session asks again, and the question it asks. */
export interface WhatIfLink {
  /** The audited session. */
  sessionId: string;
  /** The seq of the audited model/request. */
  requestSeq: number;
  turn: number;
  step: number;
  /** What was changed: `{restore: 'all'}`, `{restore: [ids…]}`, `{policy: …}`, as the asker wrote it. */
  question: JsonObject;
  /** `counterfactual`: the changed surface; `recorded`: the recorded surface sent again (a sample of the model's noise). */
  variant: 'counterfactual' | 'recorded';
  /** Which sample of the variant this session is, from 1. */
  sample: number;
  /** The what-if run it belongs to (the id of its first session). */
  run: string;
}
/** A copy of an event of another session (a what-if's copy of the audited call's messages). */
export interface CopiedEvent {
  sessionId: string;
  seq: number;
}
export interface SessionParent {
  sessionId: string;
  callId?: string;
}
export interface SessionContinuation {
  sessionId: string;
  /** Why the link was made, in words. */
  reason: string;
  /** What the link rests on, as the recorder saw it (field names are the recorder's). */
  evidence?: JsonObject;
}
export interface SessionEndSeedData {
  reason: string;
}
/**
 * The first event of a branch's own (SPEC §14), at seq `forkSeq + 1`: the branch's events
 * 0 … forkSeq are its parent's, read from the parent, and its chain continues from
 * `parentHash`, the hash of the parent's event at `forkSeq`.
 */
export interface SessionForkData {
  parentSessionId: string;
  forkSeq: number;
  parentHash: string;
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
  usage?: Usage;
}

/**
 * What the provider counted for one call. A count the source does not give is absent, never
 * null; the optional counts may appear in either format version (a version-1 reader ignores them).
 */
export interface Usage {
  /** The whole input: cache reads and cache writes included. */
  inputTokens: number;
  /** The whole output: reasoning included. */
  outputTokens: number;
  /** Of inputTokens, read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Of inputTokens, written to the provider's prompt cache. */
  cacheWriteTokens?: number;
  /** Of outputTokens, spent reasoning. */
  reasoningTokens?: number;
}

export interface ToolResultData {
  callId: string;
  content: ContentBlock[];
  /** The result is an error: with the message, or (format 2) `true` when the source recorded only a flag. */
  error?: true | { message: string };
}

/**
 * Who sent a model call: absent, shadowlog itself (the spine rendered the surface and recorded
 * the digest of the canonical JSON it sent); 'imported', a call another harness made, read from
 * its files (no digest: nobody sent these bytes through shadowlog); 'proxied', a call that
 * shadowlog's proxy received and forwarded (the digest of the exact bytes received, and those
 * bytes). The last two are format 2 only.
 */
export type RequestProvenance = 'imported' | 'proxied';

/** The request body a proxy received, byte for byte: UTF-8 text, or base64 when it is not UTF-8. */
export interface StoredRequestBody {
  encoding: 'utf-8' | 'base64';
  text: string;
}

interface ModelRequestBase {
  turn: number;
  step: number;
  provider: string;
  model: string;
  /**
   * The surface rendered: `surfaceSeqs`, the seqs of its nodes in order (format 1, and format 2
   * where it is the shorter), or `surfaceChange` (format 2), the change from the session's
   * previous model/request. Exactly one is present; requestSurfaceOf decodes either.
   */
  surfaceSeqs?: SessionSeq[];
  surfaceChange?: SurfaceChange;
  /** The model's context window when the call was made, for readers of the log (manual compaction, stats). */
  contextWindow?: number;
}

/** A call the spine rendered and sent: replay rebuilds it and checks its digest. */
export interface SentModelRequestData extends ModelRequestBase {
  provenance?: undefined;
  requestBody?: undefined;
  params: JsonObject;
  /** sha256 of the canonical JSON of the request body sent. */
  requestDigest: string;
  estimatedTokens: number;
  rendererVersion: string;
}

/** A call another harness made (format 2): what its files say, and no digest. */
export interface ImportedModelRequestData extends ModelRequestBase {
  provenance: 'imported';
  requestDigest?: undefined;
  requestBody?: undefined;
  params?: JsonObject;
  estimatedTokens?: number;
  rendererVersion?: string;
}

/** A call the proxy forwarded (format 2): the exact bytes it received and their digest. */
export interface ProxiedModelRequestData extends ModelRequestBase {
  provenance: 'proxied';
  /** sha256 of the exact bytes received (not of a canonical form). */
  requestDigest: string;
  requestBody: StoredRequestBody;
  params?: JsonObject;
  estimatedTokens?: number;
  rendererVersion?: string;
}

export type ModelRequestData = SentModelRequestData | ImportedModelRequestData | ProxiedModelRequestData;
export interface ModelErrorData {
  turn: number;
  step: number;
  code: string;
  message: string;
  retryable: boolean;
  contextOverflow: boolean;
}

/**
 * A model's answer that could not be appended as an assistant/message, kept so that nothing a
 * model said is missing from the record: a log rule refused it (the turn then ends with `error`),
 * or the proxy forwarded a request whose messages are not on the session's surface, and its
 * answer continues no surface (code PROXY_OFF_SURFACE).
 */
export interface ModelUnrecordedAnswerData {
  turn: number;
  step: number;
  /** The code and message of the error that refused the answer. */
  code: string;
  message: string;
  /** The answer as it arrived; see RawAnswer. */
  raw: RawAnswer;
  /** The provider's counts, when the answer could be read (the proxy records them). */
  usage?: Usage;
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
  'session/fork',
  'turn/start',
  'turn/end',
  'model/request',
  'model/error',
  'model/unrecorded-answer',
] as const;

export function isSurfaceType(type: string): type is SurfaceType {
  return (SURFACE_TYPES as readonly string[]).includes(type);
}
