// The PostgreSQL LogStore (SPEC §11): for teams and many machines on one store. The log is kept
// append-only and dense by triggers in the database; ownership (§8) is a session-level advisory
// lock on a connection of its own; readers take no locks and never wait for writers.
//
// Appends to a session this store owns run on the ownership's own connection, so that they
// can land only while the lock is held (owner-connection.ts); others on pooled connections.
//
// A lost connection: append() is one statement, so it either committed or not; if the
// connection drops while it runs, the PostgresConnectionError says the outcome is `unknown`
// and the session's head tells which (nextSeq is expectedSeq, or expectedSeq + the number of
// events). appendAll() cut off before its COMMIT was sent stored nothing (`not-written`). An
// owner's lost connection is an OwnershipLostError instead, which says the same.
// Reads that lose their connection are run again on another one.
//
// Opened with `readOnly`, the store changes nothing in the database (open-schema.ts), refuses
// appends and ownership, and follows with the one write that needs (watch.ts).
//
// Connect to the server directly or through a pooler in session mode: the store uses named
// prepared statements, and ownership a session-level lock.

import { type ClientBase, DatabaseError, Pool, type PoolClient, type QueryConfig, type QueryResultRow } from 'pg';
import { ConcurrencyError, SeqOutOfRangeError, SessionNotFoundError, ShadowlogError } from '../../log/errors.js';
import type { LogEvent } from '../../log/event.js';
import { isSessionSeq } from '../../log/seq.js';
import { assertSessionId } from '../../log/session-id.js';
import {
  checkForkParent,
  expectNewSession,
  type ForkLink,
  ForkParentError,
  firstOwnSeq,
  forkLinkOfBatch,
  readStitched,
} from '../branch-link.js';
import { CheckpointExistsError } from '../checkpoint-errors.js';
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
import { CHECKPOINTS_SCHEMA_VERSION } from './checkpoint-schema.js';
import {
  type AppendInFlight,
  type ConnectionTarget,
  connectionError,
  isConnectionFailure,
  type PostgresStoreOptions,
  resolveTarget,
  storeFailure,
} from './connection.js';
import { PostgresStoreClosedError, PostgresStoreError, StoreReadOnlyError } from './errors.js';
import { FORK_LINK_STATE, FORKS_SCHEMA_VERSION } from './fork-schema.js';
import { NOTIFY_SCHEMA_VERSION } from './notify-schema.js';
import { prepareSchema } from './open-schema.js';
import type { AppendAttempt, OwnerConnection } from './owner-connection.js';
import { OwnershipLocks } from './ownership.js';
import { searchPostgres } from './postgres-search.js';
import { NOT_NEXT_SEQ_STATE } from './schema.js';
import { SEARCH_SCHEMA_VERSION } from './search-schema.js';
import { insertQuery, type Statements, statements } from './statements.js';
import { watchSession } from './watch.js';

