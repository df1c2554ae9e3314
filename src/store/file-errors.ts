// Errors of the files shadowlog reads and writes for a user (exports, imports, reports, policy
// and price files): each failure of the file system becomes one typed error naming the path and
// what to do, never a stack trace.

import { dirname } from 'node:path';
import { ShadowlogError } from '../log/errors.js';

export type FileProblem = 'exists' | 'not-found' | 'not-a-file' | 'too-large' | 'no-space' | 'denied' | 'failed';

const CODES: Record<FileProblem, string> = {
  exists: 'FILE_EXISTS',
  'not-found': 'FILE_NOT_FOUND',
  'not-a-file': 'NOT_A_FILE',
  'too-large': 'FILE_TOO_LARGE',
  'no-space': 'NO_SPACE',
  denied: 'FILE_ACCESS',
  failed: 'FILE_ERROR',
};

/** A file that could not be read or written. */
export class FileError extends ShadowlogError {
  readonly path: string;
  readonly problem: FileProblem;
  /** The system's error code (EEXIST, ENOSPC, …), when the system gave one. */
  readonly systemCode: string | undefined;
  constructor(problem: FileProblem, path: string, message: string, options?: { cause?: unknown; systemCode?: string }) {
    super(CODES[problem], message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.path = path;
    this.problem = problem;
    this.systemCode = options?.systemCode;
  }
}

/**
 * A line longer than a reader takes (`maxLineBytes`), found by counting its bytes as they were
 * read: no string of it was ever built, so a line of gigabytes (or /dev/zero through a pipe) is
 * refused in bounded memory and time.
 */
export class LineTooLongError extends ShadowlogError {
  /** The file, when the reader knew it (a stream may have no name). */
  readonly path: string | undefined;
  /** The line's number, from 1. */
  readonly line: number;
  readonly maxLineBytes: number;
  constructor(path: string | undefined, line: number, maxLineBytes: number) {
    const where = path === undefined ? '' : path === '-' ? 'standard input, ' : `${path} `;
    super(
      'LINE_TOO_LONG',
      `${where}line ${line} is longer than ${describeBytes(maxLineBytes)}, the most one line may hold; it was refused before it was read whole. A session file holds one JSON record per line: check that this is one (a program using the library can raise maxLineBytes)`,
    );
    this.path = path;
    this.line = line;
    this.maxLineBytes = maxLineBytes;
  }
}

/** `bytes` for a message: "268,435,456 bytes (256 MiB)". */
export function describeBytes(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  const exact = `${bytes.toLocaleString('en-US')} bytes`;
  return Number.isInteger(mebibytes) && mebibytes >= 1 ? `${exact} (${mebibytes.toLocaleString('en-US')} MiB)` : exact;
}

/** The system error code of `error` (ENOENT, …), when it is a Node system error. */
export function systemCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** What a non-regular file is, for a message: "a character device". */
export function describeFileKind(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * The typed error for a failure to read the input file `path`; `expected` says what the file
 * should have been ("a JSONL export", "a JSON policy file"), for the advice.
 */
export function inputFileError(error: unknown, path: string, expected = 'a JSONL export'): FileError | undefined {
  const systemCode = systemCodeOf(error);
  if (systemCode === undefined) return undefined;
  const options = { cause: error, systemCode };
  switch (systemCode) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileError('not-found', path, `no file ${path}; give the path of ${expected}`, options);
    case 'EISDIR':
      return new FileError('not-a-file', path, `${path} is a directory, not a file; give the path of ${expected}`, options);
    case 'EACCES':
    case 'EPERM':
      return new FileError('denied', path, `cannot read ${path}: permission denied; check the file's permissions`, options);
    case 'ELOOP':
      return new FileError('not-found', path, `cannot read ${path}: too many levels of symbolic links (a loop?)`, options);
    default:
      return new FileError('failed', path, `reading ${path} failed (${systemCode}): ${(error as Error).message}`, options);
  }
}

/** A file that is there but is no regular file (a directory, a device, a FIFO): refused before it is read. */
export function notRegularInputError(path: string, kind: string, expected = 'a JSONL export'): FileError {
  return new FileError(
    'not-a-file',
    path,
    kind === 'a directory'
      ? `${path} is a directory, not a file; give the path of ${expected}`
      : `${path} is ${kind}, not a regular file; give the path of ${expected}${kind.startsWith('a FIFO') ? ' (import reads a pipe given as -, standard input)' : ''}`,
  );
}

/** The typed error for a failure to write the output file `path`. */
export function outputFileError(error: unknown, path: string): FileError | undefined {
  const systemCode = systemCodeOf(error);
  if (systemCode === undefined) return undefined;
  const options = { cause: error, systemCode };
  switch (systemCode) {
    case 'EEXIST':
      return existingOutputError(path, undefined, options);
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileError(
        'not-found',
        path,
        `cannot write ${path}: the directory ${dirname(path)} does not exist; create it first, or choose another path`,
        options,
      );
    case 'EISDIR':
      return new FileError('not-a-file', path, `${path} is a directory; give the path of the file to write`, options);
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return new FileError('no-space', path, `the disk is full (${systemCode}) writing ${path}; free some space and run it again`, options);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new FileError(
        'denied',
        path,
        `cannot write ${path}: ${systemCode === 'EROFS' ? 'the file system is read-only' : 'permission denied'}; choose another directory`,
        options,
      );
    case 'ELOOP':
      return new FileError('not-found', path, `cannot write ${path}: too many levels of symbolic links (a loop?)`, options);
    default:
      return new FileError('failed', path, `writing ${path} failed (${systemCode}): ${(error as Error).message}`, options);
  }
}

/** An output file that is already there: never replaced unless the caller said so (`force`, --force). */
export function existingOutputError(path: string, kind?: string, options?: { cause?: unknown; systemCode?: string }): FileError {
  return new FileError(
    'exists',
    path,
    `${path} already exists${kind === undefined ? '' : ` (${kind})`}, and shadowlog replaces a file only when told to; choose another name, or add --force to replace it`,
    { systemCode: 'EEXIST', ...options },
  );
}
