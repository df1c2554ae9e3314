// The schema of the SQLite store: the versioned tables with the triggers that make the log
// append-only inside the database, and the migrations.

import type Database from 'better-sqlite3';
import { CorruptLogError } from '../../log/errors.js';
import { SchemaVersionError } from './errors.js';
import { APPLICATION_ID, identifyDatabase } from './identity.js';
import { SEARCH_TABLES_SQL, SqliteSearchIndex } from './search-index.js';

type Connection = Database.Database;

/** One step of the schema: from version `from` to `from + 1`. */
export interface Migration {
  readonly from: number;
  readonly description: string;
  readonly up: (db: Connection) => void;
}

/** The message a trigger raises when an insert does not take its session's next seq. */
export const NOT_NEXT_SEQ_MESSAGE = 'shadowlog: an event must take the next seq of its session';

const VERSION_1 = `
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE events (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    hash TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;

  -- Lets listSessions walk the sessions without scanning every event.
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
  ) WITHOUT ROWID;

  -- Not the log: a claim that comes and goes, so rows are replaced and deleted freely.
  CREATE TABLE owners (
    session_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    process_start TEXT,
    acquired_at TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TRIGGER events_no_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'shadowlog: events are append-only; an event cannot be updated'); END;

  CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'shadowlog: events are append-only; an event cannot be deleted'); END;

  -- Seqs stay dense, and INSERT OR REPLACE cannot overwrite an event: its implicit delete
  -- fires no delete trigger, but this check runs first. A one-event append relies on it as
  -- its expected-seq check.
  CREATE TRIGGER events_next_seq BEFORE INSERT ON events
  WHEN NEW.seq IS NOT coalesce((SELECT seq FROM events WHERE session_id = NEW.session_id ORDER BY seq DESC LIMIT 1) + 1, 0)
  BEGIN SELECT RAISE(ABORT, '${NOT_NEXT_SEQ_MESSAGE}'); END;

  CREATE TRIGGER events_first AFTER INSERT ON events WHEN NEW.seq = 0
  BEGIN INSERT INTO sessions (id, created_at) VALUES (NEW.session_id, json_extract(NEW.body, '$.time')); END;

  CREATE TRIGGER sessions_no_update BEFORE UPDATE ON sessions
  BEGIN SELECT RAISE(ABORT, 'shadowlog: sessions are append-only; a session cannot be updated'); END;

  CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions
  BEGIN SELECT RAISE(ABORT, 'shadowlog: sessions are append-only; a session cannot be deleted'); END;
`;

// Fold checkpoints (store/fold-checkpoints.ts): derived data beside the log, never part of it
// (append-only from version 3). A payload can be large: a rowid table, not WITHOUT ROWID.
const VERSION_2 = `
  CREATE TABLE fold_checkpoints (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    digest TEXT NOT NULL,
    payload TEXT NOT NULL,
    UNIQUE (session_id, seq)
  );
`;

/** The first schema version with the fold_checkpoints table; a reader of an older file finds no checkpoints. */
export const CHECKPOINTS_SCHEMA_VERSION = 2;

/** The message of the triggers that keep fold checkpoints append-only. */
export const CHECKPOINTS_APPEND_ONLY_MESSAGE = 'shadowlog: fold checkpoints are append-only';

// Fold checkpoints become append-only (store/log-store.ts, CheckpointStore): a row is never
// updated, nor overwritten by INSERT OR REPLACE (whose implicit delete fires no delete trigger,
// but this insert check runs first), and a row is deleted only while a newer checkpoint of its
// session is kept, which is what pruning does. A forged row cannot be proven anyway (its digest
// is a MAC under a key the store never holds); these keep a proven one from being replaced.
const VERSION_3 = `
  CREATE TRIGGER fold_checkpoints_no_update BEFORE UPDATE ON fold_checkpoints
  BEGIN SELECT RAISE(ABORT, '${CHECKPOINTS_APPEND_ONLY_MESSAGE}; a checkpoint cannot be updated'); END;

  CREATE TRIGGER fold_checkpoints_no_overwrite BEFORE INSERT ON fold_checkpoints
  WHEN EXISTS (SELECT 1 FROM fold_checkpoints WHERE session_id = NEW.session_id AND seq = NEW.seq)
  BEGIN SELECT RAISE(ABORT, '${CHECKPOINTS_APPEND_ONLY_MESSAGE}; a checkpoint cannot be overwritten'); END;

  CREATE TRIGGER fold_checkpoints_prune_only BEFORE DELETE ON fold_checkpoints
  WHEN NOT EXISTS (SELECT 1 FROM fold_checkpoints WHERE session_id = OLD.session_id AND seq > OLD.seq)
  BEGIN SELECT RAISE(ABORT, '${CHECKPOINTS_APPEND_ONLY_MESSAGE}; only pruning deletes one, while a newer checkpoint of its session is kept'); END;
`;

/** The message of the triggers that keep branch links append-only. */
export const FORKS_APPEND_ONLY_MESSAGE = 'shadowlog: branch links are append-only';

