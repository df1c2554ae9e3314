// An imported session built in memory, event by event, through the fold every writer uses
// (prepareAppend: each draft sealed and checked against SPEC §2–§3 as it is added), so that a
// mapping shadowlog's rules refuse is caught at the line that caused it, and nothing reaches a
// store until the whole file has been read. Turns, steps, call ids and the surface each imported
// call saw are kept here; the source mappers say what happened, in the source's order.
//
// A source file may still be growing (a live session, a resumed one), so the events of a prefix
// of a file must be a prefix of the events of the whole file: nothing is added because the file
// ends (the last turn stays open until the file shows the next one begin), and the mappers mark
// where the events so far can no longer change (`settle`), so that what is still being written
// (an answer whose lines keep coming) can be held back until it is complete.

import { COMPACTION_EVENT_TYPES } from '../compaction/event-types.js';
import { ShadowlogError } from '../log/errors.js';
import type { EventDraft, LogEvent, SessionParent, TurnEndReason, Usage } from '../log/event.js';
import { FORMAT_VERSION } from '../log/event.js';
import { EventTypeRegistry } from '../log/event-types.js';
import { type ForeignSource, foreignEventDraft } from '../log/foreign-event.js';
import { forkPointProblem } from '../log/fork-point.js';
import { isIsoUtc } from '../log/iso-time.js';
import { prepareAppend } from '../log/seal.js';
import { encodeGrownSurface, encodeRequestSurface, type SurfaceChange } from '../log/surface-change.js';
import { SurfaceFold } from '../log/surface-fold.js';
import { knownModelLimits } from '../providers/model-limits.js';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { HARNESS_VERSION } from '../store/session-log.js';
import { ImportMappingError } from './import-errors.js';
import type { TreePath, UnmappedPart } from './import-report.js';
import type { ImportedAnswer, ImportedFailure, SourceLineRef } from './imported-call.js';
import type { SourceRecord } from './source-file.js';
import { ToolCallIds } from './tool-call-ids.js';

export interface SessionBuilderOptions {
  readonly sessionId: string;
  /** The file it is read from, for errors. */
  readonly sourcePath: string;
  readonly source: ForeignSource;
  /** The session/start time: the source's first time. */
  readonly time: string;
  readonly parent?: SessionParent;
  /** The context window to record on calls whose source states none (--window), before the model table's. */
  readonly window?: number;
  /**
   * For a branch (SPEC §14): its parent's events up to the fork point. The mapper replays the
   * records those came from, and the builder takes these events in place of what it would seal
   * (the same event of each type, so the prefix is the parent's, hash for hash).
   */
  readonly prefix?: readonly LogEvent[];
}

/** Where a content mapper reports a part it could not map (a session builder, or the proxy's request reader). */
export type MappingNotes = Pick<SessionBuilder, 'note'>;

