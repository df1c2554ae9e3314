// The connection an ownership holds its advisory lock on (ownership.ts), which also carries
// every append its owner makes to the session. A session-level advisory lock lasts exactly as
// long as the server process of its connection, so an append that commits on that connection
// commits while the lock is held, and none can commit through it once the server has ended it:
// a second owner, which can only claim the session after that, always reads every event the
// first one stored. The owner learns of the loss from the connection's error or end event, or
// from the failure of the statement it sent; from then on each append is refused with
// OwnershipLostError before anything is sent, whether or not another process has claimed the
// session yet. (An append checked from another connection could still commit after the loss.)

import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, Pool } from 'pg';
import type { LogEvent } from '../../log/event.js';
import { type LostAppendOutcome, OwnershipLostError } from '../store-errors.js';
import { type ConnectionTarget, oneLine } from './connection.js';
import type { Statements } from './statements.js';

/** The server process of a lock connection, as pg_stat_activity names it: pid and start time (in microseconds). */
export interface LockBackend {
  readonly pid: number;
  readonly startMicros: string;
}

/** How long an owner waits for the server process of a broken lock connection to end, to tell whether its last append landed. */
export const LOST_BACKEND_WAIT_MS = 2_000;
const LOST_BACKEND_POLL_MS = 20;

/** What an append was writing when its lock connection failed. */
export interface AppendAttempt {
  readonly firstSeq: number;
  readonly count: number;
  /** The last event it was writing, if any. */
  readonly last: LogEvent | undefined;
  /** False while the transaction cannot have committed yet (appendAll before its COMMIT was sent). */
  readonly committing: boolean;
}

export class OwnerConnection {
  private lostBecause: unknown;
  private released = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly target: ConnectionTarget,
    private readonly pool: Pool,
    private readonly sql: Statements,
    readonly sessionId: string,
    private readonly client: Client,
    readonly backend: LockBackend,
  ) {
    client.on('error', (error) => this.lose(error));
    client.on('end', () => this.lose(new Error('Connection terminated')));
  }

  /** True once the lock connection is known to be gone. */
  get lost(): boolean {
    return this.lostBecause !== undefined;
  }

  /** Records that the lock connection is gone, and closes it, so that no lock outlives the loss the owner acts on. */
  lose(cause: unknown): void {
    if (this.released) return;
    if (this.lostBecause !== undefined) {
      // pg reports the server's own word (e.g. 57P01, terminated by an administrator) to the
      // statement, and "Connection terminated unexpectedly" to the listener: keep the former.
      if (!hasCode(this.lostBecause) && hasCode(cause)) this.lostBecause = cause;
      return;
    }
    this.lostBecause = cause;
    this.client.end().catch(() => {
      // Already closed: the server has let the lock go.
    });
  }

  /**
   * Runs `work` on the lock connection once the work queued before it is done (one statement
   * or transaction at a time, as a connection needs). Refuses with OwnershipLostError, sending
   * nothing, once the connection is lost.
   */
  run<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const next = this.queue.then(() => {
      if (this.lostBecause !== undefined) throw this.lostError('not-written');
      return work(this.client);
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /** The OwnershipLostError for an append cut off by the loss of the lock connection, with what became of its events. */
  async appendCutOff(cause: unknown, attempt: AppendAttempt): Promise<OwnershipLostError> {
    this.lose(cause);
    const outcome = attempt.committing ? await this.landed(attempt.last) : 'not-written';
    return this.lostError(outcome, attempt);
  }

  /** Waits for the queued work, then ends the connection (which frees the lock); `finish` runs on it first while it lives. */
  async release(finish: (client: Client) => Promise<unknown>): Promise<void> {
    await this.queue;
    if (this.released) return;
    const alive = this.lostBecause === undefined;
    this.released = true;
    if (alive) await finish(this.client).catch(() => {});
    await this.client.end().catch(() => {});
  }

  private lostError(outcome: LostAppendOutcome, attempt?: AppendAttempt): OwnershipLostError {
    const cause = this.lostBecause;
    const said = cause instanceof Error ? ` (${JSON.stringify(oneLine(cause.message))})` : '';
    const what = `the connection that held its lock (PostgreSQL backend ${this.backend.pid} at ${this.target.server}) was closed${said}`;
    return new OwnershipLostError(this.target.location, this.sessionId, what, outcome, describeOutcome(this.sessionId, outcome, attempt), {
      cause,
    });
  }

  /**
   * Whether `last`, the last event of an append, is stored: once the lock connection's server
   * process has ended, its transaction is over, and the hash at that seq tells (the hash covers
   * the whole chain before it). `unknown` while that process lives on, or the server cannot be asked.
   */
  private async landed(last: LogEvent | undefined): Promise<LostAppendOutcome> {
    if (last === undefined) return 'not-written';
    try {
      if (!(await this.backendEnded())) return 'unknown';
      const result = await this.pool.query<{ hash: string }>({ ...this.sql.hash, values: [this.sessionId, last.seq] });
      return result.rows[0]?.hash === last.hash ? 'written' : 'not-written';
    } catch {
      return 'unknown';
    }
  }

  private async backendEnded(): Promise<boolean> {
    for (let waited = 0; ; waited += LOST_BACKEND_POLL_MS) {
      const result = await this.pool.query(
        'SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND (extract(epoch FROM backend_start) * 1000000)::bigint = $2::bigint',
        [this.backend.pid, this.backend.startMicros],
      );
      if (result.rows.length === 0) return true;
      if (waited >= LOST_BACKEND_WAIT_MS) return false;
      await sleep(LOST_BACKEND_POLL_MS);
    }
  }
}

function hasCode(error: unknown): boolean {
  return typeof (error as { code?: unknown } | undefined)?.code === 'string';
}

function describeOutcome(sessionId: string, outcome: LostAppendOutcome, attempt: AppendAttempt | undefined): string {
  const first = attempt?.firstSeq ?? 0;
  const count = attempt?.count ?? 0;
  const events = count === 1 ? 'the event' : `the ${count} events`;
  switch (outcome) {
    case 'not-written':
      return 'nothing was written';
    case 'written':
      return `${events} from seq ${first} had been stored before the connection closed, and nothing more will be`;
    case 'unknown':
      return (
        `${events} from seq ${first} may or may not have been stored: read the head of session ${sessionId} ` +
        `(nextSeq ${first} means they were not, ${first + count} that they were)`
      );
  }
}
