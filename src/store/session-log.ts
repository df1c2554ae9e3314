// A session's log as a program uses it: the store underneath, the surface fold on top.
// Every append is validated against the fold before the store sees it, and written with the
// seq the fold expects, so a concurrent writer is caught by the store (ConcurrencyError).

import { parseEnvelope } from '../log/envelope.js';
import {
  ConfigError,
  CorruptLogError,
  ForkPointError,
  messageOf,
  SeqOutOfRangeError,
  SessionExistsError,
  SessionNotFoundError,
  ShadowlogError,
} from '../log/errors.js';
import {
  type EventDraft,
  FORMAT_VERSION,
  type LogEvent,
  type SessionContinuation,
  type SessionParent,
  type WhatIfLink,
} from '../log/event.js';
import { forgetCanonicalBody } from '../log/event-json.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { forkPointProblem } from '../log/fork-point.js';
import type { Sha256 } from '../log/hash.js';
import type { JsonValue } from '../log/json-value.js';
import { type PreparedAppend, prepareAppend } from '../log/seal.js';
import { assertSessionId } from '../log/session-id.js';
import { SurfaceFold } from '../log/surface-fold.js';
import { type CheckpointKey, checkpointKeyPath, loadCheckpointKeyFile } from './checkpoint-key.js';
import { type CheckpointReport, NO_CHECKPOINT, restoreFromCheckpoint, unappliedFinding, writeFoldCheckpoint } from './fold-checkpoints.js';
import { HARNESS_VERSION } from './harness-version.js';
import { type CheckpointEntry, hasCheckpoints, type LogStore } from './log-store.js';
import { nodeSha256 } from './node-sha256.js';
import { CheckpointsUnsupportedError } from './store-errors.js';

export { HARNESS_VERSION };

export interface SessionLogOptions {
  readonly registry?: EventTypeRegistry;
  /** The clock for event times (tests pin it). */
  readonly now?: () => string;
  /**
   * Called with every event the log applies, read or appended, in seq order. An open with an
   * observer reads the whole log (it is promised every event), not from a checkpoint.
   */
  readonly observe?: (event: LogEvent) => void;
  /**
   * Like `observe`, for an observer whose state is saved in fold checkpoints: an open with it
   * (and no `observe`) starts from the newest valid checkpoint that holds its state under its
   * key, restores that state, and gives it only the events after. Checkpoints this log writes
   * hold its state.
   */
  readonly observer?: CheckpointedObserver;
  /** The SHA-256 of the chain and of everything hashed for this session (default: node:crypto). */
  readonly sha256?: Sha256;
  /**
   * Fold checkpoints, on a store that keeps them (fold-checkpoints.ts): an open starts from the
   * newest valid one, and appends write one every `checkpointEvery` events. `false`: neither.
   * Default true.
   */
  readonly checkpoints?: boolean;
  /** Events between two checkpoints written after appends (default 10,000; 0 writes none automatically). */
  readonly checkpointEvery?: number;
  /**
   * The key checkpoints are written and proven with (checkpoint-key.ts): an open uses only a
   * checkpoint whose digest is a MAC under it. Default: the key in the file
   * SHADOWLOG_CHECKPOINT_KEY_FILE names, else ~/.config/shadowlog/checkpoint-key, created by the
   * first checkpoint written (an open never creates it: without it, the log is read whole).
   */
  readonly checkpointKey?: CheckpointKey;
  /**
   * Told when a checkpoint written after an append fails (the append itself has landed, and the
   * next one is tried an interval later). Default: a process warning with the code
   * SHADOWLOG_CHECKPOINT_WRITE_FAILED, so that the failure is seen, not only kept in
   * `checkpointWriteError`.
   */
  readonly onCheckpointWriteError?: (error: unknown, context: { readonly sessionId: string; readonly seq: number }) => void;
}

/**
 * State kept from every event of a session, which fold checkpoints can hold beside the fold
 * (SessionLogOptions.observer): restored from one, it must equal the state observing every
 * event up to its seq would have built.
 */
