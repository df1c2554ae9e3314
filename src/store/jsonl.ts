// JSONL export and import (SPEC §11): a header line, then one canonical event per line.
// Import checks everything (header, envelopes, hash chain, SurfaceOp rules) while it writes,
// inside one store transaction, so a bad file stores nothing.

import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { canonicalJson } from '../log/canonical-json.js';
import { CorruptLogError, SessionExistsError, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { canonicalEventJson } from '../log/event-json.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { Hasher } from '../log/hash.js';
import { assertSessionId, isSessionId } from '../log/session-id.js';
import { isPlainObject } from '../log/shape.js';
import { type VerifyOptions, type VerifyProblem, type VerifyReport, verifyLog } from '../log/verify.js';
import { ChainCheck } from './chain-check.js';
import type { LogStore } from './log-store.js';
import { nodeSha256Hex } from './node-sha256.js';

export const JSONL_FORMAT = 'shadowlog';
export const JSONL_VERSION = 1;

export interface JsonlHeader {
  readonly format: typeof JSONL_FORMAT;
  readonly version: number;
  readonly sessionId: string;
}

/** Writes a session as JSONL; returns the number of events written. */
export async function exportSession(store: LogStore, sessionId: string, output: Writable): Promise<number> {
  assertSessionId(sessionId);
  let count = 0;
  const pages = store.read(sessionId);
  await write(output, `${canonicalJson({ format: JSONL_FORMAT, version: JSONL_VERSION, sessionId })}\n`);
  for await (const page of pages) {
    let chunk = '';
    for (const event of page) chunk += `${canonicalEventJson(event)}\n`;
    await write(output, chunk);
    count += page.length;
  }
  return count;
}

function write(output: Writable, chunk: string): Promise<void> {
  return new Promise((resolve, reject) => {
    output.write(chunk, (error) => (error ? reject(error) : resolve()));
  });
}

export interface ImportResult {
  readonly sessionId: string;
  readonly events: number;
  /** True when the file's last line was cut short (a crash while writing) and was skipped. */
  readonly tornFinalLine: boolean;
  /** The skipped line's number and length in bytes, when there was one. */
  readonly tornLine: { readonly line: number; readonly bytes: number } | null;
  /** True when the store already held this exact session (same events, same hashes): nothing was written. */
  readonly alreadyPresent: boolean;
}

export interface ImportOptions {
  /** Store the session under this id instead of the header's (hashes do not cover the id). */
  readonly sessionId?: string;
  readonly registry?: EventTypeRegistry;
  readonly batchSize?: number;
  /** Computes the SHA-256 of each event for the chain check (default: node:crypto). */
  readonly hasher?: Hasher;
}

/** A line of the file: its number (1-based), its bytes, and whether a newline ended it. */
interface RawLine {
  readonly number: number;
  readonly bytes: Buffer;
  readonly terminated: boolean;
}

async function* linesOf(source: AsyncIterable<Buffer>): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let number = 0;
  for await (const chunk of source) {
    let start = 0;
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, index));
      yield { number: ++number, bytes: Buffer.concat(pending), terminated: true };
      pending = [];
      start = index + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  const rest = Buffer.concat(pending);
  if (rest.length > 0) yield { number: ++number, bytes: rest, terminated: false };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseLine(line: RawLine): unknown {
  let text: string;
  try {
    text = utf8.decode(line.bytes);
  } catch (error) {
    throw new CorruptLogError('the line is not valid UTF-8', { line: line.number }, { cause: error });
  }
  if (text.endsWith('\r')) text = text.slice(0, -1);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CorruptLogError(`the line is not valid JSON (${(error as Error).message})`, { line: line.number }, { cause: error });
  }
}

