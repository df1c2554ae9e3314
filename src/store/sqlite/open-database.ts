// Opening the database file of the SQLite store, for writing or for reading only. Opening a file
// that is already at the current schema takes no write lock, in either mode: only a new file, or
// one that must be migrated or marked, is written to, and that waits for the lock like any write.

import { mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SchemaVersionError, StoreError, StoreNotFoundError } from './errors.js';
import { identifyDatabase, identifyFile, openReadOnlyConnection } from './identity.js';
import type { LockWaiter } from './lock-wait.js';
import { migrate, readSchemaVersion, SCHEMA_VERSION } from './schema.js';

type Connection = Database.Database;

const CREATE_HINT = 'check the path; a store is created by a command that writes to it, such as import or demo';

/**
 * Opens `file` for writing, creating it if needed, and brings it to the current schema. A new
 * file's directory is made when it is missing but its parent is there (`.shadowlog/` in a project),
 * never more: a mistyped path does not grow a tree of directories from the root.
 */
export async function openWritableDatabase(file: string, location: string, locks: LockWaiter): Promise<Connection> {
  // Someone else's file is refused before a connection that could write to it is opened.
  const existing = statIfExists(file);
  if (existing?.isFile() === true) await locks.run('reading the file', () => identifyFile(file, location, locks.attemptMs));
  if (existing === undefined) makeDirectory(file, location);
  const db = new Database(file, { timeout: locks.attemptMs });
  try {
    // Reads, which wait too: another process may be creating the same new file right now.
    const { identity, version, journalMode } = await locks.run('reading the schema', () => {
      const identity = identifyDatabase(db, location);
      const version = identity.kind === 'empty' ? 0 : readSchemaVersion(db, location);
      return { identity, version, journalMode: db.pragma('journal_mode', { simple: true }) };
    });
    if (version > SCHEMA_VERSION) throw new SchemaVersionError(location, version, SCHEMA_VERSION);
    if (journalMode !== 'wal') {
      const mode = await locks.run('switching the file to WAL mode', () => db.pragma('journal_mode = WAL', { simple: true }));
      if (mode !== 'wal') {
        throw new StoreError(location, `expected WAL journal mode, found ${String(mode)}; put the file on a local disk that supports WAL`);
      }
    }
    // FULL: a commit is on disk when append() returns, even if the machine loses power.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    if (version < SCHEMA_VERSION || identity.kind !== 'shadowlog' || !identity.marked) {
      await locks.run('creating the schema', () => migrate(db, location));
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens the existing store at `file` for reading only: nothing is created or written, and a
 * read-only file, directory or disk is fine. A missing or empty file is a StoreNotFoundError.
 */
export async function openReadOnlyDatabase(file: string, location: string, locks: LockWaiter): Promise<Connection> {
  const stats = statIfExists(file);
  if (stats === undefined) throw new StoreNotFoundError(location, `there is no file ${file}`, CREATE_HINT);
  if (stats.isDirectory()) throw new StoreError(location, `${file} is a directory; expected a shadowlog database file`);
  if (stats.size === 0) throw emptyStore(file, location);
  const identity = await locks.run('reading the file', () => identifyFile(file, location, locks.attemptMs));
  if (identity.kind === 'empty') throw emptyStore(file, location);
  const db = await locks.run('opening the file', () => openReadOnlyConnection(file, location, locks.attemptMs));
  try {
    const version = await locks.run('reading the schema', () => {
      if (identifyDatabase(db, location).kind === 'empty') throw emptyStore(file, location);
      return readSchemaVersion(db, location);
    });
    if (version > SCHEMA_VERSION) throw new SchemaVersionError(location, version, SCHEMA_VERSION);
    // Every version keeps version 1's events, which is all that reading needs; an older file has
    // no fold checkpoints (version 2), and its sessions are read from seq 0.
    if (version < 1) {
      throw new StoreError(
        location,
        `the file has schema version ${version}, older than version 1 that this shadowlog reads; open it once for writing (any command that writes) to migrate it`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Makes the directory of a new store's file, one level at most, or says why it cannot be. */
function makeDirectory(file: string, location: string): void {
  const directory = dirname(file);
  const stats = statIfExists(directory);
  if (stats?.isDirectory() === true) return;
  const hint =
    'a new store is created as a file in a directory that exists (or one new directory in one that does): create the directory first, or check the path';
  if (stats !== undefined) throw new StoreNotFoundError(location, `${directory} is not a directory`, hint);
  if (statIfExists(dirname(directory))?.isDirectory() !== true) {
    throw new StoreNotFoundError(location, `there is no directory ${dirname(directory)} to create ${directory} in`, hint);
  }
  try {
    // Never recursive: besides growing trees, a recursive mkdir loops forever under /proc.
    mkdirSync(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Made meanwhile by another process creating the same store: fine.
    if (code === 'EEXIST') return;
    throw new StoreNotFoundError(location, `cannot create the directory ${directory} (${code ?? (error as Error).message})`, hint);
  }
}

function emptyStore(file: string, location: string): StoreNotFoundError {
  return new StoreNotFoundError(location, `${file} holds no shadowlog store yet (it is an empty database)`, CREATE_HINT);
}

function statIfExists(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