export interface CheckpointedObserver {
  /** Names the observer and the layout of what `save` returns: a checkpoint saved under another key is not restored from. */
  readonly key: string;
  observe(event: LogEvent): void;
  /** The state after the events observed so far, as JSON. */
  save(): JsonValue;
  /**
   * Takes a saved state in place of the current one. Throws a ShadowlogError when it cannot
   * (the open then tries an older checkpoint, and in the end observes the whole log, from a
   * fresh state: leave none of the refused state behind).
   */
  restore(saved: JsonValue): void;
}

function warnCheckpointWriteFailed(error: unknown, context: { readonly sessionId: string; readonly seq: number }): void {
  const reason = messageOf(error);
  process.emitWarning(
    `shadowlog: the fold checkpoint of session ${context.sessionId} at seq ${context.seq} could not be written (${reason}); the log is complete without it, opening reads from an older checkpoint, and the next is tried an interval later`,
    { code: 'SHADOWLOG_CHECKPOINT_WRITE_FAILED' },
  );
}

/** Drafts sealed per part when an append is streamed (appendStreamed); only appends of at least two parts are. */
const STREAMED_PART = 250;

/** Events between two checkpoints a writer leaves, unless told otherwise. */
export const DEFAULT_CHECKPOINT_EVERY = 10_000;

/** A session's log over a store: appends are validated against the surface fold and written at the seq it expects. */
export class SessionLog {
  /** Appends and catch-ups run one at a time: each is checked against the fold the last one left. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Batches `hold` applied to the fold and the store does not have yet, oldest first. */
  private held: PreparedAppend[] = [];

  private constructor(
    readonly store: LogStore,
    readonly sessionId: string,
    readonly fold: SurfaceFold,
    options: SessionLogOptions,
  ) {
    this.now = options.now ?? defaultNow;
    const { observe, observer } = options;
    this.observer = observer;
    this.observe =
      observer === undefined
        ? observe
        : observe === undefined
          ? (event) => observer.observe(event)
          : (event) => {
              observe(event);
              observer.observe(event);
            };
    this.sha256 = options.sha256 ?? nodeSha256;
    this.checkpointEvery = options.checkpoints === false ? 0 : checkEvery(options.checkpointEvery);
    this.onCheckpointWriteError = options.onCheckpointWriteError ?? warnCheckpointWriteFailed;
    this.checkpointKey = options.checkpointKey;
  }

  private readonly checkpointKey: CheckpointKey | undefined;

  private readonly onCheckpointWriteError: NonNullable<SessionLogOptions['onCheckpointWriteError']>;

  /** How this log was opened: the checkpoint it started from, if any, and the ones it ignored and why. */
  get checkpointReport(): CheckpointReport {
    return this.openReport;
  }

  /** The error of the last checkpoint written after an append, if it failed (the append itself had landed); cleared by the next success. */
  get checkpointWriteError(): unknown {
    return this.writeError;
  }

  private openReport: CheckpointReport = NO_CHECKPOINT;
  private writeError: unknown;

  private readonly checkpointEvery: number;
  /** The seq of the newest checkpoint known good: the next one is due checkpointEvery events after it. */
  private lastCheckpointSeq = 0;

  /** The SHA-256 this session hashes with: its chain, and the digests of its requests. */
  readonly sha256: Sha256;

  private readonly now: () => string;
  private readonly observe: ((event: LogEvent) => void) | undefined;
  private readonly observer: CheckpointedObserver | undefined;

