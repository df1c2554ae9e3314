// Reading another harness's JSONL file into records, under the rules of SPEC §11: only the last
// line may be torn (it is reported and skipped), and only the last line may be blank; anything
// else malformed is a CorruptLogError naming its line. Two records joined on one line are split
// and reported, so that neither is lost and the user hears of the defect.

import { CorruptLogError } from '../log/errors.js';
import { isPlainObject } from '../log/shape.js';
import { LineTooLongError } from '../store/file-errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../store/input-file.js';
import { splitJoinedRecords } from './joined-records.js';

/** One record of a source file. */
export interface SourceRecord {
  /** Its line in the file, from 1. */
  readonly line: number;
  /** The record as the file has it, without the line break (a part of the line when records were joined on it). */
  readonly text: string;
  readonly value: Readonly<Record<string, unknown>>;
}

export interface SourceFile {
  readonly path: string;
  /** The file's size in bytes. */
  readonly bytes: number;
  readonly lines: number;
  readonly records: readonly SourceRecord[];
  /** The last line, cut short (no line break, not a record): reported and skipped. */
  readonly tornLine: { readonly line: number; readonly bytes: number } | null;
  /** Lines that held more than one record, each split into its records. */
  readonly joinedLines: readonly { readonly line: number; readonly records: number }[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

interface RawLine {
  readonly number: number;
  readonly bytes: Uint8Array;
  readonly terminated: boolean;
}

function* linesOf(buffer: Uint8Array): Generator<RawLine> {
  let start = 0;
  let number = 0;
  for (let index = buffer.indexOf(10); index !== -1; index = buffer.indexOf(10, start)) {
    yield { number: ++number, bytes: buffer.subarray(start, index), terminated: true };
    start = index + 1;
  }
  if (start < buffer.length) yield { number: ++number, bytes: buffer.subarray(start), terminated: false };
}

/**
 * Parses a whole source file; throws CorruptLogError (naming the line) for what cannot be read,
 * and LineTooLongError for a line over `maxLineBytes`, before it is decoded.
 */
export function parseSourceFile(path: string, buffer: Uint8Array, maxLineBytes = DEFAULT_MAX_LINE_BYTES): SourceFile {
  const all = [...linesOf(buffer)];
  const long = all.find((raw) => raw.bytes.length > maxLineBytes);
  if (long !== undefined) throw new LineTooLongError(path, long.number, maxLineBytes);
  const records: SourceRecord[] = [];
  const joinedLines: Array<{ line: number; records: number }> = [];
  let tornLine: SourceFile['tornLine'] = null;
  for (const [index, raw] of all.entries()) {
    const last = index === all.length - 1;
    const parsed = parseLine(raw);
    if (parsed.kind === 'records') {
      records.push(...parsed.records);
      if (parsed.records.length > 1) joinedLines.push({ line: raw.number, records: parsed.records.length });
      continue;
    }
    if (parsed.kind === 'blank' && last) continue;
    if (last && !raw.terminated) {
      tornLine = { line: raw.number, bytes: raw.bytes.length };
      continue;
    }
    throw new CorruptLogError(`${parsed.problem}; only the last line of a file may be cut short or blank`, { line: raw.number });
  }
  return { path, bytes: buffer.length, lines: all.length, records, tornLine, joinedLines };
}

type ParsedLine =
  | { readonly kind: 'records'; readonly records: SourceRecord[] }
  | { readonly kind: 'blank' | 'bad'; readonly problem: string };

function parseLine(raw: RawLine): ParsedLine {
  let text: string;
  try {
    text = utf8.decode(raw.bytes);
  } catch {
    return { kind: 'bad', problem: 'the line is not valid UTF-8' };
  }
  if (text.endsWith('\r')) text = text.slice(0, -1);
  if (text.trim() === '') return { kind: 'blank', problem: 'the line is blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const parts = splitJoinedRecords(text);
    if (parts === undefined) return { kind: 'bad', problem: `the line is not valid JSON (${(error as Error).message})` };
    return { kind: 'records', records: parts.map((part) => ({ line: raw.number, text: part, value: JSON.parse(part) })) };
  }
  if (!isPlainObject(value)) {
    return {
      kind: 'bad',
      problem: `expected a JSON object (one record per line), found ${Array.isArray(value) ? 'an array' : typeof value}`,
    };
  }
  return { kind: 'records', records: [{ line: raw.number, text, value }] };
}
