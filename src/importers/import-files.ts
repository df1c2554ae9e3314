// `shadowlog import` as a transaction: every file is read, told apart by content and mapped into
// sessions in memory (a shadowlog export checked as `import` always has, into a staging store),
// every session is checked against the store, and only then is anything written. A session the
// store already holds event for event is left as it is, and one whose start the store holds (the
// file grew since it was imported) gets the rest appended: ids and times come from the source,
// so the same records seal to the same hashes (store-reconcile.ts).
//
// A file named alone that cannot be read or mapped, or whose session the store holds with other
// events, stops the import before the first write. Under a directory given, a file that is no
// session of a known format is skipped and reported, and a damaged one (or one in conflict) is
// reported as failed while the others are imported.
//
// A file that changed within `settleMs` may still be written to: the events that records still
// to come could change (an answer whose lines may continue) are held back, and reported.
//
// Each session is written in one store transaction; the store has none that spans sessions, so
// a failure of the store itself midway (a full disk) keeps the sessions written before it, and
// running the same import again completes it.

import { Readable } from 'node:stream';
import { COMPACTION_SUMMARY } from '../compaction/event-types.js';
import { ShadowlogError } from '../log/errors.js';
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
import { claudeSessionIdOf } from './claude-code/claude-importer.js';
import { readForkParents, readStoredLastLines, readStoredWhole } from './fork-parents.js';
import { type ImportFormat, ImportInputError, UnknownImportFormatError } from './import-errors.js';
import type { ImportInput } from './import-inputs.js';
import type { FailedFile, FileReport, ImportSummary, SessionReport, SkippedFile } from './import-report.js';
import { storedPiLeaves } from './pi/pi-stored-paths.js';
import type { SessionBuilder } from './session-builder.js';
import { type Outcome, reconcileAll, refuseDuplicates, type StagedSession } from './staged-sessions.js';
import { firstLineFrom } from './store-reconcile.js';

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
  /**
   * A file modified less than this long ago (ms) is taken to be still written to: what is not
   * settled at its end is held back (default 0: every file is complete as it is).
   */
  readonly settleMs?: number;
  /** The time to measure `settleMs` from (default now). */
  readonly now?: number;
}

export async function importFiles(store: LogStore, inputs: readonly ImportInput[], options: ImportFilesOptions): Promise<ImportSummary> {
  if (options.sessionId !== undefined && inputs.length !== 1) {
    throw new ImportInputError(
      `--as names the session of one file, and ${inputs.length} files were given; leave it out to use the ids the files give`,
    );
  }
  if (options.sessionId !== undefined) assertSessionId(options.sessionId);
  const skipped: SkippedFile[] = [];
  const failed: FailedFile[] = [];
  const failedPaths = new Set<string>();
  const fail = (input: ImportInput, error: unknown): void => {
    if (input.fromDirectory !== true || !ShadowlogError.isInstance(error)) throw error;
    failedPaths.add(input.path);
    failed.push({ path: input.path, code: error.code, message: error.message, line: lineOf(error) });
  };
  const classified: ClassifiedInput[] = [];
  for (const input of inputs) {
    try {
      const one = classifyInput(input, options.format, options.maxLineBytes);
      const reason = one.kind === 'foreign' ? notASession(one) : undefined;
      if (reason !== undefined && input.fromDirectory === true) skipped.push({ path: input.path, reason });
      else classified.push(one);
    } catch (error) {
      if (input.fromDirectory === true && error instanceof UnknownImportFormatError)
        skipped.push({ path: input.path, reason: skipReason(error) });
      else fail(input, error);
    }
  }
  const [only] = classified;
  if (inputs.length === 1 && only?.kind === 'shadowlog') return importOneExport(store, only, options);
  const foreign = classified.filter((input): input is ForeignInput => input.kind === 'foreign');
  const mappingOptions = {
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.window === undefined ? {} : { window: options.window }),
  };
  const now = options.now ?? Date.now();
  const live = (input: ImportInput) =>
    options.settleMs !== undefined && input.modifiedMs !== undefined && now - input.modifiedMs < options.settleMs;
  const onFailure = (group: readonly ForeignInput[], error: unknown) => {
    for (const each of group) fail(each.input, error);
  };
  // A pi session tree keeps each session the store holds on the path it was imported with.
  const piFiles = foreign.filter((input) => input.format === 'pi').map((input) => input.file);
  const storedLeaves = piFiles.length === 0 ? undefined : await storedPiLeaves(store, piFiles, mappingOptions);
  // A file forked from a session the store holds is mapped as a branch of it; a rewound
  // transcript keeps the path its stored session continues; a forked file stored whole stays so.
  const storedParents = await readForkParents(store, foreign);
  const storedLines = await readStoredLastLines(store, foreign);
  const storedWhole = await readStoredWhole(store, foreign, options.sessionId);
  const built = buildForeignSessions(
    foreign,
    {
      ...mappingOptions,
      ...(storedLeaves === undefined ? {} : { storedLeaves }),
      forkParentEvents: (sessionId: string) => storedParents.get(sessionId),
      storedLastLine: (sessionId: string) => storedLines.get(sessionId),
      storedWhole: (sessionId: string) => storedWhole.has(sessionId),
    },
    onFailure,
  );
  const staged: StagedSession[] = built.map(({ input, builder }) => ({
    input: input.input,
    sessionId: builder.sessionId,
    events: builder.events,
    writable: live(input.input) ? builder.settledEvents : builder.events.length,
    ...(builder.forkLink === undefined ? {} : { branchOf: builder.forkLink }),
    file: input.file,
    report: builtReport(builder),
  }));
  const exports = new Map<ImportInput, Awaited<ReturnType<typeof importSession>>>();
  const staging = new MemoryLogStore();
  for (const input of classified) {
    if (input.kind !== 'shadowlog') continue;
    try {
      const result = await importSession(staging, Readable.from([input.input.bytes]), {
        registry: options.registry,
        ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
        ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      });
      exports.set(input.input, result);
      staged.push(await stagedExport(staging, input.input, result.sessionId));
    } catch (error) {
      fail(input.input, error);
    }
  }
  const unique = refuseDuplicates(staged, fail);
  const outcomes = await reconcileAll(store, unique, fail);
  for (const session of unique) {
    const outcome = outcomes.get(session);
    if (outcome === undefined || outcome.written === 0) continue;
    const from = outcome.stored - outcome.written;
    // A new branch's first batch opens with its session/fork: the store links it to its parent.
    await store.appendAll(session.sessionId, asAsync(batchesOf(session.events.slice(from, outcome.stored))), { expectedSeq: from });
  }
  const files = classified
    .filter((input) => !failedPaths.has(input.input.path))
    .map((input) => fileReport(input, unique, outcomes, exports.get(input.input)));
  return { files, skipped, failed };
}

