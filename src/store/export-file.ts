// Exporting a session to a file that either appears whole or not at all: the export is written
// to a temporary file beside the target, flushed to disk, and only then given the target's
// name. A failure on the way (a full disk, a dead directory) removes the temporary file and is
// one typed FileError; an existing file is never overwritten, not even one created meanwhile.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { messageOf, SessionNotFoundError } from '../log/errors.js';
import { assertSessionId } from '../log/session-id.js';
import { FileError, outputFileError, systemCodeOf } from './file-errors.js';
import { type ExportSummary, writeExport } from './jsonl.js';
import type { LogStore } from './log-store.js';

/** An open file, as much of node:fs/promises' FileHandle as the export uses. */
export interface ExportFileHandle {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file system calls the export makes (node:fs/promises by default; a test may pass its own). */
export interface ExportFileSystem {
  open(path: string, flags: 'wx'): Promise<ExportFileHandle>;
  link(existingPath: string, newPath: string): Promise<void>;
  rename(oldPath: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
  lstat(path: string): Promise<unknown>;
}

export interface ExportFileOptions {
  readonly fileSystem?: ExportFileSystem;
}

export interface ExportFileResult extends ExportSummary {
  /** The absolute path written. */
  readonly path: string;
}

/** Hard links are what make "never overwrite" atomic; these say a file system has none. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

/** Writes `sessionId` as a JSONL export to `path`, which must not exist. */
export async function exportSessionToFile(
  store: LogStore,
  sessionId: string,
  path: string,
  options: ExportFileOptions = {},
): Promise<ExportFileResult> {
  assertSessionId(sessionId);
  const fileSystem = options.fileSystem ?? fs;
  const target = resolve(path);
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  await refuseExisting(fileSystem, target);
  const partial = join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.partial`);
  let handle: ExportFileHandle | undefined;
  try {
    handle = await fileSystem.open(partial, 'wx');
    const file = handle;
    const summary = await writeExport(store, sessionId, (chunk) => writeAll(file, Buffer.from(chunk, 'utf8')));
    // On disk before it has the target's name: a crash leaves no file, or a whole one.
    await file.sync();
    handle = undefined;
    await file.close();
    await publish(fileSystem, partial, target);
    return { ...summary, path: target };
  } catch (error) {
    throw await cleanUp(fileSystem, error, handle, partial, target);
  }
}

async function refuseExisting(fileSystem: ExportFileSystem, target: string): Promise<void> {
  try {
    await fileSystem.lstat(target);
  } catch (error) {
    if (systemCodeOf(error) === 'ENOENT') return;
    throw outputFileError(error, target) ?? error;
  }
  throw outputFileError(Object.assign(new Error(`EEXIST: ${target}`), { code: 'EEXIST' }), target);
}

async function writeAll(file: ExportFileHandle, buffer: Buffer): Promise<void> {
  for (let offset = 0; offset < buffer.length; ) {
    const { bytesWritten } = await file.write(buffer, offset, buffer.length - offset);
    if (bytesWritten <= 0) throw Object.assign(new Error('the file system accepted no bytes'), { code: 'EIO' });
    offset += bytesWritten;
  }
}

/** Gives the finished file the target's name, refusing to replace a file that appeared meanwhile. */
async function publish(fileSystem: ExportFileSystem, partial: string, target: string): Promise<void> {
  try {
    // link() fails with EEXIST instead of replacing: the check and the naming are one step.
    await fileSystem.link(partial, target);
  } catch (error) {
    if (!NO_HARD_LINKS.has(systemCodeOf(error) ?? '')) throw error;
    // A file system without hard links: check, then rename (which would replace a file created
    // in between; nothing better is portable).
    await refuseExisting(fileSystem, target);
    await fileSystem.rename(partial, target);
    return;
  }
  await fileSystem.unlink(partial);
}

/**
 * Closes and removes the temporary file after `error`, and returns the error to throw: the
 * typed one for a file system failure, saying whether anything was left behind. A cleanup that
 * fails too is named in it, never thrown in its place.
 */
async function cleanUp(
  fileSystem: ExportFileSystem,
  error: unknown,
  handle: ExportFileHandle | undefined,
  partial: string,
  target: string,
): Promise<unknown> {
  const failures: string[] = [];
  if (handle !== undefined) await handle.close().catch((closeError: unknown) => failures.push(`closing it: ${messageOf(closeError)}`));
  await fileSystem.unlink(partial).catch((unlinkError: unknown) => {
    if (systemCodeOf(unlinkError) !== 'ENOENT') failures.push(`removing it: ${messageOf(unlinkError)}`);
  });
  const typed = outputFileError(error, target);
  const note =
    failures.length === 0
      ? 'nothing was left behind'
      : `and the temporary file ${partial} could not be cleaned up (${failures.join('; ')}): remove it by hand`;
  if (typed === undefined) {
    if (failures.length === 0) return error;
    return new FileError('failed', target, `exporting to ${target} failed (${messageOf(error)}); ${note}`, { cause: error });
  }
  return new FileError(typed.problem, target, `${typed.message}; ${note}`, {
    cause: error,
    ...(typed.systemCode === undefined ? {} : { systemCode: typed.systemCode }),
  });
}
