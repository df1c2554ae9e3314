// The one way shadowlog writes a file a user named (`export -o`, `view --out`, `tune --out`,
// `tune --policy-file`): an existing file is refused unless the caller says `force`; the content
// goes to a temporary file beside the target (created exclusively), is flushed to disk, and only
// then gets the target's name, so the file appears whole or not at all; every failure of the file
// system is one typed FileError, and the temporary file is removed.
//
// The target itself is what gets replaced: a symbolic link there is refused like a file, and
// with `force` the link is replaced, never written through. A directory or a special file (a
// device such as /dev/full, a FIFO) is refused before anything is written, `force` or not.

import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { messageOf } from '../log/errors.js';
import { describeFileKind, existingOutputError, FileError, outputFileError, systemCodeOf } from './file-errors.js';

/** An open file, as much of node:fs/promises' FileHandle as writing one uses. */
export interface OutputFileHandle {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** What lstat tells of a path, as much as the checks use. */
export interface OutputFileStats {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}

/** The file system calls an output file needs (node:fs/promises by default; a test may pass its own). */
export interface OutputFileSystem {
  open(path: string, flags: 'wx', mode?: number): Promise<OutputFileHandle>;
  link(existingPath: string, newPath: string): Promise<void>;
  rename(oldPath: string, newPath: string): Promise<void>;
  unlink(path: string): Promise<void>;
  lstat(path: string): Promise<OutputFileStats>;
}

export interface OutputFileOptions {
  /** Replace a file (or symbolic link) already at the target. Default false: it is refused with FILE_EXISTS. */
  readonly force?: boolean;
  /** The permissions of the new file, less the umask (default 0o644; 0o600 for what only its owner should read). */
  readonly mode?: number;
  readonly fileSystem?: OutputFileSystem;
}

/** Writes a chunk to the temporary file, resolving once the file system has taken all of it. */
export type OutputWrite = (chunk: string | Uint8Array) => Promise<void>;

/** What to write: the whole content, or a function that writes it in chunks. */
export type OutputContent = string | Uint8Array | ((write: OutputWrite) => Promise<void>);

export interface OutputFileResult {
  /** The absolute path written. */
  readonly path: string;
  readonly bytes: number;
}

/** Hard links are what make "never overwrite" atomic; these say a file system has none. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

/** Writes `content` to `path` under the rules above; returns the absolute path and the bytes written. */
export async function writeOutputFile(path: string, content: OutputContent, options: OutputFileOptions = {}): Promise<OutputFileResult> {
  const staged = await stageOutputFile(path, content, options);
  try {
    await staged.publish();
  } catch (error) {
    throw await staged.discard(error);
  }
  return { path: staged.path, bytes: staged.bytes };
}

/**
 * Refuses a target that may not be written, before anything is: a directory or special file
 * always; a file or symbolic link unless `force`. A missing target is fine.
 */
export async function checkOutputTarget(path: string, options: Omit<OutputFileOptions, 'mode'> = {}): Promise<void> {
  const fileSystem = options.fileSystem ?? fs;
  const target = resolve(path);
  let stats: OutputFileStats;
  try {
    stats = await fileSystem.lstat(target);
  } catch (error) {
    if (systemCodeOf(error) === 'ENOENT') return;
    throw outputFileError(error, target) ?? error;
  }
  if (stats.isFile() || stats.isSymbolicLink()) {
    if (options.force === true) return;
    throw existingOutputError(
      target,
      stats.isSymbolicLink() ? 'a symbolic link, which --force replaces itself, never what it points to' : undefined,
    );
  }
  throw notWritableKind(target, describeFileKind(stats));
}

/**
 * Refuses a path to write files into that is there and is not a directory (a symbolic link to
 * one is followed: the user named it). A missing one is fine: prepareOutputDirectory makes it.
 */
export async function checkOutputDirectory(directory: string): Promise<void> {
  const target = resolve(directory);
  const existing = await fs.stat(target).catch((error: unknown) => {
    if (systemCodeOf(error) === 'ENOENT') return undefined;
    throw outputFileError(error, target) ?? error;
  });
  if (existing === undefined) {
    // Missing: it is made later, in a parent that must exist; say so now rather than after the work.
    const parent = dirname(target);
    const parentIsDirectory = await fs.stat(parent).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (!parentIsDirectory) throw outputFileError(Object.assign(new Error(`ENOENT: ${parent}`), { code: 'ENOENT' }), target);
    return;
  }
  if (existing.isDirectory()) return;
  const kind = existing.isFile() ? 'a file' : describeFileKind(existing);
  throw new FileError(
    'not-a-file',
    target,
    `${target} is ${kind}, not a directory; give a directory to write into (a missing one is made)`,
  );
}

/**
 * Makes `directory` ready to hold output files: an existing directory, or a new one made here.
 * Only the directory itself is made, in a parent that exists: a mistyped path never grows a tree
 * of directories (nor loops, as a recursive mkdir can on /proc). Returns whether it was made, so
 * that a caller can remove it again.
 */
export async function prepareOutputDirectory(directory: string): Promise<boolean> {
  const target = resolve(directory);
  await checkOutputDirectory(target);
  try {
    await fs.mkdir(target);
    return true;
  } catch (error) {
    // There already, or made meanwhile by someone else: fine, if it is a directory.
    if (systemCodeOf(error) === 'EEXIST') {
      await checkOutputDirectory(target);
      return false;
    }
    throw (await typedWriteError(fs, error, target)) ?? error;
  }
}

/** A finished temporary file, not yet given the target's name. */
export interface StagedOutputFile {
  readonly path: string;
  readonly bytes: number;
  /** Gives the file its name (refusing a file that appeared meanwhile, unless `force`). */
  publish(): Promise<void>;
  /** Removes the temporary file after `error` (a failure to publish it), and returns the error to throw. */
  discard(error: unknown): Promise<unknown>;
  /** Removes the temporary file after another file's failure; returns its path when it could not be removed. */
  remove(): Promise<string | undefined>;
}

/**
 * Writes `content` to a temporary file beside `path` and flushes it, checking the target first;
 * `publish()` then names it. Several files can be staged before any is published (tune's
 * report), so that a full disk leaves none of them.
 */
export async function stageOutputFile(path: string, content: OutputContent, options: OutputFileOptions = {}): Promise<StagedOutputFile> {
  const fileSystem = options.fileSystem ?? fs;
  const target = resolve(path);
  await checkOutputTarget(target, options);
  // The target's name, shortened so that the temporary one stays within a file name's limit.
  const partial = join(dirname(target), `.${basename(target).slice(0, 120)}.${process.pid}-${randomBytes(4).toString('hex')}.partial`);
  let handle: OutputFileHandle | undefined;
  let bytes = 0;
  try {
    handle = await fileSystem.open(partial, 'wx', options.mode ?? 0o644);
    const file = handle;
    const write: OutputWrite = async (chunk) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      await writeAll(file, buffer);
      bytes += buffer.length;
    };
    if (typeof content === 'function') await content(write);
    else await write(content);
    // On disk before it has the target's name: a crash leaves no file, or a whole one.
    await file.sync();
    handle = undefined;
    await file.close();
  } catch (error) {
    throw await cleanUp(fileSystem, error, handle, partial, target);
  }
  return {
    path: target,
    bytes,
    publish: () => publish(fileSystem, partial, target, options.force === true),
    discard: (error) => cleanUp(fileSystem, error, undefined, partial, target),
    remove: () =>
      fileSystem.unlink(partial).then(
        () => undefined,
        (error: unknown) => (systemCodeOf(error) === 'ENOENT' ? undefined : partial),
      ),
  };
}

