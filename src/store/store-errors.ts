// Errors every storage backend shares: a store used after close(), and data written by a newer
// shadowlog than this one.

import { ShadowlogError } from '../log/errors.js';

/** A store used after close(). */
export class StoreClosedError extends ShadowlogError {
  readonly location: string;
  constructor(location: string) {
    super('STORE_CLOSED', `${location} is closed; open the store again to use it`);
    this.location = location;
  }
}

/** A database (file or schema) written by a newer shadowlog than this one. */
export class SchemaVersionError extends ShadowlogError {
  readonly location: string;
  readonly found: number;
  readonly expected: number;
  /** @param alternative what else the user can open: 'another file', 'another schema' */
  constructor(location: string, found: number, expected: number, alternative = 'another file') {
    super(
      'SCHEMA_TOO_NEW',
      `${location} has schema version ${found}, but this shadowlog knows versions up to ${expected}; upgrade shadowlog to open it, or use ${alternative}`,
    );
    this.location = location;
    this.found = found;
    this.expected = expected;
  }
}

/**
 * A command that only reads was pointed at a store that does not exist (a missing SQLite file,
 * a PostgreSQL schema that was never created). Readers never create a store.
 */
export class StoreNotFoundError extends ShadowlogError {
  readonly location: string;
  /** @param hint what the user can do, e.g. 'check the path, or run a command that writes first' */
  constructor(location: string, what: string, hint: string) {
    super('STORE_NOT_FOUND', `${location}: ${what}; ${hint}`);
    this.location = location;
  }
}

/**
 * A store opened for reading only (e.g. `openPostgresStore(url, { readOnly: true })`) was asked
 * to write or to take ownership. Nothing was written.
 */
export class StoreReadOnlyError extends ShadowlogError {
  readonly location: string;
  /** What was refused, e.g. 'appending events'. */
  readonly action: string;
  constructor(location: string, action: string) {
    super(
      'STORE_READ_ONLY',
      `${location} was opened read-only, so ${action} is refused and nothing was written; open the store without readOnly to write to it`,
    );
    this.location = location;
    this.action = action;
  }
}

/** What became of the events an append was writing when its owner found its ownership gone. */
export type LostAppendOutcome = 'not-written' | 'written' | 'unknown';

/**
 * An owner that no longer holds its session (SPEC §8): the lock that made it the only writer
 * is gone (for PostgreSQL, the connection that held the advisory lock was closed), so another
 * process may own the session now. Every append after the loss is refused with this error and
 * writes nothing; `appendOutcome` says what became of the append that found the loss.
 */
export class OwnershipLostError extends ShadowlogError {
  readonly location: string;
  readonly sessionId: string;
  readonly appendOutcome: LostAppendOutcome;
  /**
   * @param what how the ownership was lost, e.g. 'the connection that held its lock … was closed'
   * @param outcome what became of the append, as a clause, e.g. 'nothing was written'
   */
  constructor(
    location: string,
    sessionId: string,
    what: string,
    appendOutcome: LostAppendOutcome,
    outcome: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      'OWNERSHIP_LOST',
      `${location}: this process no longer owns session ${sessionId}: ${what}, so another process may own it now; ${outcome}. ` +
        'Stop writing to it, and open the session again to continue (the claim fails with SessionBusyError while another process owns it)',
      options,
    );
    this.location = location;
    this.sessionId = sessionId;
    this.appendOutcome = appendOutcome;
  }
}

/** A checkpoint asked of a store that keeps none (a wrapper, or a store of another kind). Nothing was written. */
export class CheckpointsUnsupportedError extends ShadowlogError {
  readonly location: string;
  constructor(location: string) {
    super('CHECKPOINTS_UNSUPPORTED', `${location} keeps no fold checkpoints; its sessions are always opened by reading their whole log`);
    this.location = location;
  }
}
