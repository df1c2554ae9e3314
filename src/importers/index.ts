// Importing the sessions of other harnesses (Claude Code, Codex, pi) and shadowlog exports,
// published as `shadowlog/importers`: read the inputs, import them in one transaction, and
// the report of what was mapped and what was not.

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
export type { FileReport, ImportSummary, SessionReport, UnmappedPart } from './import-report.js';