function parseHeader(value: unknown, line: number): JsonlHeader {
  if (!isPlainObject(value) || value.format !== JSONL_FORMAT) {
    throw new CorruptLogError(
      `expected a header {"format":"shadowlog","version":1,"sessionId":…}, found ${JSON.stringify(value)?.slice(0, 80)}`,
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
  return { format: JSONL_FORMAT, version: value.version, sessionId: value.sessionId };
}

/** What a JSONL file holds, line by line. */
export type JsonlRecord =
  | { readonly kind: 'event'; readonly line: number; readonly value: unknown }
  | { readonly kind: 'torn'; readonly line: number; readonly bytes: number };

export interface JsonlReader {
  readonly header: JsonlHeader;
  /** The parsed event lines in order; a torn final line comes last as a 'torn' record. */
  readonly records: AsyncIterable<JsonlRecord>;
}

/**
 * Opens a JSONL export: reads and checks the header, then yields each event line parsed.
 * Only the last line, when no newline ends it, may be torn; any other line that is not
 * UTF-8 JSON is a CorruptLogError naming the line.
 */
export async function readJsonl(source: AsyncIterable<Buffer>): Promise<JsonlReader> {
  const lines = linesOf(source)[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw new CorruptLogError('the file is empty; expected a shadowlog JSONL header', { line: 1 });
  const header = parseHeader(parseLine(first.value), 1);
  async function* records(): AsyncGenerator<JsonlRecord> {
    // Look one line ahead: only the very last line may be torn.
    let current = await lines.next();
    while (!current.done) {
      const line = current.value;
      const next = await lines.next();
      try {
        yield { kind: 'event', line: line.number, value: parseLine(line) };
      } catch (error) {
        if (!(next.done && !line.terminated)) throw error;
        yield { kind: 'torn', line: line.number, bytes: line.bytes.length };
      }
      current = next;
    }
  }
  return { header, records: records() };
}

/**
 * Reads a JSONL export and stores it as a new session, atomically. A torn final line is
 * reported and skipped; anything else malformed is a CorruptLogError naming its line, and
 * nothing is stored.
 */
export async function importSession(store: LogStore, source: AsyncIterable<Buffer>, options: ImportOptions = {}): Promise<ImportResult> {
  const { header, records } = await readJsonl(source);
  const sessionId = assertSessionId(options.sessionId ?? header.sessionId);
  const checker = new ChainCheck(options);
  const fold = checker.fold;
  const batchSize = options.batchSize ?? 1000;
  let torn: { line: number; bytes: number } | null = null;

  const existing = await store.head(sessionId);
  async function* batches(): AsyncGenerator<LogEvent[]> {
    let batch: LogEvent[] = [];
    for await (const record of records) {
      if (record.kind === 'torn') {
        torn = { line: record.line, bytes: record.bytes };
        break;
      }
      batch.push(checkEvent(record.value, record.line, checker));
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    if (fold.nextSeq === 0) throw new CorruptLogError('the file has a header but no events', { line: 2 });
  }

  if (existing !== undefined) {
    // Importing the same export twice is harmless: check it matches, and write nothing.
    let count = 0;
    for await (const batch of batches()) count += batch.length;
    if (existing.nextSeq === fold.nextSeq && existing.lastHash === fold.lastHash) {
      return { sessionId, events: count, tornFinalLine: torn !== null, tornLine: torn, alreadyPresent: true };
    }
    throw new SessionExistsError(sessionId, `with ${existing.nextSeq} different events; import it under another id with --as ID`);
  }
  const events = await store.appendAll(sessionId, batches(), { expectedSeq: 0 });
  return { sessionId, events, tornFinalLine: torn !== null, tornLine: torn, alreadyPresent: false };
}

/**
 * Verifies a JSONL export without storing it (SPEC §12 verify): the hash chain, seq density
 * and every replacement. A torn final line or a damaged line is reported as a problem.
 */
export async function verifyJsonlFile(
  source: AsyncIterable<Buffer>,
  options: VerifyOptions = {},
): Promise<{ sessionId: string; report: VerifyReport }> {
  const { header, records } = await readJsonl(source);
  const extra: VerifyProblem[] = [];
  async function* pages(): AsyncGenerator<unknown[]> {
    try {
      for await (const record of records) {
        if (record.kind === 'torn') {
          extra.push({
            seq: record.line - 2,
            code: 'torn-final-line',
            message: `line ${record.line}, the last, is cut short (${record.bytes} bytes): the export is incomplete`,
          });
        } else {
          yield [record.value];
        }
      }
    } catch (error) {
      if (!(error instanceof CorruptLogError) || error.line === undefined) throw error;
      extra.push({ seq: error.line - 2, code: 'corrupt-line', message: `${error.message} (the file is not read past it)` });
    }
  }
  const report = await verifyLog(pages(), { hasher: nodeSha256Hex, ...options });
  if (extra.length === 0) return { sessionId: header.sessionId, report };
  const problems = [...report.problems, ...extra];
  const firstBadSeq = Math.min(report.firstBadSeq ?? Number.POSITIVE_INFINITY, ...extra.map((problem) => problem.seq));
  return { sessionId: header.sessionId, report: { ...report, ok: false, firstBadSeq, problems } };
}

/** Checks the next event of the file, naming its line in any error. */
function checkEvent(value: unknown, line: number, checker: ChainCheck): LogEvent {
  try {
    return checker.check(value);
  } catch (error) {
    if (ShadowlogError.isInstance(error)) {
      throw new CorruptLogError(
        `${error.message}`,
        { line, ...(error instanceof CorruptLogError && error.seq !== undefined ? { seq: error.seq } : {}) },
        { cause: error },
      );
    }
    throw error;
  }
}

/** Imports a file by path. */
export function importSessionFile(store: LogStore, path: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importSession(store, createReadStream(path), options);
}
