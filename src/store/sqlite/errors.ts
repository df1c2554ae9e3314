// The errors of the SQLite backend, beyond the log's own: a file this version cannot read, a
// failure inside SQLite, a store used after close().

import Database from 'better-sqlite3';
import { ShadowlogError } from '../../log/errors.js';

/** A SQLite failure that is none of the log's own refusals: a busy lock, a damaged, full or unwritable file. */
export class StoreError extends ShadowlogError {
  readonly location: string;
  /** SQLite's result code, e.g. SQLITE_BUSY, when the failure came from SQLite. */
  readonly sqliteCode: string | undefined;
  constructor(location: string, message: string, options: { cause?: unknown; sqliteCode?: string } = {}) {
    super('STORE_FAILURE', `${location}: ${message}`, { cause: options.cause });
    this.location = location;
    this.sqliteCode = options.sqliteCode;
  }

  /** Wraps what SQLite or the file system threw while the store was doing `action`. */
  static from(location: string, action: string, error: unknown): StoreError {
    const sqliteCode = error instanceof Database.SqliteError ? error.code : undefined;
    const found = error instanceof Error ? error.message : String(error);
    const advice = sqliteCode?.startsWith('SQLITE_BUSY')
      ? 'another connection held the write lock for longer than the busy timeout; try again'
      : 'check that the path names a shadowlog database on a local disk, that it is writable and that the disk has space';
    const options = sqliteCode === undefined ? { cause: error } : { cause: error, sqliteCode };
    return new StoreError(location, `${action} failed: ${found}${sqliteCode === undefined ? '' : ` (${sqliteCode})`}; ${advice}`, options);
  }
}

export { SchemaVersionError, StoreClosedError, StoreNotFoundError } from '../store-errors.js';
