// Telling a shadowlog database from another application's before anything is written to it.
// A shadowlog file carries PRAGMA application_id = APPLICATION_ID; files written before that
// mark existed are known by their tables. Another application's database is refused, and
// looking at it must not change it: no WAL switch, no tables, and no side files left behind.

import { accessSync, closeSync, constants, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { NotShadowlogDatabaseError, StoreError } from './errors.js';

type Connection = Database.Database;

/** shadowlog's PRAGMA application_id: the bytes of "SHLG". */
export const APPLICATION_ID = 0x53484c47;

/** The tables of schema version 1, the last version written without the application_id mark. */
const UNMARKED_TABLES = ['events', 'meta', 'owners', 'sessions'];

export type DatabaseIdentity =
  /** Nothing in it yet: a new file, or one that nothing has written a schema to. */
  | { readonly kind: 'empty' }
  /** `marked`: the application_id is set (files from before the mark have the tables only). */
  | { readonly kind: 'shadowlog'; readonly marked: boolean };

/** What an open database holds, by reads alone. Throws NotShadowlogDatabaseError for another application's. */
export function identifyDatabase(db: Connection, location: string): DatabaseIdentity {
  const applicationId = Number(db.pragma('application_id', { simple: true }));
  if (applicationId === APPLICATION_ID) return { kind: 'shadowlog', marked: true };
  const userVersion = Number(db.pragma('user_version', { simple: true }));
  const objects = db.prepare<[], { type: string; name: string }>('SELECT type, name FROM sqlite_master ORDER BY name').all();
  if (applicationId === 0 && userVersion === 0) {
    if (objects.length === 0) return { kind: 'empty' };
    if (isUnmarkedShadowlog(db, objects)) return { kind: 'shadowlog', marked: false };
  }
  const tables = objects.filter((object) => object.type === 'table').map((object) => object.name);
  throw new NotShadowlogDatabaseError(location, { applicationId, userVersion, tables });
}

function isUnmarkedShadowlog(db: Connection, objects: ReadonlyArray<{ type: string; name: string }>): boolean {
  const tables = new Set(objects.filter((object) => object.type === 'table').map((object) => object.name));
  if (!UNMARKED_TABLES.every((table) => tables.has(table))) return false;
  return db.prepare("SELECT 1 FROM meta WHERE key = 'schema_version'").get() !== undefined;
}

interface FileHeader {
  readonly size: number;
  readonly applicationId: number | undefined;
  /** The file is in WAL mode (header bytes 18 and 19 are 2). */
  readonly wal: boolean;
}

function readHeader(file: string): FileHeader {
  const size = statSync(file).size;
  const header = Buffer.alloc(100);
  const descriptor = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(descriptor, header, 0, header.length, 0);
  } finally {
    closeSync(descriptor);
  }
  const isSqlite = read === 100 && header.subarray(0, 16).toString('latin1') === 'SQLite format 3\0';
  return { size, applicationId: isSqlite ? header.readInt32BE(68) : undefined, wal: isSqlite && header[18] === 2 };
}

/**
 * What the existing file at `file` holds, without changing it. A file marked as shadowlog's is
 * known from its header; any other (a mark still in the -wal, too) is opened just to look, with
 * `busyTimeoutMs` as its busy timeout. Throws NotShadowlogDatabaseError.
 */
export function identifyFile(file: string, location: string, busyTimeoutMs: number): DatabaseIdentity {
  const header = readHeader(file);
  if (header.size === 0) return { kind: 'empty' };
  if (header.applicationId === APPLICATION_ID) return { kind: 'shadowlog', marked: true };
  const looking = openToLook(file, location, header, busyTimeoutMs);
  try {
    return identifyDatabase(looking, location);
  } finally {
    looking.close();
  }
}

/**
 * A connection that leaves the file and its directory as they were. A read-only connection
 * writes nothing, but in WAL mode it leaves the -wal and -shm files it had to create; so a WAL
 * file without a -wal, in a place we can write, is looked at through a read-write connection,
 * which reads only and removes those files when it closes (its log is empty: nothing to
 * checkpoint into the file). A -wal that holds changes is never touched that way.
 */
function openToLook(file: string, location: string, header: FileHeader, busyTimeoutMs: number): Connection {
  if (header.wal && !holdsData(`${file}-wal`) && canWrite(file) && canWrite(dirname(file))) {
    return new Database(file, { fileMustExist: true, timeout: busyTimeoutMs });
  }
  return openReadOnlyConnection(file, location, busyTimeoutMs);
}

/**
 * A read-only connection to an existing file. A WAL database needs its -shm file; where that
 * cannot be created (a read-only directory or mount) and there is no -wal holding changes, the
 * file alone is the whole database, and it is read as an in-memory snapshot (memory: the file's
 * size). A WAL database with changes in its -wal but no way to open the -shm is refused.
 */
export function openReadOnlyConnection(file: string, location: string, busyTimeoutMs: number): Connection {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  try {
    // The first read opens the WAL index, which is where a read-only place shows.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (error) {
    db.close();
    if (!(error instanceof Database.SqliteError) || !cannotOpenWalIndex(error.code) || !readHeader(file).wal) throw error;
    return openSnapshot(file, location, error);
  }
}

function cannotOpenWalIndex(sqliteCode: string): boolean {
  return sqliteCode.startsWith('SQLITE_READONLY') || sqliteCode.startsWith('SQLITE_CANTOPEN');
}

function openSnapshot(file: string, location: string, cause: InstanceType<typeof Database.SqliteError>): Connection {
  const wal = `${file}-wal`;
  if (holdsData(wal)) {
    throw new StoreError(
      location,
      `the database is in WAL mode and ${wal} holds changes not yet in the file, but its -shm file cannot be opened or created here (${cause.code}: the directory or the disk is read-only); copy the file with its -wal to a writable directory and open the copy`,
      { cause, sqliteCode: cause.code },
    );
  }
  const image = readFileSync(file);
  // The copy says "rollback journal" (format 1), the only mode an in-memory database opens in.
  image[18] = 1;
  image[19] = 1;
  return new Database(image, { readonly: true });
}

function holdsData(file: string): boolean {
  try {
    return statSync(file).size > 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