// Branches (SPEC §14): a branch keeps only its own events, from its session/fork at
// fork_seq + 1; its seqs 0 … fork_seq are its parent's. The link is written in the transaction
// that writes the branch's first events, before them; the next-seq trigger then lets a branch's
// first event take fork_seq + 1, and the sessions row is written by that first event. A link is
// refused unless the parent holds the event it forks after, with that hash.
const VERSION_5 = `
  CREATE TABLE session_forks (
    session_id TEXT PRIMARY KEY,
    parent_id TEXT NOT NULL,
    fork_seq INTEGER NOT NULL CHECK (fork_seq >= 0),
    parent_hash TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE INDEX session_forks_parent ON session_forks (parent_id, fork_seq);

  CREATE TRIGGER session_forks_no_update BEFORE UPDATE ON session_forks
  BEGIN SELECT RAISE(ABORT, '${FORKS_APPEND_ONLY_MESSAGE}; a link cannot be updated'); END;

  CREATE TRIGGER session_forks_no_delete BEFORE DELETE ON session_forks
  BEGIN SELECT RAISE(ABORT, '${FORKS_APPEND_ONLY_MESSAGE}; a link cannot be deleted'); END;

  CREATE TRIGGER session_forks_parent BEFORE INSERT ON session_forks
  WHEN NOT EXISTS (SELECT 1 FROM events WHERE session_id = NEW.parent_id AND seq = NEW.fork_seq AND hash = NEW.parent_hash)
    OR EXISTS (SELECT 1 FROM events WHERE session_id = NEW.session_id)
  BEGIN SELECT RAISE(ABORT, 'shadowlog: a branch links to an event its parent holds, before its own first event'); END;

  DROP TRIGGER events_next_seq;
  CREATE TRIGGER events_next_seq BEFORE INSERT ON events
  WHEN NEW.seq IS NOT coalesce(
    (SELECT seq FROM events WHERE session_id = NEW.session_id ORDER BY seq DESC LIMIT 1) + 1,
    (SELECT fork_seq + 1 FROM session_forks WHERE session_id = NEW.session_id),
    0)
  BEGIN SELECT RAISE(ABORT, '${NOT_NEXT_SEQ_MESSAGE}'); END;

  DROP TRIGGER events_first;
  CREATE TRIGGER events_first AFTER INSERT ON events
  WHEN NEW.seq = coalesce((SELECT fork_seq + 1 FROM session_forks WHERE session_id = NEW.session_id), 0)
  BEGIN INSERT INTO sessions (id, created_at) VALUES (NEW.session_id, json_extract(NEW.body, '$.time')); END;
`;

/** The first schema version with branch links; a reader of an older file finds no branches. */
export const FORKS_SCHEMA_VERSION = 5;

/** Every migration, in order: `MIGRATIONS[n]` takes a file from version n to n + 1. */
export const MIGRATIONS: readonly Migration[] = [
  { from: 0, description: 'create the meta, events, sessions and owners tables', up: (db) => db.exec(VERSION_1) },
  { from: 1, description: 'keep fold checkpoints beside the log: the fold_checkpoints table', up: (db) => db.exec(VERSION_2) },
  {
    from: 2,
    description: 'make fold checkpoints append-only: triggers refuse updates, overwrites and deletes other than pruning',
    up: (db) => db.exec(VERSION_3),
  },
  {
    from: 3,
    description:
      "search: an FTS5 trigram index of every event's text, written with each append, and the seqs each replacement shadowed; filled from the events stored",
    up: (db) => {
      db.exec(SEARCH_TABLES_SQL);
      new SqliteSearchIndex(db).backfill();
    },
  },
  {
    from: 4,
    description:
      "branches: the session_forks table links a branch to its parent's prefix, and a branch's first event takes the seq after its fork point",
    up: (db) => db.exec(VERSION_5),
  },
];

/** The first schema version with the search index; a reader of an older file searches by reading every event. */
export const SEARCH_SCHEMA_VERSION = 4;

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema version of an open database; 0 for a file that has no shadowlog tables yet. */
export function readSchemaVersion(db: Connection, location: string): number {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  if (!hasMeta) return 0;
  const value = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get();
  const version = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(version)) {
    throw new CorruptLogError(
      `${location} has a meta table whose schema_version is ${JSON.stringify(value) ?? 'missing'}, expected a whole number; the file is damaged or is not a shadowlog database`,
    );
  }
  return version;
}

/**
 * Brings the file up to the newest version in `migrations`, all in one write transaction so
 * that two processes opening a new file at once cannot both create it, and marks it with
 * shadowlog's application_id. What the file holds is checked again under the lock, before
 * anything is written: another application's database is refused. Returns the version.
 */
export function migrate(db: Connection, location: string, migrations: readonly Migration[] = MIGRATIONS): number {
  const latest = migrations.length;
  const run = db.transaction(() => {
    const identity = identifyDatabase(db, location);
    const found = identity.kind === 'empty' ? 0 : readSchemaVersion(db, location);
    if (found > latest) throw new SchemaVersionError(location, found, latest);
    for (const migration of migrations.slice(found)) migration.up(db);
    if (found < latest) {
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(latest));
    }
    if (identity.kind !== 'shadowlog' || !identity.marked) db.pragma(`application_id = ${APPLICATION_ID}`);
    return latest;
  });
  return run.immediate();
}
