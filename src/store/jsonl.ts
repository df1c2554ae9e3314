// JSONL export and import (SPEC §11): a header line, one canonical event per line, and a trailer
// that counts the events and names the last hash. Import checks everything (header, envelopes,
// hash chain, SurfaceOp rules, the trailer) while it writes, inside one store transaction, so a
// bad or incomplete file stores nothing. The line format itself is read by jsonl-reader.ts.

import type { Writable } from 'node:stream';
import { canonicalJson } from '../log/canonical-json.js';
import { withCleanup } from '../log/cleanup.js';
import { CorruptLogError, SessionExistsError, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { canonicalEventJson } from '../log/event-json.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { GENESIS_HASH, type Hasher } from '../log/hash.js';
import { assertSessionId } from '../log/session-id.js';
import { type VerifyOptions, type VerifyProblem, type VerifyReport, verifyLog } from '../log/verify.js';
import { ChainCheck } from './chain-check.js';
import { readInputFile } from './input-file.js';
import {
  JSONL_FORMAT,
  JSONL_VERSION,
  type JsonlHeader,
  type JsonlReader,
  type JsonlTrailer,
  readJsonl,
  trailerLine,
} from './jsonl-reader.js';
import type { LogStore } from './log-store.js';
import { nodeSha256Hex } from './node-sha256.js';

export {
  JSONL_FORMAT,
  JSONL_VERSION,
  type JsonlHeader,
  type JsonlReadOptions,
  type JsonlRecord,
  type JsonlTrailer,
  readJsonl,
} from './jsonl-reader.js';

/** What an export wrote. */
export interface ExportSummary {
  readonly events: number;
  /** The last event's hash, as the trailer names it. */
  readonly headHash: string;
}

/**
 * Writes a session as JSONL through `write`, which must finish writing each chunk before its
 * promise resolves. The session's events are read page by page; the trailer counts what was read.
 */
export async function writeExport(store: LogStore, sessionId: string, write: (chunk: string) => Promise<void>): Promise<ExportSummary> {
  assertSessionId(sessionId);
  let events = 0;
  let headHash = GENESIS_HASH;
  const pages = store.read(sessionId);
  // A branch's export carries its ancestors' prefix (the whole log), and names its link for an import to rebuild.
  const fork = await store.readForkLink?.(sessionId);
  await write(`${canonicalJson({ format: JSONL_FORMAT, version: JSONL_VERSION, sessionId, ...(fork === undefined ? {} : { fork }) })}\n`);
  for await (const page of pages) {
    let chunk = '';
    for (const event of page) chunk += `${canonicalEventJson(event)}\n`;
    await write(chunk);
    events += page.length;
    headHash = page.at(-1)?.hash ?? headHash;
  }
  await write(trailerLine(events, headHash));
  return { events, headHash };
}

/** Writes a session as JSONL to a stream; returns the number of events written. */
export async function exportSession(store: LogStore, sessionId: string, output: Writable): Promise<number> {
  const summary = await writeExport(
    store,
    sessionId,
    (chunk) =>
      new Promise((resolve, reject) => {
        output.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  );
  return summary.events;
}

/**
 * Whether the file proved it is complete: 'ok', its trailer matched; 'missing', a version-1
 * export, which has no trailer ("no trailer: completeness cannot be checked").
 */
export type TrailerStatus = 'ok' | 'missing';

export interface ImportResult {
  readonly sessionId: string;
  readonly events: number;
  /** True when the file's last line was cut short (a crash while writing) and was skipped. */
  readonly tornFinalLine: boolean;
  /** The skipped line's number and length in bytes, when there was one. */
  readonly tornLine: { readonly line: number; readonly bytes: number } | null;
  /** True when the store already held this exact session (same events, same hashes): nothing was written. */
  readonly alreadyPresent: boolean;
  readonly trailer: TrailerStatus;
  /**
   * For an export of a branch: `linked` when the store held its parent (with the event it forks
   * after) and the branch was stored linked to it, its own events only; `standalone` when it did
   * not, and the whole log was stored, the prefix carried, naming the missing parent.
   */
  readonly fork?: {
    readonly parentSessionId: string;
    readonly forkSeq: number;
    readonly stored: 'linked' | 'standalone';
    readonly reason?: string;
  };
}

export interface ImportOptions {
  /** Store the session under this id instead of the header's (hashes do not cover the id). */
  readonly sessionId?: string;
  readonly registry?: EventTypeRegistry;
  readonly batchSize?: number;
  /** Computes the SHA-256 of each event for the chain check (default: node:crypto). */
  readonly hasher?: Hasher;
  /** The longest line read, in bytes (default 256 MiB): a longer one is a LineTooLongError. */
  readonly maxLineBytes?: number;
}

/** The refusal of a version-2 file that ends before its trailer; `torn` when its last line is cut short. */
function endsBeforeTrailer(events: number, line: number, torn?: { bytes: number }): CorruptLogError {
  const how =
    torn === undefined
      ? `the file ends after event ${events - 1}`
      : `line ${line}, the last, is cut short (${torn.bytes} bytes), so the file was cut after event ${events - 1}`;
  return new CorruptLogError(
    `the export ends before its trailer: ${how}, and nothing proves the session ended there. Export the session again`,
    { line },
  );
}

/** Checks a trailer against what was read; the problem, if there is one. */
function trailerProblem(trailer: JsonlTrailer, events: number, headHash: string): string | undefined {
  if (trailer.events !== events) {
    const gap = trailer.events > events ? `: events ${events} to ${trailer.events - 1} are missing` : '';
    return `the trailer says the export holds ${trailer.events} events, but ${events} were read${gap}`;
  }
  if (trailer.headHash !== headHash) {
    return `the trailer names ${trailer.headHash.slice(0, 12)}… as the last hash, but the last event read has ${headHash.slice(0, 12)}…: these are not the events the file was exported with`;
  }
  return undefined;
}

/**
 * Reads a JSONL export and stores it as a new session, atomically. In a version-1 export (no
 * trailer) a torn final line is reported and skipped; a version-2 export must end with its
 * trailer. Anything else malformed is a CorruptLogError naming its line, and nothing is stored.
 */
export async function importSession(store: LogStore, source: AsyncIterable<Buffer>, options: ImportOptions = {}): Promise<ImportResult> {
  const reader = await readJsonl(source, options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes });
  return withCleanup(() => importRecords(store, reader, options), reader.close);
}

async function importRecords(store: LogStore, reader: JsonlReader, options: ImportOptions): Promise<ImportResult> {
  const sessionId = assertSessionId(options.sessionId ?? reader.header.sessionId);
  const checker = new ChainCheck(options);
  const batchSize = options.batchSize ?? 1000;
  const state: { torn: { line: number; bytes: number } | null; trailer: TrailerStatus } = { torn: null, trailer: 'missing' };

  const existing = await store.head(sessionId);
  const batches = () => checkedBatches(reader, checker, batchSize, state);
  if (existing !== undefined) {
    // Importing the same export twice is harmless: check it matches, and write nothing.
    let count = 0;
    for await (const batch of batches()) count += batch.length;
    if (existing.nextSeq === checker.nextSeq && existing.lastHash === checker.lastHash) {
      return {
        sessionId,
        events: count,
        tornFinalLine: state.torn !== null,
        tornLine: state.torn,
        alreadyPresent: true,
        trailer: state.trailer,
      };
    }
    throw new SessionExistsError(sessionId, `with ${existing.nextSeq} different events; import it under another id with --as ID`);
  }
  const link = reader.header.fork;
  const missing = link === undefined ? undefined : await missingParent(store, link);
  if (link === undefined || missing !== undefined) {
    const events = await store.appendAll(sessionId, batches(), { expectedSeq: 0 });
    return {
      sessionId,
      alreadyPresent: false,
      tornFinalLine: state.torn !== null,
      events,
      tornLine: state.torn,
      trailer: state.trailer,
      ...(link === undefined
        ? {}
        : {
            fork: {
              parentSessionId: link.parentSessionId,
              forkSeq: link.forkSeq,
              stored: 'standalone' as const,
              reason: missing as string,
            },
          }),
    };
  }
  // The parent is here: the file's prefix is checked as it is read (its chain leads to the
  // parent's hash at the fork), and only the branch's own events are stored, linked.
  const ownFrom = link.forkSeq + 1;
  async function* own(): AsyncGenerator<LogEvent[]> {
    for await (const batch of batches()) {
      const kept = batch.filter((event) => event.seq >= ownFrom);
      if (kept.length > 0) yield kept;
    }
  }
  const written = await store.appendAll(sessionId, own(), { expectedSeq: ownFrom });
  return {
    sessionId,
    alreadyPresent: false,
    tornFinalLine: state.torn !== null,
    events: ownFrom + written,
    tornLine: state.torn,
    trailer: state.trailer,
    fork: { parentSessionId: link.parentSessionId, forkSeq: link.forkSeq, stored: 'linked' },
  };
}

/** Why `store` cannot hold a branch linked by `link`: its parent, or the event it forks after, is not there; undefined when it can. */
async function missingParent(store: LogStore, link: NonNullable<JsonlHeader['fork']>): Promise<string | undefined> {
  if (store.readForkLink === undefined) return `${store.location} keeps no branches`;
  const head = await store.head(link.parentSessionId);
  if (head === undefined) return `${store.location} has no session ${link.parentSessionId}, the branch's parent`;
  if (head.nextSeq <= link.forkSeq) return `session ${link.parentSessionId} here has no event ${link.forkSeq}`;
  const event = await store.readEvent(link.parentSessionId, link.forkSeq);
  if (event.hash !== link.parentHash) return `session ${link.parentSessionId} here holds another event ${link.forkSeq} (another history)`;
  return undefined;
}

/** The file's events, checked, in batches; refuses (inside the store's transaction) what is wrong. */
async function* checkedBatches(
  reader: JsonlReader,
  checker: ChainCheck,
  batchSize: number,
  state: { torn: { line: number; bytes: number } | null; trailer: TrailerStatus },
): AsyncGenerator<LogEvent[]> {
  let batch: LogEvent[] = [];
  let lastLine = 1;
  for await (const record of reader.records) {
    lastLine = record.line;
    if (record.kind === 'torn') {
      if (reader.expectsTrailer) throw endsBeforeTrailer(checker.nextSeq, record.line, record);
      state.torn = { line: record.line, bytes: record.bytes };
      break;
    }
    if (record.kind === 'trailer') {
      const problem = trailerProblem(record.trailer, checker.nextSeq, checker.lastHash);
      if (problem !== undefined) throw new CorruptLogError(problem, { line: record.line });
      state.trailer = 'ok';
      continue;
    }
    batch.push(checkEvent(record.value, record.line, checker));
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (checker.nextSeq === 0) throw new CorruptLogError('the file has a header but no events', { line: 2 });
  if (reader.expectsTrailer && state.trailer !== 'ok') throw endsBeforeTrailer(checker.nextSeq, lastLine + 1);
  try {
    checker.finish();
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    throw new CorruptLogError(error.message, { line: lastLine }, { cause: error });
  }
  if (batch.length > 0) yield batch;
}

export interface FileVerifyResult {
  readonly sessionId: string;
  readonly report: VerifyReport;
  /** 'ok': the trailer matched; 'missing': none (a version-1 file, or a cut one: see the report); 'mismatch': it did not match. */
  readonly trailer: TrailerStatus | 'mismatch';
}

/**
 * Verifies a JSONL export without storing it (SPEC §12 verify): the hash chain, seq density,
 * every replacement and the trailer. A torn final line, a damaged line, a missing or wrong
 * trailer is reported as a problem; a version-1 file without a trailer is not (its trailer is
 * 'missing': completeness cannot be checked).
 */
export async function verifyJsonlFile(source: AsyncIterable<Buffer>, options: VerifyOptions = {}): Promise<FileVerifyResult> {
  const reader = await readJsonl(source);
  return withCleanup(() => verifyRecords(reader, options), reader.close);
}

async function verifyRecords(reader: JsonlReader, options: VerifyOptions): Promise<FileVerifyResult> {
  const extra: VerifyProblem[] = [];
  let trailer: FileVerifyResult['trailer'] = 'missing';
  let events = 0;
  let headHash = GENESIS_HASH;
  let lastLine = 1;
  async function* pages(): AsyncGenerator<unknown[]> {
    try {
      for await (const record of reader.records) {
        lastLine = record.line;
        if (record.kind === 'torn') {
          extra.push({
            seq: events,
            code: 'torn-final-line',
            message: `line ${record.line}, the last, is cut short (${record.bytes} bytes): the export is incomplete`,
          });
        } else if (record.kind === 'trailer') {
          const problem = trailerProblem(record.trailer, events, headHash);
          trailer = problem === undefined ? 'ok' : 'mismatch';
          if (problem !== undefined) {
            const seq = record.trailer.events === events ? Math.max(0, events - 1) : Math.min(events, record.trailer.events);
            extra.push({ seq, code: 'trailer-mismatch', message: `line ${record.line}: ${problem}` });
          }
        } else {
          events++;
          const hash = (record.value as { hash?: unknown } | null)?.hash;
          headHash = typeof hash === 'string' ? hash : headHash;
          yield [record.value];
        }
      }
    } catch (error) {
      if (!(error instanceof CorruptLogError) || error.line === undefined) throw error;
      extra.push({ seq: events, code: 'corrupt-line', message: `${error.message} (the file is not read past it)` });
      return;
    }
    if (reader.expectsTrailer && trailer === 'missing') {
      extra.push({ seq: events, code: 'missing-trailer', message: endsBeforeTrailer(events, lastLine + 1).message });
    }
  }
  const report = await verifyLog(pages(), { hasher: nodeSha256Hex, ...options });
  const sessionId = reader.header.sessionId;
  if (extra.length === 0) return { sessionId, report, trailer };
  const problems = [...report.problems, ...extra];
  const firstBadSeq = Math.min(report.firstBadSeq ?? Number.POSITIVE_INFINITY, ...extra.map((problem) => problem.seq));
  return { sessionId, report: { ...report, ok: false, firstBadSeq, problems }, trailer };
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

/** Imports a file by path; a file that cannot be read is a FileError naming it. */
export function importSessionFile(store: LogStore, path: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importSession(
    store,
    readInputFile(path, options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    options,
  );
}
