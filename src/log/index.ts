// The log (SPEC §1–§5), published as `shadowlog/log`: events and their data, the typed errors,
// the hash chain, the surface fold and its projections, origins and verification.

export { canonicalJson } from './canonical-json.js';
export { attachCleanupFailure, cleanupFailuresOf, runCleanupAfter, withCleanup } from './cleanup.js';
export { blockPlaceholder, imageBlockFromUrl, parseBase64DataUrl, readableText } from './content-block.js';
export { copiedEventOf, copyOfSeq } from './copy-of.js';
export { type DuplicateKey, findDuplicateKey } from './duplicate-keys.js';
export {
  ConcurrencyError,
  ConfigError,
  CorruptLogError,
  ForkPointError,
  FormatVersionError,
  HashChainError,
  InvalidEventError,
  InvalidSessionIdError,
  SeqOutOfRangeError,
  SessionBusyError,
  SessionExistsError,
  SessionNotFoundError,
  ShadowlogError,
  SurfaceOpError,
  type SurfaceOpRule,
  UnknownEventTypeError,
} from './errors.js';
export type {
  AssistantMessageData,
  CompactionBlock,
  ContentBlock,
  CopiedEvent,
  EventDraft,
  FormatVersion,
  ImageBlock,
  ImportedModelRequestData,
  InlineImageBlock,
  JsonObject,
  JsonValue,
  LogEvent,
  MessageData,
  ModelErrorData,
  ModelRequestData,
  ModelUnrecordedAnswerData,
  ProxiedModelRequestData,
  RawAnswer,
  ReasoningBlock,
  RequestProvenance,
  SentModelRequestData,
  ServerToolCallBlock,
  ServerToolResultBlock,
  SessionContinuation,
  SessionEndSeedData,
  SessionForkData,
  SessionParent,
  SessionStartData,
  StoredRequestBody,
  SurfaceType,
  TextBlock,
  ToolCall,
  ToolResultData,
  TurnEndData,
  TurnEndReason,
  TurnStartData,
  UrlImageBlock,
  Usage,
  WhatIfLink,
} from './event.js';
export { CORE_LOG_ONLY_TYPES, FORMAT_VERSION, isSurfaceType, SURFACE_TYPES, TURN_END_REASONS } from './event.js';
export { type CoreEventData, type CoreEventType, dataOf } from './event-data.js';
export { canonicalEventJson } from './event-json.js';
export { type EventTypeDefinition, EventTypeRegistry } from './event-types.js';
export {
  CHECKPOINT_VERSION,
  type CheckpointHeader,
  decodeFoldState,
  encodeFoldCheckpoint,
  type ObservedState,
  readCheckpointHeader,
} from './fold-checkpoint.js';
export type { FoldState, MeterState, RequestState } from './fold-state.js';
export {
  FOREIGN_SOURCES,
  type ForeignEventData,
  type ForeignSource,
  foreignEventDraft,
  foreignEventType,
  isForeignType,
} from './foreign-event.js';
export { checkForkEvent, type ForkPointFold, forkPointProblem } from './fork-point.js';
export { computeEventHash, GENESIS_HASH, type Hasher, type Sha256, type Sha256State } from './hash.js';
export { type InProcessRecording, inProcessRecording } from './in-process-recording.js';
export { offSurfaceReason } from './off-surface.js';
export { NotASurfaceEventError, origins, type ReadEvent } from './origins.js';
export { RequestSurfaceDecoder, requestSurfaceLength, requestSurfaceOf, requestSurfacesOf } from './request-surface.js';
export { asSessionSeq, isSessionSeq, type SessionSeq } from './seq.js';
export { assertSessionId, isSessionId } from './session-id.js';
export { FIRST_REQUEST_LENGTH, SESSION_SOURCES, type SessionOrigin, SessionOriginFold, type SessionSource } from './session-origin.js';
export { sha256Hex, typescriptSha256 } from './sha256.js';
export { encodeRequestSurface, type RequestSurfaceList, type SurfaceChange, type SurfaceSplice } from './surface-change.js';
export { SurfaceFold, type SurfaceFoldOptions, type SurfaceNode } from './surface-fold.js';
export { isReplaceOp, type ReplaceOp, type SurfaceOp } from './surface-op.js';
export { type VerifyOptions, type VerifyProblem, type VerifyReport, verifyLog } from './verify.js';
