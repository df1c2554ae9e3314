// The embedded SQLite LogStore (SPEC §11): one file in WAL mode with synchronous FULL, the log
// kept append-only by triggers in the database, ownership by checked owner records (§8). Readers
// never wait for writers; a writer waits for another's lock (lock-wait.ts) instead of failing.

import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConcurrencyError, ConfigError, SeqOutOfRangeError, SessionNotFoundError, ShadowlogError } from '../../log/errors.js';
import type { LogEvent } from '../../log/event.js';
import { canonicalEventJson } from '../../log/event-json.js';
import { isSessionSeq } from '../../log/seq.js';
import { assertSessionId } from '../../log/session-id.js';
import { checkForkParent, expectNewSession, type ForkLink, firstOwnSeq, forkLinkOfBatch, readStitched } from '../branch-link.js';
import type {
  AppendOptions,
  CheckpointEntry,
  CheckpointStore,
  LogHead,
  LogStore,
  Ownership,
  ReadRange,
  StoredCheckpoint,
  StoredSession,
} from '../log-store.js';
import { scanSearch } from '../search/scan-search.js';
import type { SearchableStore, SearchQuery, SearchResult } from '../search/search-query.js';
import {
  checkAppendBatch,
  checkCheckpointWrite,
  checkKeep,
  missingEventsError,
  parseStoredEvent,
  resolveReadRange,
} from '../store-checks.js';
import { CheckpointTable } from './checkpoint-table.js';
import { StoreClosedError, StoreError, StoreReadOnlyError } from './errors.js';
import { LockWaiter, type LockWaitOptions } from './lock-wait.js';
import { openReadOnlyDatabase, openWritableDatabase } from './open-database.js';
import { describeOwner, OwnerTable } from './ownership.js';
import { NOT_NEXT_SEQ_MESSAGE } from './schema.js';
import { SqliteSearchIndex } from './search-index.js';
import { Staging } from './staging.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export interface SqliteStoreOptions extends LockWaitOptions {
  /**
   * For commands that only read: the file must exist and hold a shadowlog store, else
   * StoreNotFoundError; nothing is created or written, and a read-only file, directory or disk
   * can still be read. Every write through the store is a StoreReadOnlyError. (A file in WAL
   * mode whose -shm cannot be created there, on a read-only directory or disk, is read as an
   * in-memory snapshot: memory the size of the file.)
   */
  readonly readOnly?: boolean;
}

const OPTION_KEYS = ['readOnly', 'lockTimeoutMs', 'lockNoticeMs', 'onLockWait'];

/** Events per multi-row INSERT of a batch (measured: 10 was 5–7 % faster than one a statement; 50 and 200 less so). */
const INSERT_ROWS = 10;

/**
 * Opens the SQLite store at `path`: for writing (the default), creating the file and its
 * directory (one level, in a parent that exists) if needed; or, with `readOnly: true`, an
 * existing store for reading only.
 * Another application's SQLite file is refused with NotShadowlogDatabaseError, unchanged.
 */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<SqliteLogStore> {
  return SqliteLogStore.open(path, options);
}

type HeadRow = [seq: number, hash: string];
type SessionRow = [id: string, createdAt: string, lastSeq: number, updatedAt: string, parentId: string | null, forkSeq: number | null];
type LinkRow = [parentId: string, forkSeq: number, parentHash: string];

function sumLengths(texts: readonly string[]): number {
  let sum = 0;
  for (const text of texts) sum += text.length;
  return sum;
}

