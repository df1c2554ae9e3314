// The errors of the PostgreSQL backend, beyond the log's own: a server that cannot be reached,
// a failure inside PostgreSQL, a database whose encoding cannot hold the log, a schema this
// version cannot read, a store used after close().
// Codes match the SQLite backend's (STORE_FAILURE, STORE_CLOSED, SCHEMA_TOO_NEW), so callers
// that branch on `code` treat both alike; the classes live here so that this backend never
// loads the SQLite native module.

import { ShadowlogError } from '../../log/errors.js';

/** A PostgreSQL failure that is none of the log's own refusals, e.g. a refused trigger or a missing privilege. */
export class PostgresStoreError extends ShadowlogError {
  readonly location: string;
  /** PostgreSQL's SQLSTATE, e.g. 42501 (insufficient privilege), when the failure came from the server. */
  readonly sqlState: string | undefined;
  constructor(location: string, message: string, options: { cause?: unknown; sqlState?: string } = {}) {
    super('STORE_FAILURE', `${location}: ${message}`, { cause: options.cause });
    this.location = location;
    this.sqlState = options.sqlState;
  }
}

/** Why a connection to the server could not be made or was lost. */
export type ConnectionProblem =
  | 'bad-url'
  | 'refused'
  | 'host-not-found'
  | 'timeout'
  | 'authentication'
  | 'database-missing'
  | 'too-many-connections'
  | 'server-unavailable'
  | 'ssl'
  | 'lost'
  | 'other';

/**
 * The server could not be reached, refused us, or the connection dropped. The message is one
 * line naming the problem and the fix; the pg or socket error is kept as `cause`.
 */
export class PostgresConnectionError extends ShadowlogError {
  /** The server as `host:port` (never the password). */
  readonly server: string;
  readonly problem: ConnectionProblem;
  /**
   * For an append cut off by a lost connection: `not-written` when the transaction cannot have
   * committed, `unknown` when it may have. The session's head tells which (see PostgresLogStore).
   */
  readonly appendOutcome: 'unknown' | 'not-written' | undefined;
  constructor(
    server: string,
    problem: ConnectionProblem,
    message: string,
    options: { cause?: unknown; appendOutcome?: 'unknown' | 'not-written' } = {},
  ) {
    super('STORE_UNREACHABLE', message, { cause: options.cause });
    this.server = server;
    this.problem = problem;
    this.appendOutcome = options.appendOutcome;
  }
}

/**
 * A database whose encoding is not UTF8, refused when a store is opened for writing: shadowlog
 * stores UTF-8 text, and such a database would refuse (LATIN1 and the like) or not check
 * (SQL_ASCII) the first character it cannot represent, in the middle of a session.
 */
export class PostgresEncodingError extends ShadowlogError {
  readonly server: string;
  readonly database: string;
  /** The database's encoding as PostgreSQL names it, e.g. `LATIN1` or `SQL_ASCII`. */
  readonly encoding: string;
  constructor(server: string, database: string, encoding: string) {
    super(
      'DATABASE_ENCODING',
      `database ${JSON.stringify(database)} on PostgreSQL at ${server} has encoding ${encoding}, expected UTF8: shadowlog stores UTF-8 text, ` +
        `and ${encoding} would ${encoding === 'SQL_ASCII' ? 'not check it' : 'refuse characters it lacks'} in the middle of a session; ` +
        `create a UTF8 database (CREATE DATABASE name ENCODING 'UTF8' TEMPLATE template0) and name it in the URL ` +
        '(a store already there can still be opened with readOnly, to copy its sessions out)',
    );
    this.server = server;
    this.database = database;
    this.encoding = encoding;
  }
}

// The store-independent errors, under the names this backend has always exported.
export {
  type LostAppendOutcome,
  OwnershipLostError,
  SchemaVersionError as PostgresSchemaVersionError,
  StoreClosedError as PostgresStoreClosedError,
  StoreNotFoundError,
  StoreReadOnlyError,
} from '../store-errors.js';
