// Telling each input's format, by content: a shadowlog export by its header line, another
// harness's file by its records (detect-format.ts). A format named with --format is checked
// against the content, so that a file given as the wrong format is refused with what it looks
// like instead of misread.

import { CorruptLogError } from '../log/errors.js';
import { isPlainObject } from '../log/shape.js';
import { LineTooLongError } from '../store/file-errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../store/input-file.js';
import { type DetectedFormat, describeFirstRecord, detectFormat, findOtherFormat } from './detect-format.js';
import { type ImportFormat, ImportFormatMismatchError, MixedImportFormatError, UnknownImportFormatError } from './import-errors.js';
import type { ImportInput } from './import-inputs.js';
import { parseSourceFile, type SourceFile } from './source-file.js';

export type ClassifiedInput =
  | { readonly kind: 'shadowlog'; readonly input: ImportInput; readonly detected: string | null }
  | {
      readonly kind: 'foreign';
      readonly input: ImportInput;
      readonly format: Exclude<ImportFormat, 'shadowlog'>;
      readonly detected: string | null;
      readonly file: SourceFile;
    };

export function classifyInput(input: ImportInput, format: ImportFormat | 'auto', maxLineBytes = DEFAULT_MAX_LINE_BYTES): ClassifiedInput {
  const header = hasShadowlogHeader(input, maxLineBytes);
  if (format === 'shadowlog' || (format === 'auto' && header)) {
    if (!header && format === 'shadowlog') refuseIfForeign(input);
    return { kind: 'shadowlog', input, detected: format === 'auto' ? 'line 1 is a shadowlog export header' : null };
  }
  if (header && format !== 'auto')
    throw new ImportFormatMismatchError(input.path, format, 'shadowlog', 'line 1 is a shadowlog export header');
  const file = format === 'auto' ? parseOrTell(input, maxLineBytes) : parseSourceFile(input.path, input.bytes, maxLineBytes);
  const found = detectFormat(file.records);
  if (format === 'auto') {
    if (found === undefined) throw new UnknownImportFormatError(input.path, describeFirstRecord(file.records));
    refuseMixed(input, file, found);
    return { kind: 'foreign', input, format: found.format, detected: found.evidence, file };
  }
  if (found?.format !== format) {
    throw new ImportFormatMismatchError(input.path, format, found?.format, found?.evidence ?? describeFirstRecord(file.records));
  }
  refuseMixed(input, file, found);
  return { kind: 'foreign', input, format, detected: null, file };
}

/** A file whose records show two formats is refused: one session file is one harness's. */
function refuseMixed(input: ImportInput, file: SourceFile, found: DetectedFormat): void {
  const other = findOtherFormat(file.records, found.format);
  if (other !== undefined) throw new MixedImportFormatError(input.path, found, other, other.line);
}

/**
 * Parses a file of a format yet unknown. A malformed line is a CorruptLogError once the lines
 * before it show the format; a file that shows none first (a text file, a CSV) is of no known
 * format, which is what the user needs to hear.
 */
function parseOrTell(input: ImportInput, maxLineBytes: number): SourceFile {
  try {
    return parseSourceFile(input.path, input.bytes, maxLineBytes);
  } catch (error) {
    if (!(error instanceof CorruptLogError) || error.line === undefined) throw error;
    const before = parseSourceFile(input.path, input.bytes.subarray(0, offsetOfLine(input.bytes, error.line)), maxLineBytes).records;
    if (detectFormat(before) !== undefined) throw error;
    throw new UnknownImportFormatError(input.path, before.length === 0 ? error.message : describeFirstRecord(before));
  }
}

/** The byte offset where line `line` (from 1) starts. */
function offsetOfLine(bytes: Buffer, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) offset = bytes.indexOf(10, offset) + 1;
  return offset;
}

/** A file given as a shadowlog export that is another harness's: say so, rather than "expected a header". */
function refuseIfForeign(input: ImportInput): void {
  let found: ReturnType<typeof detectFormat>;
  try {
    found = detectFormat(parseSourceFile(input.path, input.bytes).records);
  } catch {
    return;
  }
  if (found !== undefined) {
    throw new ImportFormatMismatchError(
      input.path,
      'shadowlog',
      found.format,
      `line 1 is not a shadowlog export header (${found.evidence})`,
    );
  }
}

function hasShadowlogHeader({ path, bytes }: ImportInput, maxLineBytes: number): boolean {
  const end = bytes.indexOf(10);
  const length = end === -1 ? bytes.length : end;
  // Refused before a string of it is built (V8 builds none past about 512 MiB).
  if (length > maxLineBytes) throw new LineTooLongError(path, 1, maxLineBytes);
  const first = bytes.subarray(0, length).toString('utf8');
  try {
    const value: unknown = JSON.parse(first);
    return isPlainObject(value) && value.format === 'shadowlog';
  } catch {
    return false;
  }
}