function builtReport(builder: SessionBuilder): StagedSession['report'] {
  const link = builder.forkLink;
  return {
    ...(builder.parent === undefined ? {} : { parent: builder.parent }),
    ...(link === undefined ? {} : { fork: { ...link, stored: 'linked' as const } }),
    ...(builder.treePath === undefined ? {} : { treePath: builder.treePath }),
    ...(builder.unlinkedFork === undefined ? {} : { unlinkedFork: builder.unlinkedFork }),
    unmapped: builder.unmapped,
  };
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
  const staged = await stagedExport(store, input.input, result.sessionId);
  const stored = staged.events.length;
  // A branch stored linked to its parent holds only its own events; its prefix is the parent's.
  const own = result.fork?.stored === 'linked' ? stored - result.fork.forkSeq - 1 : stored;
  const outcome: Outcome = result.alreadyPresent
    ? { status: 'already-present', stored, written: 0 }
    : { status: 'imported', stored, written: own };
  return { files: [fileReport(input, [staged], new Map([[staged, outcome]]), result)], skipped: [], failed: [] };
}

async function stagedExport(staging: LogStore, input: ImportInput, sessionId: string): Promise<StagedSession> {
  const events: LogEvent[] = [];
  for await (const page of staging.read(sessionId)) events.push(...page);
  return { input, sessionId, events, writable: events.length, report: { unmapped: [] } };
}

/** Why a file that parsed as another harness's gives no session to import, if it gives none. */
function notASession(input: ForeignInput): string | undefined {
  // Claude Code leaves files of summary records alone in a project directory: no conversation.
  if (input.format === 'claude-code' && claudeSessionIdOf(input.file) === undefined) {
    return 'a Claude Code file that names no session (summary or file-history records only): no conversation to import';
  }
  return undefined;
}

function skipReason(error: UnknownImportFormatError): string {
  if (error.found === 'no records at all') return 'empty: no records at all';
  return `not a session of any format shadowlog imports (${error.found})`;
}

/** The line an error names, when it names one. */
function lineOf(error: ShadowlogError): number | null {
  const fields = error as ShadowlogError & { line?: unknown; lines?: unknown; conflicts?: ReadonlyArray<{ line?: number }> };
  if (typeof fields.line === 'number') return fields.line;
  if (Array.isArray(fields.lines) && typeof fields.lines[0] === 'number') return fields.lines[0];
  return fields.conflicts?.[0]?.line ?? null;
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
  outcomes: ReadonlyMap<StagedSession, Outcome>,
  exported: Awaited<ReturnType<typeof importSession>> | undefined,
): FileReport {
  const sessions = staged
    .filter((session) => session.input === input.input && outcomes.has(session))
    .map((session): SessionReport => {
      const outcome = outcomes.get(session) as Outcome;
      // A branch's figures are its own events': its prefix is its parent's, counted there.
      const ownFrom = session.branchOf === undefined || outcome.standalone !== undefined ? 0 : session.branchOf.forkSeq + 1;
      const standalone =
        outcome.standalone === undefined || session.branchOf === undefined
          ? {}
          : { fork: { ...session.branchOf, stored: 'standalone' as const, reason: outcome.standalone } };
      const held = session.events.slice(ownFrom, Math.max(ownFrom, outcome.stored));
      const pending = session.events.length - Math.max(ownFrom, outcome.stored);
      return {
        sessionId: session.sessionId,
        ...session.report,
        ...(exported?.fork === undefined || exported.sessionId !== session.sessionId ? {} : { fork: exported.fork }),
        ...standalone,
        status: outcome.status,
        events: outcome.stored,
        written: outcome.written,
        ...countsOf(held),
        ...(pending <= 0
          ? {}
          : { pending: { events: pending, fromLine: firstLineFrom(session.events, Math.max(ownFrom, outcome.stored)) } }),
        logBytes: held.reduce((sum, event) => sum + Buffer.byteLength(canonicalEventJson(event)) + 1, 0),
      };
    });
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

/** The calls, the compactions and the foreign lines among the events the store holds. */
function countsOf(events: readonly LogEvent[]): Pick<SessionReport, 'modelCalls' | 'compactions' | 'foreignLines'> {
  let modelCalls = 0;
  let compactions = 0;
  let foreignLines = 0;
  for (const event of events) {
    if (event.type === 'model/request') modelCalls++;
    else if (event.type === COMPACTION_SUMMARY) compactions++;
    else if (isForeignType(event.type)) foreignLines++;
  }
  return { modelCalls, compactions, foreignLines };
}

function countLines(bytes: Buffer): number {
  let lines = 0;
  for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, index + 1)) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? lines + 1 : lines;
}
