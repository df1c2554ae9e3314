// Reading the JSONL export format (SPEC §11), line by line: a header, one event per line, and
// (from version 2) a trailer that counts the events and names the last hash, so that a file cut
// at a line boundary is told from a complete one. Only the last line may be torn, and only one
// blank line may end the file; a line with a duplicate key is refused, because JSON.parse would
// keep one of the two values without a word.
//
// A version-2 file whose last line is torn has lost its trailer (the trailer is always the
// last line): the torn line is still named and never read as an event, but the file cannot
// prove it holds every event, so importing it is refused like a file cut at a line boundary.
// A version-1 file (written before trailers) is read as before, its completeness unchecked.
// A line longer than maxLineBytes (256 MiB by default) is refused before it is held whole.

import { runCleanupAfter } from '../log/cleanup.js';
import { findDuplicateKey } from '../log/duplicate-keys.js';
import { CorruptLogError } from '../log/errors.js';
import { isSessionId } from '../log/session-id.js';
import { isPlainObject } from '../log/shape.js';
import { LineTooLongError } from './file-errors.js';
import { DEFAULT_MAX_LINE_BYTES } from './input-file.js';

export const JSONL_FORMAT = 'shadowlog';
/** The version this shadowlog writes: 2 closes the file with a trailer. */
export const JSONL_VERSION = 2;
/** The first version whose files must end with a trailer. */
export const JSONL_TRAILER_VERSION = 2;

export interface JsonlHeader {
  readonly format: typeof JSONL_FORMAT;
  readonly version: number;
  readonly sessionId: string;
  /**
   * For an export of a branch (SPEC §14): its link. The file still holds the whole log, the
   * ancestors' prefix included; an import into a store that holds the parent stores the branch
   * linked to it, its own events only. A reader that knows no branches ignores it.
   */
  readonly fork?: { readonly parentSessionId: string; readonly forkSeq: number; readonly parentHash: string };
}

/** The last line of a version-2 export. */
export interface JsonlTrailer {
  readonly format: typeof JSONL_FORMAT;
  readonly end: true;
  /** The number of event lines. */
  readonly events: number;
  /** The hash of the last event (64 zeros for none). */
  readonly headHash: string;
}

/** What a JSONL file holds, line by line. */
export type JsonlRecord =
  | { readonly kind: 'event'; readonly line: number; readonly value: unknown }
  | { readonly kind: 'torn'; readonly line: number; readonly bytes: number }
  | { readonly kind: 'trailer'; readonly line: number; readonly trailer: JsonlTrailer };

export interface JsonlReader {
  readonly header: JsonlHeader;
  /** Whether the file must end with a trailer (version 2 and later). */
  readonly expectsTrailer: boolean;
  /** The records in order: events, then the trailer or a torn final line (never both). */
  readonly records: AsyncIterable<JsonlRecord>;
  /** Stops reading and releases the source (its file); reading all the records does so too. */
  close(): Promise<void>;
}

export interface JsonlReadOptions {
  /** The longest line, in bytes (default 256 MiB); a longer one is a LineTooLongError, refused before it is held whole. */
  readonly maxLineBytes?: number;
}

/** The trailer line of an export that held `events` events ending in `headHash`, newline included. */
export function trailerLine(events: number, headHash: string): string {
  // Written in this order (not sorted) so that it reads as shadowlog's, as the header does.
  return `{"format":"${JSONL_FORMAT}","end":true,"events":${events},"headHash":${JSON.stringify(headHash)}}\n`;
}

/** A line of the file: its number (1-based), its bytes, and whether a newline ended it. */
interface RawLine {
  readonly number: number;
  readonly bytes: Buffer;
  readonly terminated: boolean;
}

/**
 * The lines of `source`. A line longer than `maxLineBytes` is refused as its bytes come in,
 * before it is joined into one buffer (let alone a string): memory stays bounded even for a
 * source with no newline at all.
 */
async function* linesOf(source: AsyncIterable<Buffer>, maxLineBytes: number): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const tooLong = () => new LineTooLongError(undefined, number + 1, maxLineBytes);
  for await (const chunk of source) {
    let start = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      if (pendingBytes + index - start > maxLineBytes) throw tooLong();
      pending.push(chunk.subarray(start, index));
      yield { number: ++number, bytes: Buffer.concat(pending), terminated: true };
      pending = [];
      pendingBytes = 0;
      start = index + 1;
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong();
    }
  }
  const rest = Buffer.concat(pending);
  if (rest.length > 0) yield { number: ++number, bytes: rest, terminated: false };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function textOf(line: RawLine): string {
  let text: string;
  try {
    text = utf8.decode(line.bytes);
  } catch (error) {
    throw new CorruptLogError('the line is not valid UTF-8', { line: line.number }, { cause: error });
  }
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/** An empty line, or one holding only the CR of a CRLF ending. */
function isBlank(bytes: Buffer): boolean {
  return bytes.length === 0 || (bytes.length === 1 && bytes[0] === 13);
}

function parseLine(line: RawLine): unknown {
  const text = textOf(line);
  if (text === '') throw new CorruptLogError('the line is blank; only the very last line of a file may be', { line: line.number });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CorruptLogError(`the line is not valid JSON (${(error as Error).message})`, { line: line.number }, { cause: error });
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    throw new CorruptLogError(
      `the key ${JSON.stringify(duplicate.key)} appears twice in ${duplicate.path === '$' ? 'the line' : duplicate.path}; JSON keeps only the last, so the line would show one value while its hash covers another. Remove one of them, or export the session again`,
      { line: line.number },
    );
  }
  return value;
}

