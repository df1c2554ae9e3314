// Reading a file shadowlog was given (an export to import or verify, another harness's session, a
// policy or price file), with every failure of the file system (missing, a directory, unreadable)
// a typed FileError, and bounded in memory and time: only a regular file is read (a device such as
// /dev/zero, or a FIFO that would wait for a writer, is refused before a byte is read), and a
// line longer than `maxLineBytes` is refused as soon as that many bytes of it have been counted,
// before any string of it is built.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { describeBytes, describeFileKind, FileError, inputFileError, LineTooLongError, notRegularInputError } from './file-errors.js';

/** The longest line read by default: 256 MiB, half of the longest string V8 can build. */
export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/** The largest file read whole by default (an import holds its files in memory): 2 GiB. */
export const DEFAULT_MAX_INPUT_BYTES = 2 * 1024 * 1024 * 1024;

export interface InputFileOptions {
  /** The longest line, in bytes (default DEFAULT_MAX_LINE_BYTES); a longer one is a LineTooLongError. */
  readonly maxLineBytes?: number;
  /** The path to name in errors, when not `path` itself (a path under a directory the user gave). */
  readonly shown?: string;
  /** What the file should be, for the advice of an error: "a JSONL export" (the default), "a JSON policy file". */
  readonly expected?: string;
}

export interface WholeInputOptions extends InputFileOptions {
  /** The largest file read whole, in bytes (default DEFAULT_MAX_INPUT_BYTES); a larger one is FILE_TOO_LARGE. */
  readonly maxBytes?: number;
}

/**
 * Counts the bytes of the line being read across chunks, and throws LineTooLongError as soon as
 * one is longer than the limit: what a reader must hold for a line is bounded by the limit.
 */
export class LineLengthCheck {
  private line = 1;
  private length = 0;
  constructor(
    private readonly maxLineBytes: number,
    private readonly path: string | undefined,
  ) {}

  /** Takes the next chunk of the input; throws when the line it continues or starts is too long. */
  take(chunk: Uint8Array): void {
    let start = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      this.check(this.length + index - start);
      this.line++;
      this.length = 0;
      start = index + 1;
    }
    this.length += chunk.length - start;
    this.check(this.length);
  }

  private check(length: number): void {
    if (length > this.maxLineBytes) throw new LineTooLongError(this.path, this.line, this.maxLineBytes);
  }
}

/** Reads the file at `path` as a stream of chunks (see the file's opening for the bounds). */
export async function* readInputFile(path: string, options: InputFileOptions = {}): AsyncGenerator<Buffer> {
  const shown = options.shown ?? path;
  const mapped = (error: unknown) => inputFileError(error, shown, options.expected) ?? error;
  const handle = await openRegularFile(path, options);
  const lines = new LineLengthCheck(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, shown);
  let failed = false;
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      lines.take(chunk as Buffer);
      yield chunk as Buffer;
    }
  } catch (error) {
    failed = true;
    throw mapped(error);
  } finally {
    // After a failure, the read's own error is the one to report; closing a file opened only
    // for reading cannot lose data.
    await handle.close().catch((error: unknown) => {
      if (!failed) throw mapped(error);
    });
  }
}

/** Reads the whole file at `path` (a regular file of at most `maxBytes`, no line over `maxLineBytes`). */
export async function readInputBytes(path: string, options: WholeInputOptions = {}): Promise<Buffer> {
  const shown = options.shown ?? path;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const handle = await openRegularFile(path, options);
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) throw tooLarge(shown, size, maxBytes);
    return await collectInputBytes(handle.createReadStream({ autoClose: false }), shown, options);
  } catch (error) {
    throw inputFileError(error, shown, options.expected) ?? error;
  } finally {
    await handle.close().catch(() => {
      // Closing a file opened only for reading cannot lose data; the read's result stands.
    });
  }
}

/**
 * Reads a stream (standard input, or a file's chunks) whole, under the same bounds as a file:
 * no line over `maxLineBytes` and no more than `maxBytes` in all.
 */
export async function collectInputBytes(
  source: AsyncIterable<Buffer | string>,
  shown: string,
  options: WholeInputOptions = {},
): Promise<Buffer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  const lines = new LineLengthCheck(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, shown);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const part of source) {
    const chunk = typeof part === 'string' ? Buffer.from(part) : part;
    lines.take(chunk);
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(shown, undefined, maxBytes);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/**
 * Reads a small file whole, synchronously (a policy, price or limits file a command reads while
 * it parses its options): a regular file of at most `maxBytes`, else a typed FileError.
 */
export function readInputFileSync(path: string, options: WholeInputOptions & { readonly maxBytes: number }): Buffer {
  const shown = options.shown ?? path;
  const mapped = (error: unknown) => inputFileError(error, shown, options.expected) ?? error;
  let descriptor: number;
  try {
    descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw mapped(error);
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw notRegularInputError(shown, describeFileKind(stats), options.expected);
    if (stats.size > options.maxBytes) throw tooLarge(shown, stats.size, options.maxBytes);
    // Read to the end, not to the size stat gave: a file in /proc says 0 and holds more.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const read = readSync(descriptor, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > options.maxBytes) throw tooLarge(shown, undefined, options.maxBytes);
      chunks.push(chunk.subarray(0, read));
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    throw mapped(error);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Opens `path` for reading and refuses anything but a regular file. O_NONBLOCK makes opening a
 * FIFO return at once instead of waiting for a writer; the check is on the file opened, so a
 * path swapped in between cannot slip a device past it.
 */
async function openRegularFile(path: string, options: InputFileOptions): Promise<FileHandle> {
  const shown = options.shown ?? path;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    throw inputFileError(error, shown, options.expected) ?? error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegularInputError(shown, describeFileKind(stats), options.expected);
    return handle;
  } catch (error) {
    await handle.close().catch(() => {
      // The refusal (or the failed stat) is what the user needs to hear.
    });
    throw inputFileError(error, shown, options.expected) ?? error;
  }
}

function tooLarge(shown: string, size: number | undefined, maxBytes: number): FileError {
  return new FileError(
    'too-large',
    shown,
    `${shown} is ${size === undefined ? 'longer than' : `${describeBytes(size)}, more than`} ${describeBytes(maxBytes)}, the most shadowlog reads whole here; check that it is the file you meant`,
  );
}
