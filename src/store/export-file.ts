// Exporting a session to a file that either appears whole or not at all, by the rules of every
// output file (output-file.ts): written to a temporary file beside the target, flushed to disk,
// and only then given the target's name. A failure on the way (a full disk, a dead directory)
// removes the temporary file and is one typed FileError; an existing file is never overwritten
// (not even one created meanwhile) unless `force` says so.

import { SessionNotFoundError } from '../log/errors.js';
import { assertSessionId } from '../log/session-id.js';
import { type ExportSummary, writeExport } from './jsonl.js';
import type { LogStore } from './log-store.js';
import { type OutputFileHandle, type OutputFileSystem, writeOutputFile } from './output-file.js';

/** An open file, as much of node:fs/promises' FileHandle as the export uses. */
export type ExportFileHandle = OutputFileHandle;

/** The file system calls the export makes (node:fs/promises by default; a test may pass its own). */
export type ExportFileSystem = OutputFileSystem;

export interface ExportFileOptions {
  readonly fileSystem?: ExportFileSystem;
  /** Replace a file already at the path (default false: FILE_EXISTS). */
  readonly force?: boolean;
}

export interface ExportFileResult extends ExportSummary {
  /** The absolute path written. */
  readonly path: string;
}

/**
 * Writes `sessionId` as a JSONL export to `path`, which must not exist unless `force`. The file
 * holds the whole session, so it is created readable by its owner only (0o600).
 */
export async function exportSessionToFile(
  store: LogStore,
  sessionId: string,
  path: string,
  options: ExportFileOptions = {},
): Promise<ExportFileResult> {
  assertSessionId(sessionId);
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const fileOptions = {
    mode: 0o600,
    ...(options.fileSystem === undefined ? {} : { fileSystem: options.fileSystem }),
    ...(options.force === undefined ? {} : { force: options.force }),
  };
  let summary: ExportSummary | undefined;
  const written = await writeOutputFile(
    path,
    async (write) => {
      summary = await writeExport(store, sessionId, write);
    },
    fileOptions,
  );
  return { ...(summary as ExportSummary), path: written.path };
}
