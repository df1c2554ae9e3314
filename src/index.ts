// The public API of shadowlog. Optional parts have subpath exports (shadowlog/store/sqlite).

export { CompactionCapability, type CompactionOptions, createCompaction, type ManualOutcome } from './compaction/compaction-capability.js';
export { COMPACTION_EVENT_TYPES, type CompactionTrigger } from './compaction/event-types.js';
export * from './compaction/policy.js';
export { parsePrunerConfig, pruneMarker } from './compaction/pruner-config.js';
export { replaySummary, type SummaryReplayResult } from './compaction/replay-summary.js';
export {
  createExtractiveSummarizer,
  createModelSummarizer,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
} from './compaction/summarizer.js';
export { createToolResultPruner, ToolResultPruner } from './compaction/tool-result-pruner.js';
export type { CompactionFailure, CompactionOutcome } from './compaction/transaction.js';
export { canonicalJson } from './log/canonical-json.js';
export { attachCleanupFailure, cleanupFailuresOf, runCleanupAfter, withCleanup } from './log/cleanup.js';
export { blockPlaceholder, imageBlockFromUrl, parseBase64DataUrl, readableText } from './log/content-block.js';
export {
  ConcurrencyError,
  ConfigError,
  CorruptLogError,
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
} from './log/errors.js';
export type {
  AssistantMessageData,
  ContentBlock,
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
  SessionEndSeedData,
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
} from './log/event.js';
export { CORE_LOG_ONLY_TYPES, FORMAT_VERSION, isSurfaceType, SURFACE_TYPES, TURN_END_REASONS } from './log/event.js';
export { type CoreEventData, type CoreEventType, dataOf } from './log/event-data.js';
export { type EventTypeDefinition, EventTypeRegistry } from './log/event-types.js';
export {
  FOREIGN_SOURCES,
  type ForeignEventData,
  type ForeignSource,
  foreignEventDraft,
  foreignEventType,
  isForeignType,
} from './log/foreign-event.js';
export { computeEventHash, envelopeJson, GENESIS_HASH } from './log/hash.js';
export { NotASurfaceEventError, origins, type ReadEvent } from './log/origins.js';
export { RequestSurfaceDecoder, requestSurfaceLength, requestSurfaceOf, requestSurfacesOf } from './log/request-surface.js';
export { type PreparedAppend, prepareAppend } from './log/seal.js';
export { asSessionSeq, isSessionSeq, type SessionSeq } from './log/seq.js';
export { assertSessionId, isSessionId } from './log/session-id.js';
export { sha256Hex } from './log/sha256.js';
export { encodeRequestSurface, type RequestSurfaceList, type SurfaceChange, type SurfaceSplice } from './log/surface-change.js';
export { SurfaceFold, type SurfaceFoldOptions, type SurfaceNode } from './log/surface-fold.js';
export { isReplaceOp, type ReplaceOp, type SurfaceOp } from './log/surface-op.js';
export { type VerifyProblem, type VerifyReport, verifyLog } from './log/verify.js';
export * from './meter/index.js';
export * from './providers/index.js';
export { AgentSession, type SendOptions as TurnOptions, type TurnResult } from './spine/agent-session.js';
export type { Capability, RequestErrorContext, SessionContext, StepContext } from './spine/capability.js';
export { createHarness, Harness, type HarnessOptions, newSessionId } from './spine/harness.js';
export { renderSurface, SURFACE_RENDERER_VERSION } from './spine/render-surface.js';
export { type RendererResolver, type ReplayOptions, type ReplayResult, type ReplayTarget, replay } from './spine/replay.js';
export { ReplayError, TooLargeToRecordError, TurnInProgressError, UnrecordedAnswerError } from './spine/spine-errors.js';
export { defineTool, type Tool, type ToolContext, type ToolOutput, type ToolSpec } from './spine/tool.js';
export { DEFAULT_MAX_TOOL_RESULT_CHARS, MAX_TOOL_RESULT_CHARS_LIMIT } from './spine/tool-results.js';
export { createFileTools } from './spine/tools/file-tools.js';
export {
  type CopiedSession,
  type CopyProgress,
  type CopyResult,
  type CopySessionsOptions,
  copySessions,
  type SessionConflict,
  SessionConflictError,
} from './store/copy-sessions.js';
export { FileError } from './store/file-errors.js';
export { DEFAULT_POLL_MS, type FollowOptions, followSession } from './store/follow.js';
export { exportSession, type ImportOptions, type ImportResult, importSession, importSessionFile } from './store/jsonl.js';
export type { AppendOptions, LogHead, LogStore, Ownership, ReadRange, StoredSession } from './store/log-store.js';
export { MemoryLogStore } from './store/memory/memory-store.js';
export { HARNESS_VERSION, SessionLog, type SessionLogOptions } from './store/session-log.js';
export {
  OwnershipLostError,
  SchemaVersionError,
  StoreClosedError,
  StoreNotFoundError,
  StoreReadOnlyError,
} from './store/store-errors.js';
