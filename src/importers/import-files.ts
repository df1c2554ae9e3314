// `shadowlog import` as a transaction: every file is read, told apart by content and mapped into
// sessions in memory (a shadowlog export checked as `import` always has, into a staging store),
// every session is checked against the store, and only then is anything written. A file that
// cannot be read or mapped, or a session the store holds with other events, stops the import
// before the first write. A session the store already holds event for event is left as it is:
// importing the same file again is a no-op, since ids and times come from the source and the
// events seal to the same hashes.
//
// Each session is written in one store transaction; the store has none that spans sessions, so
// a failure of the store itself midway (a full disk) keeps the sessions written before it, and
// running the same import again completes it.

import { Readable } from 'node:stream';
import type { LogEvent } from '../log/event.js';
import { canonicalEventJson } from '../log/event-json.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { isForeignType } from '../log/foreign-event.js';
import { assertSessionId } from '../log/session-id.js';
import { importSession } from '../store/jsonl.js';
import type { LogStore } from '../store/log-store.js';
import { MemoryLogStore } from '../store/memory/memory-store.js';
import { buildForeignSessions, type ForeignInput } from './build-sessions.js';
import { type ClassifiedInput, classifyInput } from './classify-inputs.js';
import { type ImportConflict, ImportConflictError, type ImportFormat, ImportInputError } from './import-errors.js';
import type { ImportInput } from './import-inputs.js';
import type { FileReport, ImportSummary, SessionReport } from './import-report.js';

export interface ImportFilesOptions {
  readonly format: ImportFormat | 'auto';
  /** The session id for a single file's session (its sub-sessions are named after it). */
  readonly sessionId?: string;
  /** The window to record on imported calls whose source states none. */
  readonly window?: number;
  /** The types the log holds, for checking shadowlog exports (the core ones and compaction's). */
  readonly registry: EventTypeRegistry;
  /** The longest line, in bytes (default 256 MiB): a longer one is a LineTooLongError naming the file and line. */
  readonly maxLineBytes?: number;
}

/** A session ready to be written: its events, and what its report says of it. */
interface StagedSession {
  readonly path: string;
  readonly sessionId: string;
  readonly events: readonly LogEvent[];
  readonly report: Omit<SessionReport, 'status' | 'sessionId' | 'events' | 'logBytes'>;
}

export async function importFiles(store: LogStore, inputs: readonly ImportInput[], options: ImportFilesOptions): Promise<ImportSummary> {
  if (options.sessionId !== undefined && inputs.length !== 1) {
    throw new ImportInputError(
      `--as names the session of one file, and ${inputs.length} files were given; leave it out to use the ids the files give`,
    );
  }
  if (options.sessionId !== undefined) assertSessionId(options.sessionId);
  const classified = inputs.map((input) => classifyInput(input, options.format, options.maxLineBytes));
  const [only] = classified;
  if (classified.length === 1 && only?.kind === 'shadowlog') return importOneExport(store, only, options);
  const foreign = classified.filter((input): input is ForeignInput => input.kind === 'foreign');
  const mappingOptions = {
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.window === undefined ? {} : { window: options.window }),
  };
  const staged: StagedSession[] = buildForeignSessions(foreign, mappingOptions).map(({ input, builder }) => ({
    path: input.input.path,
    sessionId: builder.sessionId,
    events: builder.events,
    report: {
      ...(builder.parent === undefined ? {} : { parent: builder.parent }),
      modelCalls: builder.counts.modelCalls,
      compactions: builder.counts.compactions,
      foreignLines: builder.counts.foreignLines,
      unmapped: builder.unmapped,
    },
  }));
  const exports = new Map<ImportInput, Awaited<ReturnType<typeof importSession>>>();
  const staging = new MemoryLogStore();
  for (const input of classified) {
    if (input.kind !== 'shadowlog') continue;
    const result = await importSession(staging, Readable.from([input.input.bytes]), {
      registry: options.registry,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    });
    exports.set(input.input, result);
    staged.push(await stagedExport(staging, input.input.path, result.sessionId));
  }
  refuseDuplicates(staged);
  const present = await checkAgainstStore(store, staged);
  for (const session of staged) {
    if (present.has(session.sessionId)) continue;
    await store.appendAll(session.sessionId, asAsync(batchesOf(session.events)), { expectedSeq: 0 });
  }
  return { files: classified.map((input) => fileReport(input, staged, present, exports.get(input.input))) };
}

