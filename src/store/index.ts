// The store contract and what works over any store, published as `shadowlog/store`: the
// LogStore interface, the memory store, SessionLog, JSONL export and import, copying between
// stores, following a live session. The SQLite and PostgreSQL backends are their own subpaths.

export { AmbiguousSessionError, type SessionCandidate } from './ambiguous-session-error.js';
export { type ForkLink, ForkParentError } from './branch-link.js';
export { CheckpointExistsError, CheckpointKeyError } from './checkpoint-errors.js';
export {
  CHECKPOINT_KEY_FILE_VARIABLE,
  type CheckpointKey,
  checkpointKeyPath,
  createCheckpointKey,
  loadCheckpointKeyFile,
  readCheckpointKeyFile,
} from './checkpoint-key.js';
export {
  type CopiedSession,
  type CopyProgress,
  type CopyResult,
  type CopySessionsOptions,
  copySessions,
  type SessionConflict,
  SessionConflictError,
} from './copy-sessions.js';
export { type ExportFileOptions, type ExportFileResult, exportSessionToFile } from './export-file.js';
export { FileError, type FileProblem, LineTooLongError } from './file-errors.js';
export {
  type CheckedCheckpoint,
  type CheckpointFinding,
  type CheckpointReport,
  type CheckpointStatus,
  checkCheckpoint,
  DEFAULT_CHECKPOINTS_KEPT,
  encodeWalkedFold,
  type RestoreOptions,
  restoreFromCheckpoint,
  verifyCheckpoints,
  writeFoldCheckpoint,
} from './fold-checkpoints.js';
export { DEFAULT_POLL_MS, type FollowOptions, followSession } from './follow.js';
export {
  collectInputBytes,
  DEFAULT_MAX_INPUT_BYTES,
  DEFAULT_MAX_LINE_BYTES,
  type InputFileOptions,
  readInputBytes,
  readInputFile,
  readInputFileSync,
  type WholeInputOptions,
} from './input-file.js';
export {
  type ExportSummary,
  exportSession,
  type FileVerifyResult,
  type ImportOptions,
  type ImportResult,
  importSession,
  importSessionFile,
  JSONL_FORMAT,
  JSONL_VERSION,
  type JsonlHeader,
  type JsonlReadOptions,
  type JsonlRecord,
  type JsonlTrailer,
  readJsonl,
  type TrailerStatus,
  verifyJsonlFile,
} from './jsonl.js';
export {
  type AppendOptions,
  type CheckpointEntry,
  type CheckpointStore,
  hasCheckpoints,
  type LogHead,
  type LogStore,
  type Ownership,
  type ReadRange,
  type StoredCheckpoint,
  type StoredSession,
} from './log-store.js';
export { MemoryLogStore } from './memory/memory-store.js';
export { nodeSha256, nodeSha256Hex } from './node-sha256.js';
export {
  checkOutputTarget,
  type OutputContent,
  type OutputFileHandle,
  type OutputFileOptions,
  type OutputFileResult,
  type OutputFileStats,
  type OutputFileSystem,
  type OutputWrite,
  writeOutputFile,
} from './output-file.js';
export { readSessionOrigin } from './read-session-origin.js';
export { resolveSessionId } from './resolve-session.js';
export { scanSearch, searchStore } from './search/scan-search.js';
export type { SearchPlace } from './search/search-place.js';
export {
  DEFAULT_SEARCH_LIMIT,
  hasSearch,
  MAX_SEARCH_LIMIT,
  type SearchableStore,
  type SearchHit,
  type SearchQuery,
  SearchQueryError,
  type SearchResult,
} from './search/search-query.js';
export { SEARCH_KINDS, type SearchKind, type SearchPart, searchParts } from './search/search-text.js';
export { type CheckpointedObserver, DEFAULT_CHECKPOINT_EVERY, HARNESS_VERSION, SessionLog, type SessionLogOptions } from './session-log.js';
export {
  CheckpointsUnsupportedError,
  type LostAppendOutcome,
  OwnershipLostError,
  SchemaVersionError,
  StoreClosedError,
  StoreNotFoundError,
  StoreReadOnlyError,
} from './store-errors.js';