export class SessionBuilder {
  readonly sessionId: string;
  readonly sourcePath: string;
  readonly source: ForeignSource;
  readonly parent: SessionParent | undefined;
  readonly fold = new SurfaceFold({ registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
  readonly events: LogEvent[] = [];
  readonly unmapped: UnmappedPart[] = [];
  readonly counts = { modelCalls: 0, compactions: 0, foreignLines: 0 };
  readonly callIds = new ToolCallIds();
  /** For a branch (SPEC §14): the session it forks and the seq it forks after; its events up to that seq are the parent's. */
  forkLink: BranchOf | undefined;
  /** For a session made of one path of a session tree (pi): where the path ends, for the report. */
  treePath: TreePath | undefined;
  private time: string;
  private readonly window: number | undefined;
  private turn = 0;
  private step = 0;
  private inTurn = false;
  private outcome: TurnEndReason = 'completed';
  private lines: readonly number[] = [];
  private settled = 0;
  private readonly prefix: readonly LogEvent[];
  /** A source's branch imported whole, not linked: its parent, and why not. */
  unlinkedFork: { readonly parentSessionId: string; readonly reason: string } | undefined;

  constructor(options: SessionBuilderOptions) {
    this.prefix = options.prefix ?? [];
    this.sessionId = options.sessionId;
    this.sourcePath = options.sourcePath;
    this.source = options.source;
    this.parent = options.parent;
    this.time = options.time;
    this.window = options.window;
    this.append([
      {
        type: 'session/start',
        data: {
          formatVersion: FORMAT_VERSION,
          harnessVersion: HARNESS_VERSION,
          ...(options.parent === undefined ? {} : { parent: options.parent }),
        },
      },
    ]);
    this.settle();
  }

  /**
   * How many of the events no record added to the end of the source can change; those after
   * them depend on records still to come (an answer whose lines may continue, a compaction whose
   * summary is not written yet).
   */
  get settledEvents(): number {
    return this.settled;
  }

  /** Marks every event so far as settled: the mapper holds nothing that a later record could change. */
  settle(): void {
    this.settled = this.events.length;
  }

  /**
   * Starts mapping `records` (one record, or the lines of one answer): their lines are the ones
   * an error names, and the first one's time is the time of what they become.
   */
  reading(...records: readonly SourceRecord[]): void {
    this.lines = records.map((record) => record.line);
    if (records[0] !== undefined) this.at(timeOfRecord(records[0]));
  }

  /**
   * Maps `record` with `map`; a refusal by the log's rules, which a mapper should have avoided,
   * becomes an ImportMappingError naming the file and line.
   */
  guard(record: SourceRecord, map: () => void): void {
    try {
      map();
    } catch (error) {
      if (!ShadowlogError.isInstance(error) || error instanceof ImportMappingError) throw error;
      throw new ImportMappingError(this.sourcePath, this.lines.length === 0 ? [record.line] : this.lines, error);
    }
  }

  get currentTurn(): number | null {
    return this.inTurn ? this.turn : null;
  }

  /** Moves the clock to the source's time for what comes next (a record without a time keeps the last). */
  at(time: unknown): string {
    const parsed = importedTime(time);
    if (parsed !== undefined) this.time = parsed;
    return this.time;
  }

  /** Seals and applies `drafts` as one batch; throws the fold's typed error, adding nothing, when one is refused. */
  append(drafts: readonly EventDraft[]): readonly LogEvent[] {
    if (this.events.length < this.prefix.length) return this.replayPrefix(drafts);
    const time = this.time;
    const prepared = prepareAppend(this.fold, drafts, () => time, nodeSha256Hex);
    for (const event of prepared.events) this.events.push(event);
    return prepared.events;
  }

  /**
   * While the builder replays a branch's prefix: the parent's events, one for each draft, in
   * place of sealing them (a draft past the prefix is sealed as usual).
   */
  private replayPrefix(drafts: readonly EventDraft[]): readonly LogEvent[] {
    const taken: LogEvent[] = [];
    for (const [index, draft] of drafts.entries()) {
      const event = this.prefix[this.events.length];
      if (event === undefined) return [...taken, ...this.append(drafts.slice(index))];
      if (event.type !== draft.type) throw new BranchPrefixError(this.sessionId, event, draft.type);
      this.fold.apply(event);
      this.events.push(event);
      taken.push(event);
    }
    return taken;
  }

  /**
   * Why the session could not fork after its events so far (a tool call without its result on
   * the surface); undefined when it can.
   */
  forkProblem(): string | undefined {
    return forkPointProblem(this.fold);
  }

  /**
   * Makes the session a branch of `parentSessionId` (SPEC §14) after its events so far, which
   * must be the parent's own, event for event: a session/fork follows them. What was counted
   * and reported of them is the parent's, so it is cleared here. A builder given a prefix
   * (the parent's events) must have replayed all of it; within the prefix, an ancestor's
   * session/fork is replayed as it is.
   */
  fork(parentSessionId: string, details: Omit<BranchOf, 'parentSessionId' | 'forkSeq'> = {}): void {
    const replayed = this.events.length < this.prefix.length;
    if (!replayed && this.prefix.length > 0 && this.events.length !== this.prefix.length) {
      throw new BranchPrefixError(this.sessionId, this.prefix[this.prefix.length - 1], `a fork after event ${this.events.length - 1}`);
    }
    const forkSeq = this.fold.nextSeq - 1;
    this.append([{ type: 'session/fork', data: { parentSessionId, forkSeq, parentHash: this.fold.lastHash } }]);
    if (!replayed) {
      this.forkLink = { parentSessionId, forkSeq, ...details };
      this.unmapped.length = 0;
      this.counts.modelCalls = 0;
      this.counts.compactions = 0;
      this.counts.foreignLines = 0;
    }
    this.settle();
  }

  /** Keeps a record whole as a foreign event of kind `kind` (pi `thinking_level_change` → pi/thinking-level-change). */
  foreign(record: SourceRecord, kind: string): void {
    this.append([foreignEventDraft(this.source, kind, record.text, record.line, this.at(timeOfRecord(record)))]);
    this.counts.foreignLines++;
  }

  /** A record that could not be mapped: kept whole, and reported with its line. */
  unmappedRecord(record: SourceRecord, kind: string, reason: string): void {
    this.foreign(record, kind);
    this.note(record.line, reason);
  }

  /** Reports a part of a line that could not be mapped (the line itself is kept in the event mapped from it). */
  note(line: number, reason: string): void {
    this.unmapped.push({ line, reason });
  }

  /** A surface message (system, user) appended; a user message that follows a model call starts a new turn. */
  message(type: 'system/message' | 'user/message', data: object, options: { startsTurn: boolean }): number {
    if (options.startsTurn) this.userInput();
    const [event] = this.append([{ type, data, surfaceOp: 'append' }]);
    return (event as LogEvent).seq;
  }

  /**
   * A call the source made: its model/request (imported, with the surface it saw and what the
   * source knows of it), then the answer. Returns the answer's seq.
   */
  call(answer: ImportedAnswer): number {
    this.beginStep();
    const usage = this.checkedUsage(answer.usage, answer.sourceLines);
    const toolCalls = answer.toolCalls.map((call) => this.callIds.open(call));
    const [, message] = this.append([
      this.requestDraft(answer.provider, answer.model, answer.contextWindow),
      {
        type: 'assistant/message',
        data: {
          content: answer.content,
          toolCalls,
          model: answer.model,
          ...(usage === undefined ? {} : { usage }),
          ...(answer.extra ?? {}),
          sourceLines: answer.sourceLines,
        },
        surfaceOp: 'append',
      },
    ]);
    this.callIds.placed(toolCalls, (message as LogEvent).seq);
    this.counts.modelCalls++;
    this.outcome = 'completed';
    return (message as LogEvent).seq;
  }

  /** A call that failed or was cut off: its request and a model/error (what the source kept of the answer stays in its line). */
  failedCall(failure: ImportedFailure): void {
    this.beginStep();
    this.append([
      this.requestDraft(failure.provider, failure.model, failure.contextWindow),
      {
        type: 'model/error',
        data: {
          turn: this.turn,
          step: this.step,
          code: failure.code,
          message: failure.message,
          retryable: false,
          contextOverflow: false,
          ...(failure.usage === undefined ? {} : { usage: failure.usage }),
          sourceLines: failure.sourceLines,
        },
      },
    ]);
    this.counts.modelCalls++;
    this.outcome = failure.code === 'aborted' ? 'aborted' : 'error';
  }

  /**
   * The result of the call the source named `sourceCallId`; false (nothing added) when no call
   * of that id is waiting for its result on the surface.
   */
  toolResult(sourceCallId: string, data: { content: unknown[]; error?: true }, sourceLines: readonly SourceLineRef[]): boolean {
    const callId = this.callIds.resultFor(sourceCallId, this.fold);
    if (callId === undefined) return false;
    this.append([{ type: 'tool/result', data: { callId, ...data, sourceLines }, surfaceOp: 'append' }]);
    this.callIds.answered(callId);
    return true;
  }

  /** The seqs of the current surface, in order. */
  surfaceSeqs(): number[] {
    return this.fold.toArray().map((node) => node.seq);
  }

  /**
   * The end of the source. The open turn, if any, stays open: the file may grow, and a turn ends
   * when the source shows the next one begin (the harness's own logs end the same way while it runs).
   */
  finish(): void {}

  /**
   * Usage whose parts do not fit in its wholes (more cached than input, more reasoning than
   * output) is a source's glitch: the wholes are kept, the parts left out and reported.
   */
  private checkedUsage(usage: Usage | undefined, lines: readonly SourceLineRef[]): Usage | undefined {
    if (usage === undefined) return undefined;
    const cached = (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
    if (cached <= usage.inputTokens && (usage.reasoningTokens ?? 0) <= usage.outputTokens) return usage;
    this.note(
      lines[lines.length - 1]?.line ?? 0,
      `the usage's parts do not fit in its wholes (${JSON.stringify(usage)}); only its input and output counts are kept`,
    );
    return { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  }

  private requestDraft(provider: string, model: string, contextWindow: number | undefined): EventDraft {
    const window = contextWindow ?? this.window ?? knownModelLimits(model)?.contextWindow;
    return {
      type: 'model/request',
      data: {
        turn: this.turn,
        step: this.step,
        provider,
        model,
        provenance: 'imported',
        ...this.requestSurface(),
        ...(window === undefined ? {} : { contextWindow: window }),
      },
    };
  }

  /**
   * The surface the request saw, encoded against the previous request. While the surface has only
   * grown since that request (the common case) this costs what was appended, not the surface's
   * length, so that importing a session stays linear in its length.
   */
  private requestSurface(): { surfaceSeqs: number[] } | { surfaceChange: SurfaceChange } {
    const previous = this.fold.lastRequestSurface;
    const appended = this.fold.appendedSinceLastRequest;
    const grown = previous === undefined || appended === undefined ? undefined : encodeGrownSurface(previous, appended);
    return grown ?? encodeRequestSurface(previous, this.surfaceSeqs());
  }

  /** User input: after a model call it opens the next turn; before any, it opens the first. */
  private userInput(): void {
    if (this.inTurn && this.step === 0) return;
    if (this.inTurn) this.endTurn();
    this.startTurn();
  }

  private beginStep(): void {
    if (!this.inTurn) this.startTurn();
    this.step++;
  }

  private startTurn(): void {
    this.turn++;
    this.step = 0;
    this.inTurn = true;
    this.outcome = 'completed';
    this.append([{ type: 'turn/start', data: { turn: this.turn } }]);
  }

  /**
   * A turn ends when its last event happened, not when the next input came: so the turn/end is
   * the same whether the next input was in the file at the first import or appended later.
   */
  private endTurn(): void {
    const next = this.time;
    this.time = this.events[this.events.length - 1]?.time ?? next;
    try {
      this.append([{ type: 'turn/end', data: { turn: this.turn, reason: this.outcome } }]);
    } finally {
      this.time = next;
    }
    this.inTurn = false;
  }
}

/** A branch's link, as the builder made it, with what its report says of where it leaves its parent. */
export interface BranchOf {
  readonly parentSessionId: string;
  readonly forkSeq: number;
  /** The line of its first record not on its parent's path. */
  readonly leavesAtLine?: number;
  /** Records it shares with its parent but carries in its own events, and why. */
  readonly carried?: { readonly fromLine: number; readonly toLine: number; readonly reason: string };
}

/** A branch's replayed records did not give its parent's prefix: a gap in an importer's branch mapping. */
export class BranchPrefixError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, parentEvent: LogEvent | undefined, found: string) {
    super(
      'IMPORT_BRANCH_PREFIX',
      `branch ${sessionId}: replaying its parent's records gave ${found} where the parent holds ${parentEvent === undefined ? 'nothing' : `${parentEvent.type} (seq ${parentEvent.seq})`}; nothing was imported. Please report the file`,
    );
    this.sessionId = sessionId;
  }
}

/** A source's time as an event time: ISO-8601 UTC as given, or normalised when it is another form Date reads. */
export function importedTime(value: unknown): string | undefined {
  if (isIsoUtc(value)) return value;
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? undefined : parsed.toISOString();
}

/** The time a record carries in its `timestamp` field, if any. */
export function timeOfRecord(record: SourceRecord): unknown {
  return record.value.timestamp;
}

/** The first time any record of a file gives (the session/start time); the epoch for a file that gives none. */
export function firstTimeOf(records: readonly SourceRecord[]): string {
  for (const record of records) {
    const time = importedTime(record.value.timestamp);
    if (time !== undefined) return time;
  }
  return new Date(0).toISOString();
}
