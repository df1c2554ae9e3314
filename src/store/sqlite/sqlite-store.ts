// The embedded SQLite LogStore (SPEC §11): one file in WAL mode with synchronous FULL, the log
// kept append-only by triggers in the database, ownership by checked owner records (§8).

import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import { ConcurrencyError, SeqOutOfRangeError, SessionNotFoundError, ShadowlogError } from '../../log/errors.js';
import type { LogEvent } from '../../log/event.js';
import { canonicalEventJson } from '../../log/event-json.js';
import { isSessionSeq } from '../../log/seq.js';
import { assertSessionId } from '../../log/session-id.js';
import type { AppendOptions, LogHead, LogStore, Ownership, ReadRange, StoredSession } from '../log-store.js';
import { checkAppendBatch, missingEventsError, parseStoredEvent, resolveReadRange } from '../store-checks.js';
import { StoreClosedError, StoreError } from './errors.js';
import { describeOwner, OwnerTable } from './ownership.js';
import { NOT_NEXT_SEQ_MESSAGE, openDatabase } from './schema.js';

/** Opens (creating it and its directory if needed) the SQLite store at `path`. */
export async function openSqliteStore(path: string): Promise<SqliteLogStore> {
  return SqliteLogStore.open(path);
}

type HeadRow = [seq: number, hash: string];
type SessionRow = [id: string, createdAt: string, lastSeq: number, updatedAt: string];