  /**
   * Starts a new session with its session/start event, in the current format version; a
   * sub-session names its parent session (and the tool call that spawned it, when known).
   */
  static async create(
    store: LogStore,
    sessionId: string,
    options: SessionLogOptions & {
      harnessVersion?: string;
      parent?: SessionParent;
      continues?: SessionContinuation;
      whatif?: WhatIfLink;
    } = {},
  ): Promise<SessionLog> {
    assertSessionId(sessionId);
    const head = await store.head(sessionId);
    if (head !== undefined)
      throw new SessionExistsError(sessionId, `with ${head.nextSeq} events; open it to continue it, or choose another id`);
    const log = new SessionLog(store, sessionId, newFold(options), options);
    await log.append([
      {
        type: 'session/start',
        data: {
          formatVersion: FORMAT_VERSION,
          harnessVersion: options.harnessVersion ?? HARNESS_VERSION,
          ...(options.parent === undefined ? {} : { parent: options.parent }),
          ...(options.continues === undefined ? {} : { continues: options.continues }),
          ...(options.whatif === undefined ? {} : { whatif: options.whatif }),
        },
      },
    ]);
    return log;
  }

  /**
   * Starts a branch of `parentId` (SPEC §14): a new session `id` whose events 0 … `at` are the
   * parent's (read from it, never copied), continued by a session/fork at `at + 1`. Throws
   * SessionNotFoundError for an unknown parent, SessionExistsError when `id` is taken,
   * SeqOutOfRangeError for an `at` past the parent's head, and ForkPointError (naming the nearest
   * valid seqs) for a fork point that would leave a tool call without its result. The parent is
   * never written. Observers see the prefix as on an open.
   */
  static async fork(store: LogStore, parentId: string, options: SessionLogOptions & { at: number; id: string }): Promise<SessionLog> {
    const { at, id, ...logOptions } = options;
    assertSessionId(parentId);
    assertSessionId(id);
    const parentHead = await store.head(parentId);
    if (parentHead === undefined) throw new SessionNotFoundError(parentId);
    if (!Number.isSafeInteger(at) || at < 0 || at >= parentHead.nextSeq) throw new SeqOutOfRangeError(at, parentHead.nextSeq);
    const taken = await store.head(id);
    if (taken !== undefined) throw new SessionExistsError(id, `with ${taken.nextSeq} events; choose another id for the branch`);
    // A branch's events up to its fork point are its parent's (SPEC §14): a fork there is a fork of the parent.
    const link = await store.readForkLink?.(parentId);
    if (link !== undefined && at <= link.forkSeq) {
      throw new ForkPointError(
        parentId,
        at,
        `event #${at} is in the prefix ${parentId} reads from ${link.parentSessionId} (it forks it after #${link.forkSeq}); fork ${link.parentSessionId} at ${at} for that point`,
        undefined,
        link.forkSeq + 1,
      );
    }
    const prefix = await SessionLog.open(store, parentId, { ...logOptions, toSeq: at + 1 });
    const problem = forkPointProblem(prefix.fold);
    if (problem !== undefined) {
      const { before, after } = await nearestForkPoints(store, parentId, at, newFold(logOptions).registry);
      throw new ForkPointError(parentId, at, problem, before, after);
    }
    const branch = new SessionLog(store, id, prefix.fold, logOptions);
    branch.openReport = prefix.openReport;
    await branch.append([{ type: 'session/fork', data: { parentSessionId: parentId, forkSeq: at, parentHash: prefix.fold.lastHash } }]);
    return branch;
  }

