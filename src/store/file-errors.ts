// Errors of the files shadowlog reads and writes itself (exports, imports): each failure of the
// file system becomes one typed error naming the path and what to do, never a stack trace.

import { dirname } from 'node:path';
import { ShadowlogError } from '../log/errors.js';

export type FileProblem = 'exists' | 'not-found' | 'not-a-file' | 'no-space' | 'denied' | 'failed';

const CODES: Record<FileProblem, string> = {
  exists: 'FILE_EXISTS',
  'not-found': 'FILE_NOT_FOUND',
  'not-a-file': 'NOT_A_FILE',
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

/** The system error code of `error` (ENOENT, …), when it is a Node system error. */
export function systemCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/** The typed error for a failure to read the input file `path`. */
export function inputFileError(error: unknown, path: string): FileError | undefined {
  const systemCode = systemCodeOf(error);
  if (systemCode === undefined) return undefined;
  const options = { cause: error, systemCode };
  switch (systemCode) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileError('not-found', path, `no file ${path}; give the path of a JSONL export, or - for standard input`, options);
    case 'EISDIR':
      return new FileError('not-a-file', path, `${path} is a directory, not a file; give the path of a JSONL export`, options);
    case 'EACCES':
    case 'EPERM':
      return new FileError('denied', path, `cannot read ${path}: permission denied; check the file's permissions`, options);
    default:
      return new FileError('failed', path, `reading ${path} failed (${systemCode}): ${(error as Error).message}`, options);
  }
}

/** The typed error for a failure to write the output file `path`. */
export function outputFileError(error: unknown, path: string): FileError | undefined {
  const systemCode = systemCodeOf(error);
  if (systemCode === undefined) return undefined;
  const options = { cause: error, systemCode };
  switch (systemCode) {
    case 'EEXIST':
      return new FileError(
        'exists',
        path,
        `${path} already exists, and an export never overwrites a file; choose another name, or remove it first`,
        options,
      );
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
      return new FileError('no-space', path, `the disk is full (${systemCode}) writing ${path}; free some space and export again`, options);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new FileError(
        'denied',
        path,
        `cannot write ${path}: ${systemCode === 'EROFS' ? 'the file system is read-only' : 'permission denied'}; choose another directory`,
        options,
      );
    default:
      return new FileError('failed', path, `writing ${path} failed (${systemCode}): ${(error as Error).message}`, options);
  }
}
