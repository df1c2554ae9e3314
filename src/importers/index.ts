// Importing the sessions of other harnesses (Claude Code, Codex, pi) and shadowlog exports,
// published as `shadowlog/importers`: read the inputs, import them in one transaction, and
// the report of what was mapped and what was not.

export { type Harness, type HarnessLocation, type HarnessLocationOptions, harnessLocations } from './harness-locations.js';
export {
  DEFAULT_SETTLE_MS,
  HarnessSync,
  type HarnessSyncOptions,
  type HarnessSyncReport,
  type SyncedSession,
  type SyncPassReport,
  syncHarnesses,
} from './harness-sync.js';
export {
  IMPORT_FORMATS,
  type ImportConflict,
  ImportConflictError,
  type ImportFormat,
  ImportFormatMismatchError,
  ImportInputError,
  ImportMappingError,
  MixedImportFormatError,
  UnknownImportFormatError,
} from './import-errors.js';
export { type ImportFilesOptions, importFiles } from './import-files.js';
export { type ImportInput, type ReadImportOptions, readImportInputs } from './import-inputs.js';
export type { FailedFile, FileReport, ImportSummary, SessionReport, SkippedFile, TreePath, UnmappedPart } from './import-report.js';
export { DEFAULT_WATCH_INTERVAL_MS, type WatchHarnessesOptions, watchHarnesses } from './watch-harnesses.js';