export class SqliteLogStore implements LogStore, CheckpointStore, SearchableStore {
  private readonly appendTransaction: Database.Transaction<
    (sessionId: string, expectedSeq: number, events: readonly LogEvent[], bodies: readonly string[]) => void
  >;
  private readonly headStatement: Database.Statement<[string], HeadRow>;
  private readonly insertStatement: Database.Statement<[string, number, string, string, string]>;
  /** The search index, written with every append; undefined on a read-only file older than schema version 4. */
  private readonly searchIndex: SqliteSearchIndex | undefined;
  private readonly appendOneTransaction: Database.Transaction<(sessionId: string, event: LogEvent) => void>;
  /** Inserts INSERT_ROWS events in one statement: a long batch crosses into SQLite a tenth as often. */
  private readonly insertRowsStatement: Database.Statement<unknown[]>;
  /** The parameters of insertRowsStatement, one array reused. */
  private readonly rowParameters: unknown[] = new Array(INSERT_ROWS * 5);
  private readonly pageStatement: Database.Statement<[string, number, number, number], string>;
  private readonly eventStatement: Database.Statement<[string, number], string>;
  private readonly sessionsStatement: Database.Statement<[], SessionRow>;
  /** A branch's link; undefined on a read-only file older than schema version 5, which holds no branches. */
  private readonly linkStatement: Database.Statement<[string], LinkRow> | undefined;
  private readonly branchTransaction: Database.Transaction<
    (sessionId: string, expectedSeq: number, link: ForkLink, events: readonly LogEvent[], bodies: readonly string[]) => void
  >;
  private readonly owners: OwnerTable;
  private readonly checkpointTable: CheckpointTable;
  private readonly writeCheckpointTransaction: Database.Transaction<(sessionId: string, checkpoint: StoredCheckpoint) => void>;
  private readonly eventsAtTransaction: Database.Transaction<(sessionId: string, seqs: readonly number[]) => LogEvent[]>;
  /** Tokens of the claims made through this store, released when it closes. */
  private readonly claims = new Map<string, string>();
  private readonly commitStagedTransaction: Database.Transaction<(sessionId: string, expectedSeq: number, stream: number) => void>;
  private staging: Staging | undefined;
  /** Checkpoints the write-ahead log on a thread of its own, so that no append waits for one. */
  private readonly checkpointer: WalCheckpointer | undefined;
  private closed = false;

  private constructor(
    private readonly db: Database.Database,
    readonly location: string,
    /** True when opened with `readOnly`: every write is refused. */
    readonly readOnly: boolean,
    private readonly locks: LockWaiter,
  ) {
    this.headStatement = db.prepare<[string], HeadRow>('SELECT seq, hash FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1').raw();
    this.insertStatement = db.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    this.insertRowsStatement = db.prepare(
      `INSERT INTO events (session_id, seq, type, hash, body) VALUES ${Array.from({ length: INSERT_ROWS }, () => '(?, ?, ?, ?, ?)').join(', ')}`,
    );
    this.pageStatement = db
      .prepare<[string, number, number, number], string>(
        'SELECT body FROM events WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?',
      )
      .pluck();
    this.eventStatement = db.prepare<[string, number], string>('SELECT body FROM events WHERE session_id = ? AND seq = ?').pluck();
    const hasForks = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_forks'").get() !== undefined;
    this.sessionsStatement = db
      .prepare<[], SessionRow>(
        `SELECT s.id, s.created_at, e.seq, json_extract(e.body, '$.time'), ${hasForks ? 'f.parent_id, f.fork_seq' : 'NULL, NULL'}
         FROM sessions s JOIN events e ON e.session_id = s.id
           AND e.seq = (SELECT seq FROM events WHERE session_id = s.id ORDER BY seq DESC LIMIT 1)
         ${hasForks ? 'LEFT JOIN session_forks f ON f.session_id = s.id' : ''}
         ORDER BY s.id`,
      )
      .raw();
    this.linkStatement = hasForks
      ? db.prepare<[string], LinkRow>('SELECT parent_id, fork_seq, parent_hash FROM session_forks WHERE session_id = ?').raw()
      : undefined;
    const insertLink = hasForks
      ? db.prepare('INSERT INTO session_forks (session_id, parent_id, fork_seq, parent_hash) VALUES (?, ?, ?, ?)')
      : undefined;
    // A branch's link and its first events, in one transaction: the link first, so that the
    // next-seq trigger lets the first event take the seq after the fork point.
    this.branchTransaction = db.transaction(
      (sessionId: string, expectedSeq: number, link: ForkLink, events: readonly LogEvent[], bodies: readonly string[]) => {
        const head = this.headNow(sessionId);
        if (head !== undefined) throw new ConcurrencyError(sessionId, expectedSeq, head.nextSeq);
        if (insertLink === undefined) throw new StoreReadOnlyError(this.location, 'creating a branch');
        insertLink.run(sessionId, link.parentSessionId, link.forkSeq, link.parentHash);
        this.insertAll(sessionId, events, bodies);
        searchIndex?.add(sessionId, events);
      },
    );
    const searchIndex = SqliteSearchIndex.existsIn(db) ? new SqliteSearchIndex(db) : undefined;
    this.searchIndex = searchIndex;
    this.appendTransaction = db.transaction(
      (sessionId: string, expectedSeq: number, events: readonly LogEvent[], bodies: readonly string[]) => {
        this.expectNextSeq(sessionId, expectedSeq);
        this.insertAll(sessionId, events, bodies);
        searchIndex?.add(sessionId, events);
      },
    );
    // The events_next_seq trigger refuses the insert unless it takes the session's next seq.
    this.appendOneTransaction = db.transaction((sessionId: string, event: LogEvent) => {
      this.insertStatement.run(sessionId, event.seq, event.type, event.hash, canonicalEventJson(event));
      searchIndex?.add(sessionId, [event]);
    });
    this.commitStagedTransaction = db.transaction((sessionId: string, expectedSeq: number, stream: number) => {
      this.expectNextSeq(sessionId, expectedSeq);
      this.staging?.moveInto(sessionId, stream);
    });
    this.checkpointer = readOnly ? undefined : new WalCheckpointer(db, db.name);
    this.owners = new OwnerTable(db);
    this.checkpointTable = new CheckpointTable(db);
    this.writeCheckpointTransaction = db.transaction((sessionId: string, checkpoint: StoredCheckpoint) => {
      const head = this.headNow(sessionId);
      if (head === undefined) throw new SessionNotFoundError(sessionId);
      checkCheckpointWrite(checkpoint, head.nextSeq);
      this.checkpointTable.write(this.location, sessionId, checkpoint);
    });
    // One read transaction: every event from the same snapshot, without a statement's own per row.
    this.eventsAtTransaction = db.transaction((sessionId: string, seqs: readonly number[]) =>
      seqs.map((seq) => {
        const body = isSessionSeq(seq) ? this.eventStatement.get(sessionId, seq) : undefined;
        if (body === undefined) {
          const head = this.headNow(sessionId);
          if (head === undefined) throw new SessionNotFoundError(sessionId);
          throw new SeqOutOfRangeError(seq, head.nextSeq);
        }
        return parseStoredEvent(sessionId, seq, body, 'the file');
      }),
    );
  }

