// The errors of the SQLite backend, beyond the log's own: a failure inside SQLite, a file that
// belongs to another application, a write through a store opened read-only, and a write that
// waited too long for another connection's lock.

import Database from 'better-sqlite3';
import { messageOf, ShadowlogError } from '../../log/errors.js';

/** A SQLite failure that is none of the log's own refusals: a damaged, full or unwritable file. */
export class StoreError extends ShadowlogError {
  readonly location: string;
  /** SQLite's result code, e.g. SQLITE_FULL, when the failure came from SQLite. */
  readonly sqliteCode: string | undefined;
  constructor(location: string, message: string, options: { cause?: unknown; sqliteCode?: string } = {}) {
    super('STORE_FAILURE', `${location}: ${message}`, { cause: options.cause });
    this.location = location;
    this.sqliteCode = options.sqliteCode;
  }

  /** Wraps what SQLite or the file system threw while the store was doing `action`. */
  static from(location: string, action: string, error: unknown): StoreError {
    const sqliteCode = error instanceof Database.SqliteError ? error.code : undefined;
    const found = messageOf(error);
    const options = sqliteCode === undefined ? { cause: error } : { cause: error, sqliteCode };
    return new StoreError(
      location,
      `${action} failed: ${found}${sqliteCode === undefined ? '' : ` (${sqliteCode})`}; ${advice(sqliteCode)}`,
      options,
    );
  }
}

function advice(sqliteCode: string | undefined): string {
  if (sqliteCode?.startsWith('SQLITE_BUSY')) return 'another connection held the lock; try again';
  if (sqliteCode?.startsWith('SQLITE_READONLY')) {
    return 'the file, its directory or its disk cannot be written; a command that only reads can open the store read-only';
  }
  return 'check that the path names a shadowlog database on a local disk, that it is writable and that the disk has space';
}

/** What a SQLite file that is not a shadowlog database was found to hold. */
export interface ForeignDatabase {
  /** Its PRAGMA application_id: 0 when no application has set one. */
  readonly applicationId: number;
  /** Its PRAGMA user_version. */
  readonly userVersion: number;
  /** Its tables, in name order. */
  readonly tables: readonly string[];
}

/** A non-empty SQLite database of another application: shadowlog refuses it before writing anything. */
export class NotShadowlogDatabaseError extends ShadowlogError {
  readonly location: string;
  readonly found: ForeignDatabase;
  constructor(location: string, found: ForeignDatabase) {
    super(
      'NOT_SHADOWLOG_DATABASE',
      `${location} is not a shadowlog database: it holds ${describeForeign(found)}; nothing was changed. Point the store at a shadowlog file, or at a new path to create one`,
    );
    this.location = location;
    this.found = found;
  }
}

function describeForeign(found: ForeignDatabase): string {
  const parts: string[] = [];
  if (found.tables.length === 0) parts.push('no tables');
  else {
    const shown = found.tables.slice(0, 8).join(', ');
    const more = found.tables.length > 8 ? ` and ${found.tables.length - 8} more` : '';
    parts.push(`${found.tables.length === 1 ? 'the table' : `${found.tables.length} tables`} ${shown}${more}`);
  }
  if (found.applicationId !== 0) parts.push(`application_id ${found.applicationId} (0x${(found.applicationId >>> 0).toString(16)})`);
  if (found.userVersion !== 0) parts.push(`user_version ${found.userVersion}`);
  return parts.join(', ');
}

/** A write that waited for another connection's write lock for longer than the store's lockTimeoutMs. */
export class StoreLockTimeoutError extends ShadowlogError {
  readonly location: string;
  readonly action: string;
  readonly waitedMs: number;
  readonly timeoutMs: number;
  constructor(location: string, action: string, waitedMs: number, timeoutMs: number, options: { cause?: unknown } = {}) {
    super(
      'STORE_LOCK_TIMEOUT',
      `${location}: ${action} waited ${formatDuration(waitedMs)} for the write lock, which another connection held all that time, and gave up (lockTimeoutMs is ${timeoutMs}); nothing was written. Try again once the other writer (an import, a copy, another agent) is done, or open the store with a longer lockTimeoutMs`,
      options,
    );
    this.location = location;
    this.action = action;
    this.waitedMs = waitedMs;
    this.timeoutMs = timeoutMs;
  }
}

/** A duration for a message: `850 ms`, `12 s`, `4 min 10 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest === 0 ? '' : ` ${rest} s`}`;
}

export { SchemaVersionError, StoreClosedError, StoreNotFoundError, StoreReadOnlyError } from '../store-errors.js';
