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
