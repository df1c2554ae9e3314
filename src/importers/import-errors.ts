// The typed errors of importing another harness's files: a file whose format is unknown or is
// not the one asked for, and sessions the store already holds with other events.

import { ShadowlogError } from '../log/errors.js';

/** The formats `shadowlog import` reads. */
export const IMPORT_FORMATS = ['shadowlog', 'claude-code', 'codex', 'pi'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

const DESCRIBED: Record<ImportFormat, string> = {
  shadowlog: 'a shadowlog JSONL export',
  'claude-code': 'a Claude Code transcript',
  codex: 'a Codex CLI rollout',
  pi: 'a pi session',
};

export function describeFormat(format: ImportFormat): string {
  return DESCRIBED[format];
}

/** A file that is none of the formats shadowlog imports. */
export class UnknownImportFormatError extends ShadowlogError {
  readonly path: string;
  /** What the file holds instead ("no records at all", "line 1 is a record of type …"). */
  readonly found: string;
  constructor(path: string, found: string) {
    super(
      'UNKNOWN_IMPORT_FORMAT',
      `${path} is not a format shadowlog imports: expected ${IMPORT_FORMATS.map((format) => DESCRIBED[format]).join(', ')}, found ${found}. Check the file, or name its format with --format ${IMPORT_FORMATS.join('|')}`,
    );
    this.path = path;
    this.found = found;
  }
}

/** A file given with --format X whose content is not X. */
export class ImportFormatMismatchError extends ShadowlogError {
  readonly path: string;
  readonly expected: ImportFormat;
  readonly detected: ImportFormat | undefined;
  constructor(path: string, expected: ImportFormat, detected: ImportFormat | undefined, found: string) {
    const hint = detected === undefined ? '' : `; it looks like ${DESCRIBED[detected]}: use --format ${detected}, or --format auto`;
    super('IMPORT_FORMAT_MISMATCH', `${path} was given as ${DESCRIBED[expected]}, but ${found}${hint}`);
    this.path = path;
    this.expected = expected;
    this.detected = detected;
  }
}

/** A file whose records are of two formats: a file holds one harness's session, so it is refused. */
export class MixedImportFormatError extends ShadowlogError {
  readonly path: string;
  readonly formats: readonly [ImportFormat, ImportFormat];
  /** The line of the first record of the second format. */
  readonly line: number;
  constructor(
    path: string,
    first: { format: ImportFormat; evidence: string },
    other: { format: ImportFormat; evidence: string },
    line: number,
  ) {
    super(
      'MIXED_IMPORT_FORMATS',
      `${path} mixes two formats: ${first.evidence}, but ${other.evidence}; a session file holds one harness's session, so nothing was imported. Split the file into one file per session (each harness writes its own), and import those`,
    );
    this.path = path;
    this.formats = [first.format, other.format];
    this.line = line;
  }
}

export interface ImportConflict {
  readonly sessionId: string;
  readonly path: string;
  readonly storedEvents: number;
  readonly importedEvents: number;
  /** The first seq where the store and the file part. */
  readonly firstDifferentSeq?: number;
  /** The first line of the file that differs from what was imported, or that imports differently now. */
  readonly line?: number;
  /** What differs, in words. */
  readonly reason?: string;
}

/** Sessions the store already holds under the same id with other events: nothing is imported. */
export class ImportConflictError extends ShadowlogError {
  readonly conflicts: readonly ImportConflict[];
  constructor(location: string, conflicts: readonly ImportConflict[]) {
    const shown = conflicts
      .slice(0, 5)
      .map(
        (conflict) =>
          `${conflict.sessionId} from ${conflict.path} (${conflict.storedEvents} events stored, ${conflict.importedEvents} read now${conflict.reason === undefined ? '' : `; ${conflict.reason}`})`,
      );
    if (conflicts.length > 5) shown.push(`and ${conflicts.length - 5} more`);
    super(
      'SESSION_CONFLICT',
      `${location} already holds ${conflicts.length === 1 ? 'a session' : `${conflicts.length} sessions`} of the same id with different events: ${shown.join(', ')}; nothing was imported. A file that only grew imports its new records; one whose imported part changed cannot be appended to what the store holds: import it under another id with --as ID (one file), or into another store`,
    );
    this.conflicts = conflicts;
  }
}

/** Bad input for an import as a whole (a directory with nothing to import, --as with several files). */
export class ImportInputError extends ShadowlogError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

/** A line whose mapping shadowlog's own log rules refuse: a gap in an importer, named by file and line. */
export class ImportMappingError extends ShadowlogError {
  readonly path: string;
  /** The lines being mapped: one record's, or the lines of one answer. */
  readonly lines: readonly number[];
  constructor(path: string, lines: readonly number[], cause: ShadowlogError) {
    const where = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(', ')} (one answer)`;
    super(
      'IMPORT_REFUSED',
      `${path} ${where}: what it maps to breaks a rule of the log (${cause.message}); nothing was imported. The importer does not know this shape of record yet: please report the line`,
      { cause },
    );
    this.path = path;
    this.lines = lines;
  }
}