function notWritableKind(target: string, kind: string): FileError {
  return new FileError(
    'not-a-file',
    target,
    kind === 'a directory'
      ? `${target} is a directory; give the path of the file to write`
      : `${target} is ${kind}, not a regular file; shadowlog writes only regular files, so choose another path`,
  );
}

async function writeAll(file: OutputFileHandle, buffer: Uint8Array): Promise<void> {
  for (let offset = 0; offset < buffer.length; ) {
    const { bytesWritten } = await file.write(buffer, offset, buffer.length - offset);
    if (bytesWritten <= 0) throw Object.assign(new Error('the file system accepted no bytes'), { code: 'EIO' });
    offset += bytesWritten;
  }
}

/** Gives the finished file the target's name: replacing what is there with `force`, else never. */
async function publish(fileSystem: OutputFileSystem, partial: string, target: string, force: boolean): Promise<void> {
  if (force) {
    // rename() replaces the target itself (a symbolic link there is replaced, not followed).
    await fileSystem.rename(partial, target);
    return;
  }
  try {
    // link() fails with EEXIST instead of replacing: the check and the naming are one step.
    await fileSystem.link(partial, target);
  } catch (error) {
    if (!NO_HARD_LINKS.has(systemCodeOf(error) ?? '')) throw error;
    // A file system without hard links: check, then rename (which would replace a file created
    // in between; nothing better is portable).
    await checkOutputTarget(target, { fileSystem });
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
  fileSystem: OutputFileSystem,
  error: unknown,
  handle: OutputFileHandle | undefined,
  partial: string,
  target: string,
): Promise<unknown> {
  const failures: string[] = [];
  if (handle !== undefined) await handle.close().catch((closeError: unknown) => failures.push(`closing it: ${messageOf(closeError)}`));
  await fileSystem.unlink(partial).catch((unlinkError: unknown) => {
    const code = systemCodeOf(unlinkError);
    // Never created (the directory is missing, or takes no new files): nothing to remove.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') failures.push(`removing it: ${messageOf(unlinkError)}`);
  });
  const typed = error instanceof FileError ? error : await typedWriteError(fileSystem, error, target);
  const note =
    failures.length === 0
      ? 'nothing was left behind'
      : `and the temporary file ${partial} could not be cleaned up (${failures.join('; ')}): remove it by hand`;
  if (typed === undefined) {
    if (failures.length === 0) return error;
    return new FileError('failed', target, `writing ${target} failed (${messageOf(error)}); ${note}`, { cause: error });
  }
  return new FileError(typed.problem, target, `${typed.message}; ${note}`, {
    cause: error,
    ...(typed.systemCode === undefined ? {} : { systemCode: typed.systemCode }),
  });
}

/**
 * The typed error for a failed write. ENOENT while creating a file in a directory that exists
 * is a file system that takes no new files there (/proc, /sys), not a missing directory.
 */
async function typedWriteError(fileSystem: OutputFileSystem, error: unknown, target: string): Promise<FileError | undefined> {
  if (systemCodeOf(error) === 'ENOENT') {
    const directory = dirname(target);
    const isDirectory = await fileSystem.lstat(directory).then(
      (stats) => stats.isDirectory(),
      () => false,
    );
    if (isDirectory) {
      return new FileError(
        'denied',
        target,
        `cannot create ${target}: the file system of ${directory} takes no new files; choose another directory`,
        {
          cause: error,
          systemCode: 'ENOENT',
        },
      );
    }
  }
  return outputFileError(error, target);
}