  /**
   * Reads a session and builds its surface, up to `toSeq` (exclusive) when given. The session
   * keeps the format version it started in: appends are held to that version's shapes. It starts
   * from the newest proven checkpoint; if the events after that one cannot be applied to its
   * fold, the fold is dropped and the whole log read (checkpointReport says so), so that nothing
   * is shown or appended on a fold the log does not give.
   */
  static async open(store: LogStore, sessionId: string, options: SessionLogOptions & { toSeq?: number } = {}): Promise<SessionLog> {
    assertSessionId(sessionId);
    const head = await store.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    let report = NO_CHECKPOINT;
    if (options.checkpoints !== false && options.observe === undefined && hasCheckpoints(store)) {
      const observer = options.observer;
      // The observer's state before any checkpoint's: what it goes back to if that fold is dropped.
      const fresh = observer === undefined ? undefined : { state: observer.save() };
      const restored = await restoreFromCheckpoint(store, sessionId, {
        registry: newFold(options).registry,
        nextSeq: head.nextSeq,
        ...(options.checkpointKey === undefined ? {} : { checkpointKey: options.checkpointKey }),
        ...(options.toSeq === undefined ? {} : { toSeq: options.toSeq }),
        ...(observer === undefined ? {} : { observer }),
      });
      report = restored.report;
      const from = report.restoredFrom;
      if (restored.fold !== undefined && from !== undefined) {
        const log = new SessionLog(store, sessionId, restored.fold, options);
        log.openReport = report;
        log.lastCheckpointSeq = from;
        const failure = await log.catchUpFromCheckpoint(options.toSeq);
        if (failure === undefined) return log;
        if (observer !== undefined && fresh !== undefined) observer.restore(fresh.state);
        report = { restoredFrom: undefined, ignored: [...report.ignored, unappliedFinding(from, failure.seq, failure.error)] };
      }
    }
    const log = new SessionLog(store, sessionId, newFold(options), options);
    log.openReport = report;
    await log.catchUp(options.toSeq);
    return log;
  }

  /**
   * catchUp on a fold restored from a checkpoint, before anyone else has the log: an event the
   * fold refuses (a ShadowlogError) is returned, not thrown, so that open can read the whole log.
   */
  private async catchUpFromCheckpoint(toSeq: number | undefined): Promise<{ seq: number; error: unknown } | undefined> {
    const fromSeq = this.fold.nextSeq;
    for await (const page of this.store.read(this.sessionId, toSeq === undefined ? { fromSeq } : { fromSeq, toSeq })) {
      for (const event of page) {
        try {
          this.fold.apply(parseEnvelope(event));
          this.observe?.(event);
        } catch (error) {
          if (!ShadowlogError.isInstance(error)) throw error;
          return { seq: event.seq, error };
        }
      }
    }
    return undefined;
  }

  /**
   * Writes a checkpoint of the fold as it is now (derived data beside the log, never part of
   * it), its digest a MAC under the checkpoint key, keeping the newest few. Throws
   * CheckpointsUnsupportedError on a store that keeps none, CheckpointKeyError when the key file
   * cannot be used or created, and CheckpointExistsError when the store keeps another checkpoint
   * at this seq (checkpoints are append-only).
   */
  writeCheckpoint(): Promise<CheckpointEntry> {
    return this.exclusive(() => this.writeCheckpointNow());
  }

  private async writeCheckpointNow(): Promise<CheckpointEntry> {
    const store = this.store;
    if (!hasCheckpoints(store)) throw new CheckpointsUnsupportedError(store.location);
    const observer = this.observer;
    // The observer has seen only what was written: what is held back is written first.
    if (observer !== undefined && this.held.length > 0) await this.appendNow([]);
    const entry = await writeFoldCheckpoint(store, this.sessionId, this.fold, {
      key: this.checkpointKey ?? loadCheckpointKeyFile(checkpointKeyPath()),
      ...(observer === undefined ? {} : { observed: { key: observer.key, state: observer.save() } }),
    });
    this.lastCheckpointSeq = entry.seq;
    return entry;
  }

  /** After an append that made a checkpoint due. Its failure fails no append; it is kept in checkpointWriteError. */
  private async checkpointAfterAppend(): Promise<void> {
    if (!hasCheckpoints(this.store)) {
      this.lastCheckpointSeq = this.fold.nextSeq;
      return;
    }
    try {
      await this.writeCheckpointNow();
      this.writeError = undefined;
    } catch (error) {
      // Tried again checkpointEvery events later; the log itself is complete without it.
      this.writeError = error;
      this.lastCheckpointSeq = this.fold.nextSeq;
      this.onCheckpointWriteError(error, { sessionId: this.sessionId, seq: this.fold.nextSeq });
    }
  }

  get nextSeq(): number {
    return this.fold.nextSeq;
  }