  static async open(path: string, options: SqliteStoreOptions = {}): Promise<SqliteLogStore> {
    const file = resolve(path);
    const location = `sqlite:${file}`;
    const unknown = Object.keys(options).filter((key) => !OPTION_KEYS.includes(key));
    if (unknown.length > 0) {
      throw new ConfigError(
        unknown[0] as string,
        `unknown option${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} for the SQLite store; the options are ${OPTION_KEYS.join(', ')}`,
      );
    }
    if (options.readOnly !== undefined && typeof options.readOnly !== 'boolean') {
      throw new ConfigError('readOnly', `readOnly must be true or false, found ${String(options.readOnly)}`);
    }
    const readOnly = options.readOnly === true;
    const locks = new LockWaiter(location, options);
    try {
      const db = readOnly ? await openReadOnlyDatabase(file, location, locks) : await openWritableDatabase(file, location, locks);
      try {
        return new SqliteLogStore(db, location, readOnly, locks);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      throw ShadowlogError.isInstance(error) ? error : StoreError.from(location, 'opening the database', error);
    }
  }

  async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    const expectedSeq = options.expectedSeq;
    this.assertWritable('appending events');
    checkAppendBatch(sessionId, events, expectedSeq);
    const first = events[0];
    const link = expectedSeq === 0 ? undefined : forkLinkOfBatch(events, expectedSeq);
    if (link !== undefined) return this.appendBranch(sessionId, expectedSeq, link, events);
    try {
      await this.write(() => {
        if (first === undefined) this.expectNextSeq(sessionId, expectedSeq);
        // The common case, kept lean: the event and its search index in one transaction, no head read.
        else if (events.length === 1) this.appendOneTransaction.immediate(sessionId, first);
        else {
          const bodies = events.map(canonicalEventJson);
          this.commit(sumLengths(bodies), () => this.appendTransaction.immediate(sessionId, expectedSeq, events, bodies));
        }
      });
    } catch (error) {
      throw this.appendError(sessionId, expectedSeq, error);
    }
  }