/**
 * A single shadowlog export goes straight into the store's transaction, checked as it is read
 * (store/jsonl.ts), as `import` always did: there is nothing else to check it against first.
 */
async function importOneExport(
  store: LogStore,
  input: Extract<ClassifiedInput, { kind: 'shadowlog' }>,
  options: ImportFilesOptions,
): Promise<ImportSummary> {
  const result = await importSession(store, Readable.from([input.input.bytes]), {
    registry: options.registry,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
  const staged = await stagedExport(store, input.input.path, result.sessionId);
  const present = new Set(result.alreadyPresent ? [result.sessionId] : []);
  return { files: [fileReport(input, [staged], present, result)] };
}

/** The sessions that are already in the store, event for event; throws, writing nothing, when one is there with other events. */
async function checkAgainstStore(store: LogStore, staged: readonly StagedSession[]): Promise<Set<string>> {
  const present = new Set<string>();
  const conflicts: ImportConflict[] = [];
  for (const session of staged) {
    const head = await store.head(session.sessionId);
    if (head === undefined) continue;
    const last = session.events[session.events.length - 1];
    // The last hash covers every event before it: equal heads are equal sessions.
    if (head.nextSeq === session.events.length && head.lastHash === last?.hash) present.add(session.sessionId);
    else
      conflicts.push({
        sessionId: session.sessionId,
        path: session.path,
        storedEvents: head.nextSeq,
        importedEvents: session.events.length,
      });
  }
  if (conflicts.length > 0) throw new ImportConflictError(store.location, conflicts);
  return present;
}

function refuseDuplicates(staged: readonly StagedSession[]): void {
  const seen = new Map<string, string>();
  for (const session of staged) {
    const earlier = seen.get(session.sessionId);
    if (earlier !== undefined) {
      throw new ImportInputError(
        `${earlier} and ${session.path} both give session ${session.sessionId}; import them one at a time, the second with --as ID`,
      );
    }
    seen.set(session.sessionId, session.path);
  }
}

async function stagedExport(staging: LogStore, path: string, sessionId: string): Promise<StagedSession> {
  const events: LogEvent[] = [];
  for await (const page of staging.read(sessionId)) events.push(...page);
  let modelCalls = 0;
  let compactions = 0;
  let foreignLines = 0;
  for (const event of events) {
    if (event.type === 'model/request') modelCalls++;
    else if (event.type === 'compaction/summary') compactions++;
    else if (isForeignType(event.type)) foreignLines++;
  }
  return { path, sessionId, events, report: { modelCalls, compactions, foreignLines, unmapped: [] } };
}

function* batchesOf(events: readonly LogEvent[], size = 1000): Generator<readonly LogEvent[]> {
  for (let start = 0; start < events.length; start += size) yield events.slice(start, start + size);
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}

function fileReport(
  input: ClassifiedInput,
  staged: readonly StagedSession[],
  present: ReadonlySet<string>,
  exported: Awaited<ReturnType<typeof importSession>> | undefined,
): FileReport {
  const sessions = staged
    .filter((session) => session.path === input.input.path)
    .map(
      (session): SessionReport => ({
        sessionId: session.sessionId,
        ...session.report,
        status: present.has(session.sessionId) ? 'already-present' : 'imported',
        events: session.events.length,
        logBytes: session.events.reduce((sum, event) => sum + Buffer.byteLength(canonicalEventJson(event)) + 1, 0),
      }),
    );
  const lines = input.kind === 'foreign' ? input.file.lines : countLines(input.input.bytes);
  return {
    path: input.input.path,
    format: input.kind === 'foreign' ? input.format : 'shadowlog',
    detected: input.detected,
    sourceBytes: input.input.bytes.length,
    lines,
    tornLine: input.kind === 'foreign' ? input.file.tornLine : (exported?.tornLine ?? null),
    joinedLines: input.kind === 'foreign' ? input.file.joinedLines : [],
    ...(exported === undefined ? {} : { trailer: exported.trailer }),
    sessions,
  };
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, index + 1)) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? lines + 1 : lines;
}