  /**
   * Validates and appends `drafts` as one atomic batch. Throws a typed error, writing
   * nothing, when any draft is refused or another writer appended first. Events held back by
   * `hold` are written first, in the same transaction.
   */
  append(drafts: readonly EventDraft[]): Promise<readonly LogEvent[]> {
    return this.exclusive(() => this.appendNow(drafts));
  }

  /**
   * Validates `drafts` and applies them to the fold now, as `append` does, but does not write
   * them: the next `append` (or `flush`) writes them together with its own events, in one
   * transaction, so that one commit serves both. Until then the store does not have them (the
   * fold, `nextSeq` and `readEvent` do), and they are observed only once written. If that
   * write fails, they are taken back out of the fold with the batch that failed. A crash
   * before it loses them: hold only what may be lost with what follows it (the spine holds a
   * turn's start until its first model/request, and a final answer until its turn/end).
   */
  hold(drafts: readonly EventDraft[]): Promise<readonly LogEvent[]> {
    return this.exclusive(async () => {
      const prepared = prepareAppend(this.fold, drafts, this.now, this.sha256.hex);
      if (prepared.events.length > 0) this.held.push(prepared);
      return prepared.events;
    });
  }

  /** The number of events held back by `hold`, not written yet. */
  get heldEvents(): number {
    let count = 0;
    for (const batch of this.held) count += batch.events.length;
    return count;
  }

  /** Writes the events held back by `hold`, if any, in one transaction. */
  async flush(): Promise<void> {
    await this.exclusive(async () => {
      if (this.held.length > 0) await this.appendNow([]);
    });
  }

  private async appendNow(drafts: readonly EventDraft[]): Promise<readonly LogEvent[]> {
    const held = this.held;
    const expectedSeq = held[0]?.events[0]?.seq ?? this.fold.nextSeq;
    if (this.store.overlapsAppendAll === true && drafts.length >= 2 * STREAMED_PART) {
      return this.appendStreamed(held, drafts, expectedSeq);
    }
    // Refused drafts leave the held events held: they are still the fold's, and still to be written.
    const prepared = prepareAppend(this.fold, drafts, this.now, this.sha256.hex);
    this.held = [];
    const events = held.length === 0 ? prepared.events : [...held.flatMap((batch) => batch.events), ...prepared.events];
    try {
      await this.store.append(this.sessionId, events, { expectedSeq });
    } catch (error) {
      prepared.rollback();
      for (let index = held.length - 1; index >= 0; index--) (held[index] as PreparedAppend).rollback();
      throw error;
    }
    await this.afterAppend(events);
    return prepared.events;
  }

  /**
   * appendNow on a store whose appendAll overlaps (PostgreSQL): the drafts are sealed a part at
   * a time and streamed, so that the server writes one part while the next is sealed. Still one
   * transaction, all or nothing; a refused draft rolls back the parts already sent and, as in
   * appendNow, leaves the held events held.
   */
  private async appendStreamed(held: PreparedAppend[], drafts: readonly EventDraft[], expectedSeq: number): Promise<readonly LogEvent[]> {
    const parts: PreparedAppend[] = [];
    let refused = false;
    const { fold, now } = this;
    const hex = this.sha256.hex;
    async function* batches(): AsyncGenerator<readonly LogEvent[]> {
      for (const batch of held) yield batch.events;
      for (let start = 0; start < drafts.length; start += STREAMED_PART) {
        let part: PreparedAppend;
        try {
          part = prepareAppend(fold, drafts.slice(start, start + STREAMED_PART), now, hex);
        } catch (error) {
          refused = true;
          throw error;
        }
        parts.push(part);
        yield part.events;
      }
    }
    this.held = [];
    let written: number;
    try {
      written = await this.store.appendAll(this.sessionId, batches(), { expectedSeq });
    } catch (error) {
      for (let index = parts.length - 1; index >= 0; index--) (parts[index] as PreparedAppend).rollback();
      if (refused) this.held = held;
      else for (let index = held.length - 1; index >= 0; index--) (held[index] as PreparedAppend).rollback();
      throw error;
    }
    const appended = parts.flatMap((part) => part.events);
    const events = held.length === 0 ? appended : [...held.flatMap((batch) => batch.events), ...appended];
    // What landed is observed like any append, whatever follows.
    await this.afterAppend(events);
    if (appended.length !== drafts.length || written !== events.length) {
      // A store that ends a stream early and says it is done: the drafts it never took must not
      // be dropped without a word. The fold holds what was sealed, which is what the store
      // took, and the observers have seen it.
      throw new CorruptLogError(
        `${this.store.location} appended ${written} events of session ${this.sessionId} from a stream of ${drafts.length + events.length - appended.length} and reported success: the store stopped reading its batches early, and ${drafts.length - appended.length} drafts were not appended`,
      );
    }
    return appended;
  }