function parseHeader(value: unknown, line: number): JsonlHeader {
  if (!isPlainObject(value) || value.format !== JSONL_FORMAT) {
    throw new CorruptLogError(
      `expected a header {"format":"shadowlog","version":${JSONL_VERSION},"sessionId":…}, found ${JSON.stringify(value)?.slice(0, 80)}`,
      { line },
    );
  }
  if (typeof value.version !== 'number' || !Number.isInteger(value.version) || value.version < 1) {
    throw new CorruptLogError(`the header's version must be a positive integer, found ${JSON.stringify(value.version)}`, { line });
  }
  if (value.version > JSONL_VERSION) {
    throw new CorruptLogError(
      `the file is format version ${value.version}; this shadowlog reads up to version ${JSONL_VERSION}. Upgrade shadowlog to import it`,
      { line },
    );
  }
  if (!isSessionId(value.sessionId)) {
    throw new CorruptLogError(`the header's sessionId ${JSON.stringify(value.sessionId)?.slice(0, 80)} is not a valid session id`, {
      line,
    });
  }
  const fork = value.fork === undefined ? undefined : parseForkLink(value.fork, line);
  return { format: JSONL_FORMAT, version: value.version, sessionId: value.sessionId, ...(fork === undefined ? {} : { fork }) };
}

function parseForkLink(value: unknown, line: number): NonNullable<JsonlHeader['fork']> {
  const link = isPlainObject(value) ? value : undefined;
  if (
    link === undefined ||
    !isSessionId(link.parentSessionId) ||
    typeof link.forkSeq !== 'number' ||
    !Number.isSafeInteger(link.forkSeq) ||
    link.forkSeq < 0 ||
    typeof link.parentHash !== 'string' ||
    !HASH.test(link.parentHash)
  ) {
    throw new CorruptLogError(
      `the header's fork must be {parentSessionId, forkSeq, parentHash} (a session id, a seq, a SHA-256 hex), found ${JSON.stringify(value)?.slice(0, 120)}`,
      { line },
    );
  }
  return { parentSessionId: link.parentSessionId, forkSeq: link.forkSeq, parentHash: link.parentHash };
}

const TRAILER_KEYS = ['end', 'events', 'format', 'headHash'];
const HASH = /^[0-9a-f]{64}$/;

/** A line that is an object with a "format" key is a trailer (an event has no such key). */
function isTrailerShaped(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && 'format' in value;
}

function parseTrailer(value: Record<string, unknown>, line: number, expectsTrailer: boolean): JsonlTrailer {
  if (!expectsTrailer) {
    throw new CorruptLogError(
      `found a trailer in a version 1 export, which has none; a file with a trailer has a version ${JSONL_TRAILER_VERSION} header`,
      { line },
    );
  }
  const keys = Object.keys(value).sort();
  const valid =
    keys.length === TRAILER_KEYS.length &&
    keys.every((key, index) => key === TRAILER_KEYS[index]) &&
    value.format === JSONL_FORMAT &&
    value.end === true &&
    typeof value.events === 'number' &&
    Number.isSafeInteger(value.events) &&
    value.events >= 0 &&
    typeof value.headHash === 'string' &&
    HASH.test(value.headHash);
  if (!valid) {
    throw new CorruptLogError(
      `expected a trailer {"format":"shadowlog","end":true,"events":N,"headHash":"…"} (exactly those keys), found ${JSON.stringify(value).slice(0, 120)}`,
      { line },
    );
  }
  return { format: JSONL_FORMAT, end: true, events: value.events as number, headHash: value.headHash as string };
}

/**
 * Opens a JSONL export: reads and checks the header, then yields each line parsed. Only the
 * last line, when no newline ends it, may be torn; one blank line may end the file; nothing but
 * that blank line may follow the trailer. Anything else malformed is a CorruptLogError naming
 * its line.
 */
export async function readJsonl(source: AsyncIterable<Buffer>, options: JsonlReadOptions = {}): Promise<JsonlReader> {
  const lines = linesOf(source, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)[Symbol.asyncIterator]();
  const close = async () => {
    await lines.return?.(undefined);
  };
  let header: JsonlHeader;
  try {
    const first = await lines.next();
    if (first.done) throw new CorruptLogError('the file is empty; expected a shadowlog JSONL header', { line: 1 });
    header = parseHeader(parseLine(first.value), 1);
  } catch (error) {
    await runCleanupAfter(error, close);
    throw error;
  }
  const expectsTrailer = header.version >= JSONL_TRAILER_VERSION;
  async function* records(): AsyncGenerator<JsonlRecord> {
    try {
      yield* recordsOf();
    } finally {
      await close();
    }
  }
  async function* recordsOf(): AsyncGenerator<JsonlRecord> {
    let trailerAt: number | undefined;
    // Look one line ahead: only the very last line may be torn or blank.
    let current = await lines.next();
    while (!current.done) {
      const line = current.value;
      const next = await lines.next();
      const last = next.done === true;
      if (last && line.terminated && isBlank(line.bytes)) return;
      if (trailerAt !== undefined) {
        throw new CorruptLogError(`the trailer on line ${trailerAt} ends the export, but more follows it`, { line: line.number });
      }
      let value: unknown;
      try {
        value = parseLine(line);
      } catch (error) {
        if (!(last && !line.terminated)) throw error;
        yield { kind: 'torn', line: line.number, bytes: line.bytes.length };
        return;
      }
      if (isTrailerShaped(value)) {
        yield { kind: 'trailer', line: line.number, trailer: parseTrailer(value, line.number, expectsTrailer) };
        trailerAt = line.number;
      } else {
        yield { kind: 'event', line: line.number, value };
      }
      current = next;
    }
  }
  return { header, expectsTrailer, records: records(), close };
}