export class SqliteLogStore implements LogStore {
  private readonly appendTransaction: Database.Transaction<
    (sessionId: string, expectedSeq: number, events: readonly LogEvent[], bodies: readonly string[]) => void
  >;
  private readonly headStatement: Database.Statement<[string], HeadRow>;
  private readonly insertStatement: Database.Statement<[string, number, string, string, string]>;
  private readonly pageStatement: Database.Statement<[string, number, number, number], string>;
  private readonly eventStatement: Database.Statement<[string, number], string>;
  private readonly sessionsStatement: Database.Statement<[], SessionRow>;
  private readonly owners: OwnerTable;
  /** Tokens of the claims made through this store, released when it closes. */
  private readonly claims = new Map<string, string>();
  /** Set while appendAll holds a transaction open across awaits; everyone else waits for it. */
  private held: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly db: Database.Database,
    readonly location: string,
  ) {
    this.headStatement = db.prepare<[string], HeadRow>('SELECT seq, hash FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1').raw();
    this.insertStatement = db.prepare('INSERT INTO events (session_id, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)');
    this.pageStatement = db
      .prepare<[string, number, number, number], string>(
        'SELECT body FROM events WHERE session_id = ? AND seq >= ? AND seq < ? ORDER BY seq LIMIT ?',
      )
      .pluck();
    this.eventStatement = db.prepare<[string, number], string>('SELECT body FROM events WHERE session_id = ? AND seq = ?').pluck();
    this.sessionsStatement = db
      .prepare<[], SessionRow>(
        `SELECT s.id, s.created_at, e.seq, json_extract(e.body, '$.time')
         FROM sessions s JOIN events e ON e.session_id = s.id
           AND e.seq = (SELECT seq FROM events WHERE session_id = s.id ORDER BY seq DESC LIMIT 1)
         ORDER BY s.id`,
      )
      .raw();
    this.appendTransaction = db.transaction(
      (sessionId: string, expectedSeq: number, events: readonly LogEvent[], bodies: readonly string[]) => {
        this.expectNextSeq(sessionId, expectedSeq);
        this.insertAll(sessionId, events, bodies);
      },
    );
    this.owners = new OwnerTable(db);
  }

  static open(path: string): SqliteLogStore {
    const file = resolve(path);
    const location = `sqlite:${file}`;
    try {
      return new SqliteLogStore(openDatabase(file, location), location);
    } catch (error) {
      throw ShadowlogError.isInstance(error) ? error : StoreError.from(location, 'opening the database', error);
    }
  }

  async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    const expectedSeq = options.expectedSeq;
    checkAppendBatch(sessionId, events, expectedSeq);
    if (this.held !== undefined) await this.ready();
    else this.assertOpen();
    const first = events[0];
    try {
      if (first === undefined) this.expectNextSeq(sessionId, expectedSeq);
      // The common case, kept as lean as a bare insert: one statement is a transaction of its
      // own, and the events_next_seq trigger refuses it unless it takes the session's next seq.
      else if (events.length === 1) this.insertStatement.run(sessionId, first.seq, first.type, first.hash, canonicalEventJson(first));
      else this.appendTransaction.immediate(sessionId, expectedSeq, events, events.map(canonicalEventJson));
    } catch (error) {
      throw this.appendError(sessionId, expectedSeq, error);
    }
  }

  async appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    const expectedSeq = options.expectedSeq;
    checkAppendBatch(sessionId, [], expectedSeq);
    const release = await this.hold();
    let nextSeq = expectedSeq;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.expectNextSeq(sessionId, expectedSeq);
      for await (const batch of batches) {
        checkAppendBatch(sessionId, batch, nextSeq);
        this.insertAll(sessionId, batch, batch.map(canonicalEventJson));
        nextSeq += batch.length;
      }
      this.db.exec('COMMIT');
      return nextSeq - expectedSeq;
    } catch (error) {
      this.rollback();
      throw this.appendError(sessionId, nextSeq, error);
    } finally {
      release();
    }
  }

  async *read(sessionId: string, range: ReadRange = {}): AsyncIterable<readonly LogEvent[]> {
    assertSessionId(sessionId);
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    // Fixed at the start: events below it are committed and never change, so later pages
    // need no lock even if appendAll has opened a transaction on this connection meanwhile.
    const { fromSeq, endSeq, pageSize } = resolveReadRange(range, head.nextSeq);
    for (let from = fromSeq; from < endSeq; ) {
      this.assertOpen();
      const bodies = this.guard('reading events', () => this.pageStatement.all(sessionId, from, endSeq, pageSize));
      if (bodies.length !== Math.min(pageSize, endSeq - from)) {
        throw missingEventsError(sessionId, from, bodies, 'the file');
      }
      yield bodies.map((body, index) => parseStoredEvent(sessionId, from + index, body, 'the file'));
      from += bodies.length;
    }
  }

  async readEvent(sessionId: string, seq: number): Promise<LogEvent> {
    assertSessionId(sessionId);
    await this.ready();
    const body = isSessionSeq(seq) ? this.guard('reading an event', () => this.eventStatement.get(sessionId, seq)) : undefined;
    if (body !== undefined) return parseStoredEvent(sessionId, seq, body, 'the file');
    const head = this.headNow(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    throw new SeqOutOfRangeError(seq, head.nextSeq);
  }

  async head(sessionId: string): Promise<LogHead | undefined> {
    assertSessionId(sessionId);
    await this.ready();
    return this.headNow(sessionId);
  }

  async listSessions(): Promise<StoredSession[]> {
    await this.ready();
    const rows = this.guard('listing sessions', () => this.sessionsStatement.all());
    return rows.map(([id, createdAt, lastSeq, updatedAt]) => ({ id, events: lastSeq + 1, createdAt, updatedAt }));
  }

  async acquireOwnership(sessionId: string): Promise<Ownership> {
    assertSessionId(sessionId);
    await this.ready();
    const record = this.guard('claiming the session', () => this.owners.claim(sessionId));
    this.claims.set(record.token, sessionId);
    return {
      sessionId,
      owner: describeOwner(record),
      release: async () => {
        // Closing the store released every claim made through it already.
        if (this.closed || !this.claims.delete(record.token)) return;
        await this.ready();
        this.guard('releasing the session', () => this.owners.release(sessionId, record.token));
      },
    };
  }

  /** Releases the claims made through this store and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const release = await this.hold({ evenIfClosed: true });
    try {
      for (const [token, sessionId] of this.claims) this.guard('releasing the session', () => this.owners.release(sessionId, token));
      this.claims.clear();
    } finally {
      this.db.close();
      release();
    }
  }

  private rollback(): void {
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // The error that got us here is the one to report; SQLite rolls back an unfinished
      // transaction when the connection closes anyway.
    }
  }

  private headNow(sessionId: string): LogHead | undefined {
    const row = this.guard('reading the head', () => this.headStatement.get(sessionId));
    return row === undefined ? undefined : { nextSeq: row[0] + 1, lastHash: row[1] };
  }

  private expectNextSeq(sessionId: string, expectedSeq: number): void {
    const actual = (this.headStatement.get(sessionId)?.[0] ?? -1) + 1;
    if (actual !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, actual);
  }

  private insertAll(sessionId: string, events: readonly LogEvent[], bodies: readonly string[]): void {
    for (let index = 0; index < events.length; index++) {
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
    return new ConcurrencyError(sessionId, expectedSeq, this.headNow(sessionId)?.nextSeq ?? 0);
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

  /** Waits until no appendAll holds the connection, then checks that the store is open. */
  private async ready(): Promise<void> {
    while (this.held !== undefined) await this.held;
    this.assertOpen();
  }

  /** Takes the connection for a transaction that spans awaits; call the result to give it back. */
  private async hold(options: { evenIfClosed?: boolean } = {}): Promise<() => void> {
    while (this.held !== undefined) await this.held;
    if (options.evenIfClosed !== true) this.assertOpen();
    let release = () => {};
    this.held = new Promise<void>((resolve) => {
      release = () => {
        this.held = undefined;
        resolve();
      };
    });
    return release;
  }
}