  /** What follows every append that landed: the observers, and a checkpoint when one is due. */
  private async afterAppend(events: readonly LogEvent[]): Promise<void> {
    for (const event of events) forgetCanonicalBody(event);
    if (this.observe !== undefined) for (const event of events) this.observe(event);
    // Checked here, so that an append with no checkpoint due pays nothing for them.
    if (this.checkpointEvery !== 0 && this.fold.nextSeq - this.lastCheckpointSeq >= this.checkpointEvery)
      await this.checkpointAfterAppend();
  }

  /** Applies events that other writers stored since this log was read. */
  catchUp(toSeq?: number): Promise<number> {
    return this.exclusive(() => this.catchUpNow(toSeq));
  }

  private async catchUpNow(toSeq?: number): Promise<number> {
    // What this log holds back goes first: the store's events since are read after it.
    if (this.held.length > 0) await this.appendNow([]);
    const before = this.fold.nextSeq;
    const range = toSeq === undefined ? { fromSeq: before } : { fromSeq: before, toSeq };
    for await (const page of this.store.read(this.sessionId, range)) {
      for (const event of page) {
        this.fold.apply(parseEnvelope(event));
        this.observe?.(event);
      }
    }
    return this.fold.nextSeq - before;
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => {});
    return run;
  }

  /** The event at `seq`, from the store, or from the events held back by `hold`. */
  readEvent(seq: number): Promise<LogEvent> {
    for (const batch of this.held) {
      const first = (batch.events[0] as LogEvent).seq;
      if (seq >= first && seq < first + batch.events.length) return Promise.resolve(batch.events[seq - first] as LogEvent);
    }
    return this.store.readEvent(this.sessionId, seq);
  }
}

/** The valid fork points of `sessionId` nearest `at`, before and after it (a walk of the whole log). */
async function nearestForkPoints(
  store: LogStore,
  sessionId: string,
  at: number,
  registry: EventTypeRegistry,
): Promise<{ before: number | undefined; after: number | undefined }> {
  const fold = new SurfaceFold({ registry });
  let before: number | undefined;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      fold.apply(parseEnvelope(event));
      if (forkPointProblem(fold) !== undefined) continue;
      if (event.seq < at) before = event.seq;
      else if (event.seq > at) return { before, after: event.seq };
    }
  }
  return { before, after: undefined };
}

function checkEvery(value: number | undefined): number {
  if (value === undefined) return DEFAULT_CHECKPOINT_EVERY;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError('checkpointEvery', `checkpointEvery must be a whole number of events from 0, found ${String(value)}`);
  }
  return value;
}

function newFold(options: SessionLogOptions): SurfaceFold {
  return options.registry === undefined ? new SurfaceFold() : new SurfaceFold({ registry: options.registry });
}

/** The time of the clock to the millisecond, formatted once per millisecond (a batch seals many events in one). */
let clockMs = Number.NaN;
let clockIso = '';
function defaultNow(): string {
  const ms = Date.now();
  if (ms !== clockMs) {
    clockMs = ms;
    clockIso = new Date(ms).toISOString();
  }
  return clockIso;
}