  /** Creates a branch with its first events, once its parent is found to hold the event it forks after. */
  private async appendBranch(sessionId: string, expectedSeq: number, link: ForkLink, events: readonly LogEvent[]): Promise<void> {
    const head = await this.head(sessionId);
    if (head !== undefined) throw new ConcurrencyError(sessionId, expectedSeq, head.nextSeq);
    expectNewSession(sessionId, events, expectedSeq);
    await checkForkParent(sessionId, link, (parent, seq) => this.readEventIfAny(parent, seq));
    const bodies = events.map(canonicalEventJson);
    try {
      await this.write(() =>
        this.commit(sumLengths(bodies), () => this.branchTransaction.immediate(sessionId, expectedSeq, link, events, bodies)),
      );
    } catch (error) {
      if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' && !this.closed) {
        throw new ConcurrencyError(sessionId, expectedSeq, this.guard('reading the head', () => this.headNow(sessionId))?.nextSeq ?? 0);
      }
      throw this.appendError(sessionId, expectedSeq, error);
    }
  }

  /** The event at `seq`, or undefined past the head; SessionNotFoundError for an unknown session. */
  private async readEventIfAny(sessionId: string, seq: number): Promise<LogEvent | undefined> {
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    return seq < head.nextSeq ? this.readEvent(sessionId, seq) : undefined;
  }

  /** A branch's link to its parent (SPEC §14), or undefined for a session that is not a branch. */
  async readForkLink(sessionId: string): Promise<ForkLink | undefined> {
    assertSessionId(sessionId);
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    return this.attempt('reading a branch link', () => this.linkNow(sessionId));
  }

  private linkNow(sessionId: string): ForkLink | undefined {
    const row = this.linkStatement?.get(sessionId);
    return row === undefined ? undefined : { parentSessionId: row[0], forkSeq: row[1], parentHash: row[2] };
  }

  /**
   * Reads and checks the whole stream first, into a staging table that locks nothing (see
   * staging.ts), then writes it in one short transaction: a slow stream never holds the write
   * lock, and other calls on this store and other connections go on meanwhile.
   */
  async appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    const expectedSeq = options.expectedSeq;
    this.assertWritable('appending events');
    checkAppendBatch(sessionId, [], expectedSeq);
    if (expectedSeq !== 0 && (await this.head(sessionId)) === undefined) {
      // A new branch: its first batch opens with its session/fork, and is written with its link.
      const events: LogEvent[] = [];
      for await (const batch of batches) {
        checkAppendBatch(sessionId, batch, expectedSeq + events.length);
        events.push(...batch);
      }
      await this.append(sessionId, events, { expectedSeq });
      return events.length;
    }
    // Refused before the stream is read when it is stale already; checked again when it is written.
    await this.attempt('reading the head', () => this.expectNextSeq(sessionId, expectedSeq));
    const staging = this.guard('preparing the staging table', () => {
      this.staging ??= new Staging(this.db);
      return this.staging;
    });
    const stream = this.guard('preparing the staging table', () => staging.open());
    let nextSeq = expectedSeq;
    let bytes = 0;
    try {
      for await (const batch of batches) {
        checkAppendBatch(sessionId, batch, nextSeq);
        this.assertOpen();
        const bodies = batch.map(canonicalEventJson);
        this.guard('staging events', () => staging.add(stream, batch, bodies));
        bytes += sumLengths(bodies);
        nextSeq += batch.length;
      }
      if (nextSeq === expectedSeq) await this.attempt('reading the head', () => this.expectNextSeq(sessionId, expectedSeq));
      else await this.write(() => this.commit(bytes, () => this.commitStagedTransaction.immediate(sessionId, expectedSeq, stream)));
      return nextSeq - expectedSeq;
    } catch (error) {
      // Its staged rows are cleared by the next appendAll (or go with the connection): a cleanup
      // here could fail too and hide this error.
      if (!this.closed) staging.abandon(stream);
      throw this.appendError(sessionId, expectedSeq, error);
    }
  }

  async *read(sessionId: string, range: ReadRange = {}): AsyncIterable<readonly LogEvent[]> {
    assertSessionId(sessionId);
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    // Fixed at the start: events below it are committed and never change, so each page is a
    // read of its own and a writer that commits meanwhile changes nothing that is read.
    const { fromSeq, endSeq, pageSize } = resolveReadRange(range, head.nextSeq);
    const link = await this.attempt('reading a branch link', () => this.linkNow(sessionId));
    const readOwn = async function* (this: SqliteLogStore, start: number, end: number): AsyncIterable<readonly LogEvent[]> {
      for (let from = start; from < end; ) {
        const bodies = await this.attempt('reading events', () => this.pageStatement.all(sessionId, from, end, pageSize));
        if (bodies.length !== Math.min(pageSize, end - from)) {
          throw missingEventsError(sessionId, from, bodies, 'the file');
        }
        yield bodies.map((body, index) => parseStoredEvent(sessionId, from + index, body, 'the file'));
        from += bodies.length;
      }
    }.bind(this);
    if (link === undefined) yield* readOwn(fromSeq, endSeq);
    else
      yield* readStitched(
        fromSeq,
        endSeq,
        firstOwnSeq(link),
        (from, to) => this.read(link.parentSessionId, { fromSeq: from, toSeq: to, pageSize }),
        readOwn,
      );
  }

  async readEvent(sessionId: string, seq: number): Promise<LogEvent> {
    assertSessionId(sessionId);
    const body = await this.attempt('reading an event', () => (isSessionSeq(seq) ? this.eventStatement.get(sessionId, seq) : undefined));
    if (body !== undefined) return parseStoredEvent(sessionId, seq, body, 'the file');
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    const link = isSessionSeq(seq) ? await this.attempt('reading a branch link', () => this.linkNow(sessionId)) : undefined;
    if (link !== undefined && seq <= link.forkSeq) return this.readEvent(link.parentSessionId, seq);
    throw new SeqOutOfRangeError(seq, head.nextSeq);
  }

  async head(sessionId: string): Promise<LogHead | undefined> {
    assertSessionId(sessionId);
    return this.attempt('reading the head', () => this.headNow(sessionId));
  }

  async listSessions(): Promise<StoredSession[]> {
    const rows = await this.attempt('listing sessions', () => this.sessionsStatement.all());
    return rows.map(([id, createdAt, lastSeq, updatedAt, parentId, forkSeq]) => ({
      id,
      events: lastSeq + 1,
      createdAt,
      updatedAt,
      ...(parentId === null || forkSeq === null ? {} : { parent: { sessionId: parentId, forkSeq } }),
    }));
  }

  async acquireOwnership(sessionId: string): Promise<Ownership> {
    assertSessionId(sessionId);
    this.assertWritable('claiming the session');
    const record = await this.attempt('claiming the session', () => this.owners.claim(sessionId));
    this.claims.set(record.token, sessionId);
    return {
      sessionId,
      owner: describeOwner(record),
      release: async () => {
        // Closing the store released every claim made through it already.
        if (this.closed || !this.claims.delete(record.token)) return;
        await this.attempt('releasing the session', () => this.owners.release(sessionId, record.token));
      },
    };
  }

  async writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void> {
    assertSessionId(sessionId);
    this.assertWritable('writing a fold checkpoint');
    await this.attempt('writing a fold checkpoint', () => this.writeCheckpointTransaction.immediate(sessionId, checkpoint));
  }

  async listCheckpoints(sessionId: string): Promise<CheckpointEntry[]> {
    assertSessionId(sessionId);
    return this.attempt('listing fold checkpoints', () => this.checkpointTable.list(sessionId));
  }

  async readCheckpoint(sessionId: string, seq: number): Promise<StoredCheckpoint | undefined> {
    assertSessionId(sessionId);
    return this.attempt('reading a fold checkpoint', () => this.checkpointTable.read(sessionId, seq));
  }

  async pruneCheckpoints(sessionId: string, keep: number): Promise<number> {
    assertSessionId(sessionId);
    checkKeep(keep);
    this.assertWritable('pruning fold checkpoints');
    return this.attempt('pruning fold checkpoints', () => this.checkpointTable.prune(sessionId, keep));
  }

  async readEventsAt(sessionId: string, seqs: readonly number[]): Promise<LogEvent[]> {
    assertSessionId(sessionId);
    const link = await this.attempt('reading a branch link', () => this.linkNow(sessionId));
    if (link !== undefined && seqs.some((seq) => seq <= link.forkSeq)) {
      // A branch's prefix is its parent's: those events are read from it (they never change).
      const events: LogEvent[] = [];
      for (const seq of seqs) events.push(await this.readEvent(sessionId, seq));
      return events;
    }
    return this.attempt('reading events', () => this.eventsAtTransaction.deferred(sessionId, seqs));
  }

  /**
   * Searches the events (SearchableStore): by the trigram index for a plain text of 3 characters
   * or more, else by reading every indexed part; a read-only file older than schema version 4 has
   * no index, and is searched by reading every event.
   */
  async search(query: SearchQuery): Promise<SearchResult> {
    const index = this.searchIndex;
    if (index === undefined) return scanSearch(this, query);
    return this.attempt('searching', () => index.search(query));
  }

  /**
   * Resolves once the checkpoint of the write-ahead log that this store's writes started in the
   * background, if one is starting or running, has finished (for benchmarks and tests: the store
   * needs no waiting for it; close waits for it too).
   */
  idle(): Promise<void> {
    return this.checkpointer?.idle() ?? Promise.resolve();
  }

  /**
   * Why the store stopped checkpointing its write-ahead log in the background, if it did (its
   * thread could not start, or a checkpoint failed); SQLite's own checkpoints, inside the commits
   * of appends, took over then, and the failure was told once as a process warning
   * (SHADOWLOG_WAL_CHECKPOINT_THREAD_FAILED). No append fails for it.
   */
  get backgroundCheckpointError(): StoreError | undefined {
    return this.checkpointer?.error;
  }

  /** How many checkpoints of the write-ahead log the store's thread has finished. */
  get backgroundCheckpoints(): number {
    return this.checkpointer?.completed ?? 0;
  }

  /**
   * Releases the claims made through this store and closes the connection. A call still running
   * on the store (an appendAll reading its stream, a write waiting for the lock) then fails with
   * StoreClosedError, having written nothing.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.checkpointer?.stop();
      for (const [token, sessionId] of this.claims) {
        await this.attempt('releasing the session', () => this.owners.release(sessionId, token), { evenIfClosed: true });
      }
      this.claims.clear();
    } finally {
      this.db.close();
    }
  }

  /** Runs a write transaction of `bytes` of bodies: a large one commits without SQLite's checkpoint (wal-checkpointer.ts). */
  private commit(bytes: number, transaction: () => void): void {
    if (this.checkpointer === undefined) transaction();
    else this.checkpointer.commit(bytes, transaction);
  }

  private headNow(sessionId: string): LogHead | undefined {
    const row = this.headStatement.get(sessionId);
    return row === undefined ? undefined : { nextSeq: row[0] + 1, lastHash: row[1] };
  }

  private expectNextSeq(sessionId: string, expectedSeq: number): void {
    const actual = (this.headStatement.get(sessionId)?.[0] ?? -1) + 1;
    if (actual !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, actual);
  }

  private insertAll(sessionId: string, events: readonly LogEvent[], bodies: readonly string[]): void {
    const parameters = this.rowParameters;
    let index = 0;
    try {
      for (; index + INSERT_ROWS <= events.length; index += INSERT_ROWS) {
        for (let row = 0; row < INSERT_ROWS; row++) {
          const event = events[index + row] as LogEvent;
          const at = row * 5;
          parameters[at] = sessionId;
          parameters[at + 1] = event.seq;
          parameters[at + 2] = event.type;
          parameters[at + 3] = event.hash;
          parameters[at + 4] = bodies[index + row];
        }
        this.insertRowsStatement.run(parameters);
      }
    } finally {
      // The bodies are not kept past the append.
      parameters.fill(undefined);
    }
    for (; index < events.length; index++) {
      const event = events[index] as LogEvent;
      this.insertStatement.run(sessionId, event.seq, event.type, event.hash, bodies[index] as string);
    }
  }

  /** A racing writer that slipped in shows up as a refused insert: that is a ConcurrencyError too. */
  private appendError(sessionId: string, expectedSeq: number, error: unknown): unknown {
    if (!(error instanceof Database.SqliteError)) return error;
    const conflict =
      error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
      (error.code === 'SQLITE_CONSTRAINT_TRIGGER' && error.message === NOT_NEXT_SEQ_MESSAGE);
    if (!conflict || this.closed) return StoreError.from(this.location, 'appending events', error);
    return new ConcurrencyError(sessionId, expectedSeq, this.guard('reading the head', () => this.headNow(sessionId))?.nextSeq ?? 0);
  }

  /** Runs a write on the open store, waiting for another connection's lock; appendError reads its errors. */
  private write<T>(work: () => T): Promise<T> {
    return this.locks.run('appending events', work, () => this.assertOpen());
  }

  /** Runs `work` on the open store, waiting for another connection's lock; SQLite's errors become StoreErrors. */
  private async attempt<T>(action: string, work: () => T, options: { evenIfClosed?: boolean } = {}): Promise<T> {
    const beforeAttempt = options.evenIfClosed === true ? undefined : () => this.assertOpen();
    try {
      return await this.locks.run(action, work, beforeAttempt);
    } catch (error) {
      throw error instanceof Database.SqliteError ? StoreError.from(this.location, action, error) : error;
    }
  }

  private guard<T>(action: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw error instanceof Database.SqliteError ? StoreError.from(this.location, action, error) : error;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreClosedError(this.location);
  }

  private assertWritable(action: string): void {
    this.assertOpen();
    if (this.readOnly) throw new StoreReadOnlyError(this.location, action);
  }
}