/**
 * Opens the store at `url` (e.g. `postgres://user:password@host:5432/database`), creating or
 * migrating its tables in the schema of `options.schema` or the URL's `?schema=` (default
 * `shadowlog`). Throws PostgresConnectionError when the server cannot be reached, and
 * PostgresEncodingError for a database that is not UTF8. With `readOnly: true` it creates and
 * migrates nothing, and throws StoreNotFoundError when the schema holds no store.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresLogStore> {
  return PostgresLogStore.open(url, options);
}

export class PostgresLogStore implements LogStore, CheckpointStore, SearchableStore {
  readonly location: string;
  /** appendAll keeps one insert in flight while the source makes the next batch. */
  readonly overlapsAppendAll = true;
  private readonly sql: Statements;
  private readonly owners: OwnershipLocks;
  /** How to end each watch still open; called when the store closes. */
  private readonly watches = new Set<() => Promise<void>>();
  private readonly closing = new AbortController();
  private closed = false;
  /** The schema version found (or made) at open; a reader may find an older one. */
  private schemaVersion = 0;

  private constructor(
    private readonly pool: Pool,
    private readonly target: ConnectionTarget,
  ) {
    this.location = target.location;
    this.sql = statements(target.schema);
    this.owners = new OwnershipLocks(target, pool, this.sql);
  }

  /** True when opened with `readOnly`: appends and ownership are refused. */
  get readOnly(): boolean {
    return this.target.readOnly;
  }

  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresLogStore> {
    const target = resolveTarget(url, options);
    const pool = new Pool({ ...target.clientConfig, max: target.maxConnections });
    // An idle connection that breaks (a server restart) reports here; the pool drops it and
    // the next call opens a fresh one.
    pool.on('error', () => {});
    const store = new PostgresLogStore(pool, target);
    try {
      store.schemaVersion = await store.withClient('opening the store', (client) => prepareSchema(client, target));
      return store;
    } catch (error) {
      await pool.end().catch(() => {});
      throw storeFailure(target, 'opening the store', error);
    }
  }

  async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    const expectedSeq = options.expectedSeq;
    checkAppendBatch(sessionId, events, expectedSeq);
    this.assertWritable('appending events');
    const link = expectedSeq === 0 ? undefined : forkLinkOfBatch(events, expectedSeq);
    if (link !== undefined) return this.appendBranch(sessionId, expectedSeq, link, events);
    const owner = this.owners.connectionFor(sessionId);
    const last = events.at(-1);
    if (last === undefined && owner === undefined) {
      const actual = (await this.head(sessionId))?.nextSeq ?? 0;
      if (actual !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, actual);
      return;
    }
    try {
      // An owner's empty append checks its lock connection too: after the loss it is refused.
      await this.onWriter(owner, async (client) => {
        if (last === undefined) {
          const actual = await this.headOn(client, sessionId);
          if (actual !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, actual);
          return;
        }
        // One statement is one transaction: the trigger refuses it unless it takes the next seq.
        await client.query(insertQuery(this.sql, sessionId, events));
      });
    } catch (error) {
      const attempt = { firstSeq: expectedSeq, count: events.length, last, committing: last !== undefined };
      throw await this.appendError(sessionId, expectedSeq, error, attempt, owner);
    }
  }

  /** Creates a branch: its link and first events in one transaction, once its parent is found to hold the event it forks after. */
  private async appendBranch(sessionId: string, expectedSeq: number, link: ForkLink, events: readonly LogEvent[]): Promise<void> {
    const head = await this.head(sessionId);
    if (head !== undefined) throw new ConcurrencyError(sessionId, expectedSeq, head.nextSeq);
    expectNewSession(sessionId, events, expectedSeq);
    await checkForkParent(sessionId, link, async (parent, seq) => {
      const parentHead = await this.head(parent);
      if (parentHead === undefined) throw new SessionNotFoundError(parent);
      return seq < parentHead.nextSeq ? this.readEvent(parent, seq) : undefined;
    });
    const owner = this.owners.connectionFor(sessionId);
    try {
      await this.onWriter(owner, async (client, discard) => {
        await client.query('BEGIN');
        try {
          await client.query({ ...this.sql.insertForkLink, values: [sessionId, link.parentSessionId, link.forkSeq, link.parentHash] });
          await client.query(insertQuery(this.sql, sessionId, events));
          await client.query('COMMIT');
        } catch (error) {
          if (!isConnectionFailure(error)) await client.query('ROLLBACK').catch(discard);
          throw error;
        }
      });
    } catch (error) {
      const refused =
        error instanceof DatabaseError &&
        (error.code === FORK_LINK_STATE || (error.code === '23505' && error.constraint === 'session_forks_pkey'));
      if (!refused) {
        const attempt = { firstSeq: expectedSeq, count: events.length, last: events.at(-1), committing: true };
        throw await this.appendError(sessionId, expectedSeq, error, attempt, owner);
      }
      // Another writer created the branch first, or the parent no longer holds what it forks after.
      const now = await this.head(sessionId);
      if (now !== undefined) throw new ConcurrencyError(sessionId, expectedSeq, now.nextSeq);
      throw new ForkParentError(sessionId, link, 'the database refused the link (the parent does not hold that event with that hash)');
    }
  }

  /** A branch's link to its parent (SPEC §14), or undefined for a session that is not a branch. */
  async readForkLink(sessionId: string): Promise<ForkLink | undefined> {
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    return this.forkLinkOf(sessionId);
  }

  private async forkLinkOf(sessionId: string): Promise<ForkLink | undefined> {
    if (this.schemaVersion < FORKS_SCHEMA_VERSION) return undefined;
    const rows = await this.query<{ parent_id: string; fork_seq: string; parent_hash: string }>('reading a branch link', {
      ...this.sql.forkLink,
      values: [sessionId],
    });
    const row = rows[0];
    return row === undefined ? undefined : { parentSessionId: row.parent_id, forkSeq: Number(row.fork_seq), parentHash: row.parent_hash };
  }

  async appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    const expectedSeq = options.expectedSeq;
    checkAppendBatch(sessionId, [], expectedSeq);
    this.assertWritable('appending events');
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
    const owner = this.owners.connectionFor(sessionId);
    let nextSeq = expectedSeq;
    /** The first seq of the batch whose insert is being awaited: the seq a conflict is reported at. */
    let awaitedSeq: number | undefined;
    let last: LogEvent | undefined;
    let committing = false;
    try {
      // One connection for the whole transaction, across the awaits of the source.
      return await this.onWriter(owner, async (client, discard) => {
        await client.query('BEGIN');
        try {
          const actual = await this.headOn(client, sessionId);
          if (actual !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, actual);
          // One insert in flight: the server writes a batch while the source makes the next.
          // Inserts are awaited in order, so of the inserts the first that fails is the one
          // reported (those sent after it fail only because the transaction is aborted); a
          // source that throws while an insert is in flight is reported instead of that insert.
          let inFlight: { readonly sent: Promise<unknown>; readonly firstSeq: number } | undefined;
          const settle = async () => {
            if (inFlight === undefined) return;
            awaitedSeq = inFlight.firstSeq;
            await inFlight.sent;
            awaitedSeq = undefined;
          };
          for await (const batch of batches) {
            checkAppendBatch(sessionId, batch, nextSeq);
            if (batch.length > 0) {
              const sent = client.query(insertQuery(this.sql, sessionId, batch));
              sent.catch(() => {});
              await settle();
              inFlight = { sent, firstSeq: nextSeq };
            }
            nextSeq += batch.length;
            last = batch.at(-1) ?? last;
          }
          await settle();
          committing = true;
          await client.query('COMMIT');
          return nextSeq - expectedSeq;
        } catch (error) {
          // After a failed COMMIT the transaction is over; otherwise roll it back. A broken
          // connection cannot roll back, and needs not: the server discards the transaction.
          if (!committing && !isConnectionFailure(error)) await client.query('ROLLBACK').catch(discard);
          throw error;
        }
      });
    } catch (error) {
      const attempt = { firstSeq: expectedSeq, count: nextSeq - expectedSeq, last, committing };
      throw await this.appendError(sessionId, awaitedSeq ?? nextSeq, error, attempt, owner);
    }
  }

  async *read(sessionId: string, range: ReadRange = {}): AsyncIterable<readonly LogEvent[]> {
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    // Events below the head are committed and never change: later pages need no snapshot.
    const { fromSeq, endSeq, pageSize } = resolveReadRange(range, head.nextSeq);
    const link = await this.forkLinkOf(sessionId);
    const readOwn = async function* (this: PostgresLogStore, start: number, end: number): AsyncIterable<readonly LogEvent[]> {
      for (let from = start; from < end; ) {
        const rows = await this.query<{ body: string }>('reading events', { ...this.sql.page, values: [sessionId, from, end, pageSize] });
        if (rows.length !== Math.min(pageSize, end - from)) {
          throw missingEventsError(
            sessionId,
            from,
            rows.map((row) => row.body),
            'the table',
          );
        }
        yield rows.map((row, index) => parseStoredEvent(sessionId, from + index, row.body, 'the table'));
        from += rows.length;
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
    this.assertOpen();
    if (isSessionSeq(seq)) {
      const rows = await this.query<{ body: string }>('reading an event', { ...this.sql.event, values: [sessionId, seq] });
      const row = rows[0];
      if (row !== undefined) return parseStoredEvent(sessionId, seq, row.body, 'the table');
    }
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    const link = isSessionSeq(seq) ? await this.forkLinkOf(sessionId) : undefined;
    if (link !== undefined && seq <= link.forkSeq) return this.readEvent(link.parentSessionId, seq);
    throw new SeqOutOfRangeError(seq, head.nextSeq);
  }

  async head(sessionId: string): Promise<LogHead | undefined> {
    assertSessionId(sessionId);
    this.assertOpen();
    const rows = await this.query<{ seq: string; hash: string }>('reading the head', { ...this.sql.head, values: [sessionId] });
    const row = rows[0];
    return row === undefined ? undefined : { nextSeq: Number(row.seq) + 1, lastHash: row.hash };
  }

  async listSessions(): Promise<StoredSession[]> {
    this.assertOpen();
    const rows = await this.query<{
      id: string;
      created_at: string;
      last_seq: string;
      updated_at: string;
      parent_id?: string | null;
      fork_seq?: string | null;
    }>('listing sessions', this.schemaVersion < FORKS_SCHEMA_VERSION ? this.sql.sessions : this.sql.sessionsWithForks);
    return rows.map((row) => ({
      id: row.id,
      events: Number(row.last_seq) + 1,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...(row.parent_id == null || row.fork_seq == null ? {} : { parent: { sessionId: row.parent_id, forkSeq: Number(row.fork_seq) } }),
    }));
  }

  /** Claims the session on a connection of its own, outside the pool, held until release() or close(). */
  async acquireOwnership(sessionId: string): Promise<Ownership> {
    assertSessionId(sessionId);
    this.assertWritable('claiming a session');
    return this.owners.claim(sessionId);
  }

  /**
   * Wakes on every append to the session, by LISTEN/NOTIFY on a connection of its own (see
   * watch.ts and notify-schema.ts): once when the watch is in place, then after each append.
   * Throws PostgresConnectionError when that connection is lost; ends when `signal` aborts or
   * the store closes.
   */
  watch(sessionId: string, signal: AbortSignal): AsyncIterable<void> {
    assertSessionId(sessionId);
    this.assertOpen();
    if (this.schemaVersion < NOTIFY_SCHEMA_VERSION) return this.cannotWatch();
    return watchSession(this.target, sessionId, AbortSignal.any([signal, this.closing.signal]), { open: this.watches });
  }

  /** Searches the events (SearchableStore, postgres-search.ts); a read-only store of a schema older than version 7 is searched by reading every event. */
  async search(query: SearchQuery): Promise<SearchResult> {
    this.assertOpen();
    if (this.schemaVersion < SEARCH_SCHEMA_VERSION) return scanSearch(this, query);
    return searchPostgres((action, config) => this.query(action, config), this.target.schema, query);
  }

  /** Ends the watches and releases the ownerships taken through this store, then waits for running calls and closes the pool. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await Promise.all([...this.watches].map((end) => end()));
    await this.owners.releaseAll();
    await this.pool.end();
  }

  async writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void> {
    assertSessionId(sessionId);
    this.assertWritable('writing a fold checkpoint');
    const head = await this.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    // The log only grows: a seq within the head now stays within it.
    checkCheckpointWrite(checkpoint, head.nextSeq);
    const { seq, digest, payload } = checkpoint;
    // Run again after a lost connection, it finds its own row and is done.
    const [row] = await this.query<{ inserted: boolean; stored: string | null; same: boolean | null }>('writing a fold checkpoint', {
      ...this.sql.writeCheckpoint,
      values: [sessionId, seq, digest, payload],
    });
    if (row?.inserted === true || row?.same === true) return;
    throw new CheckpointExistsError(this.location, sessionId, seq, row?.stored ?? '');
  }

  async listCheckpoints(sessionId: string): Promise<CheckpointEntry[]> {
    assertSessionId(sessionId);
    this.assertOpen();
    if (this.schemaVersion < CHECKPOINTS_SCHEMA_VERSION) return [];
    const rows = await this.query<{ seq: string; digest: string; length: number }>('listing fold checkpoints', {
      ...this.sql.listCheckpoints,
      values: [sessionId],
    });
    return rows.map((row) => ({ seq: Number(row.seq), digest: row.digest, length: Number(row.length) }));
  }

  async readCheckpoint(sessionId: string, seq: number): Promise<StoredCheckpoint | undefined> {
    assertSessionId(sessionId);
    this.assertOpen();
    if (this.schemaVersion < CHECKPOINTS_SCHEMA_VERSION || !isSessionSeq(seq)) return undefined;
    const rows = await this.query<{ digest: string; payload: string }>('reading a fold checkpoint', {
      ...this.sql.readCheckpoint,
      values: [sessionId, seq],
    });
    const row = rows[0];
    return row === undefined ? undefined : { seq, digest: row.digest, payload: row.payload };
  }

  async pruneCheckpoints(sessionId: string, keep: number): Promise<number> {
    assertSessionId(sessionId);
    checkKeep(keep);
    this.assertWritable('pruning fold checkpoints');
    // A delete run twice after a lost connection deletes nothing more.
    try {
      return await this.withClient('pruning fold checkpoints', async (client) => {
        const result = await client.query({ ...this.sql.pruneCheckpoints, values: [sessionId, keep] });
        return result.rowCount ?? 0;
      });
    } catch (error) {
      throw storeFailure(this.target, 'pruning fold checkpoints', error);
    }
  }

  async readEventsAt(sessionId: string, seqs: readonly number[]): Promise<LogEvent[]> {
    assertSessionId(sessionId);
    this.assertOpen();
    const link = await this.forkLinkOf(sessionId);
    if (link !== undefined && seqs.some((seq) => seq <= link.forkSeq)) {
      // A branch's prefix is its parent's: those events are read from it (they never change).
      const events: LogEvent[] = [];
      for (const seq of seqs) events.push(await this.readEvent(sessionId, seq));
      return events;
    }
    const wanted = seqs.filter((seq) => isSessionSeq(seq));
    const rows = await this.query<{ seq: string; body: string }>('reading events', { ...this.sql.eventsAt, values: [sessionId, wanted] });
    const bodies = new Map(rows.map((row) => [Number(row.seq), row.body]));
    const out: LogEvent[] = [];
    for (const seq of seqs) {
      const body = bodies.get(seq);
      if (body === undefined) {
        const head = await this.head(sessionId);
        if (head === undefined) throw new SessionNotFoundError(sessionId);
        throw new SeqOutOfRangeError(seq, head.nextSeq);
      }
      out.push(parseStoredEvent(sessionId, seq, body, 'the table'));
    }
    return out;
  }

  /** A reader of a schema older than notifications: its watch fails at once, and followSession polls. */
  private cannotWatch(): AsyncIterable<void> {
    const error = new PostgresStoreError(
      this.location,
      `schema version ${this.schemaVersion} predates notifications of appends (version ${NOTIFY_SCHEMA_VERSION}), and a read-only store does not migrate it; open it once without readOnly to migrate it`,
    );
    return { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }) };
  }

  /**
   * Runs `work` on the connection that writes: the lock connection of `owner`, whose session
   * this store owns (refused with OwnershipLostError once that connection is gone), else a
   * pooled one.
   */
  private onWriter<T>(owner: OwnerConnection | undefined, work: (client: ClientBase, discard: () => void) => Promise<T>): Promise<T> {
    if (owner === undefined) return this.withClient('appending events', work);
    return owner.run((client) => work(client, () => owner.lose(new Error('the lock connection could not roll back'))));
  }

  /** The session's next seq as `client` sees it (inside its transaction, if it has one). */
  private async headOn(client: ClientBase, sessionId: string): Promise<number> {
    const result = await client.query<{ seq: string }>({ ...this.sql.head, values: [sessionId] });
    const row = result.rows[0];
    return row === undefined ? 0 : Number(row.seq) + 1;
  }

  /**
   * A racing writer that got there first shows up as the trigger's refusal or as a duplicate
   * primary key: that is a ConcurrencyError, naming the seq the session has now.
   */
  private async appendError(
    sessionId: string,
    expectedSeq: number,
    error: unknown,
    attempt: AppendAttempt,
    owner: OwnerConnection | undefined,
  ): Promise<unknown> {
    if (ShadowlogError.isInstance(error)) return error;
    if (owner !== undefined && (owner.lost || isConnectionFailure(error))) return owner.appendCutOff(error, attempt);
    const inFlight: AppendInFlight = { sessionId, expectedSeq: attempt.firstSeq, events: attempt.count, committing: attempt.committing };
    const conflict =
      error instanceof DatabaseError &&
      (error.code === NOT_NEXT_SEQ_STATE || (error.code === '23505' && error.constraint === 'events_pkey'));
    if (!conflict) return storeFailure(this.target, 'appending events', error, inFlight);
    // The trigger says what it expected; after a duplicate key, at least one more event exists.
    const said = /expected seq (\d+)/.exec(error.detail ?? '')?.[1];
    const fallback = said === undefined ? expectedSeq + 1 : Number(said);
    const actual = await this.head(sessionId).then(
      (head) => head?.nextSeq ?? 0,
      () => fallback,
    );
    return new ConcurrencyError(sessionId, expectedSeq, actual);
  }

  /** Runs one reading statement on a pooled connection, again on another one while connections turn out lost. */
  private async query<R extends QueryResultRow>(action: string, config: QueryConfig): Promise<R[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.withClient(action, async (client) => (await client.query<R>(config)).rows);
      } catch (error) {
        // Every query here only reads, so one that lost its connection (a server restart
        // leaves every pooled connection stale) is safe to run again on another one.
        if (attempt <= this.target.maxConnections && isConnectionFailure(error)) continue;
        throw storeFailure(this.target, action, error);
      }
    }
  }

  /**
   * Lends `work` a pooled connection. One that broke, or that `work` discards (e.g. after a
   * failed ROLLBACK), is closed instead of returned. Connect failures are
   * PostgresConnectionErrors; errors of `work` are passed on as they are.
   */
  private async withClient<T>(action: string, work: (client: PoolClient, discard: () => void) => Promise<T>): Promise<T> {
    this.assertOpen();
    const started = Date.now();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw (
        connectionError(this.target, { connect: true, elapsedMs: Date.now() - started }, error) ?? storeFailure(this.target, action, error)
      );
    }
    let broken = false;
    // A connection that breaks between statements reports it here, not through a query.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      return await work(client, onError);
    } catch (error) {
      if (isConnectionFailure(error)) broken = true;
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new PostgresStoreClosedError(this.location);
  }

  private assertWritable(action: string): void {
    this.assertOpen();
    if (this.target.readOnly) throw new StoreReadOnlyError(this.location, action);
  }
}
