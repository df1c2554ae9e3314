// The tables of the PostgreSQL store, inside a schema of the caller's choice: the versioned
// schema, the triggers that keep the log append-only inside the database, and the migrations.
//
// Designed to be distributed by session id (e.g. with Citus), though this file does not do it:
// - `events` is keyed by (session_id, seq), and every index on it leads with session_id;
//   there are no foreign keys, and every statement the store runs on it filters by one
//   session_id, except listSessions, whose lateral join is correlated on session_id and so
//   runs on each shard. `owners` and `followers` are keyed by session_id too; `meta` is one
//   tiny row.
// - To distribute: create the store once (so that the tables exist), then, as the table owner,
//     SET citus.enable_unsafe_triggers = on;  -- Citus 11+: keeps the triggers on the shards
//     SELECT create_distributed_table('<schema>.events', 'session_id');
//     SELECT create_distributed_table('<schema>.owners', 'session_id', colocate_with => '<schema>.events');
//     SELECT create_distributed_table('<schema>.followers', 'session_id', colocate_with => '<schema>.events');
//     SELECT create_reference_table('<schema>.meta');
//   The next-seq trigger reads the table it fires on (TG_TABLE_NAME), which on a worker is
//   the shard that holds the whole session, so it needs no cross-node query.
// - Ownership uses session-level advisory locks, which live on the node that takes them: every
//   writer must connect to the same coordinator for ownership to mean anything. Appends stay
//   safe without ownership (the next-seq check is in the shard).
// - Following by LISTEN/NOTIFY (notify-schema.ts) does not carry over: the notifying trigger
//   would run on the workers, whose notifications reach no follower on the coordinator. Drop
//   the events_notify trigger there, and follow by polling (followSession's `watch: false`).
// - None of this has been run against a real Citus cluster by these tests.
//
// Append-only holds for every role that cannot alter the tables: grant writers INSERT and
// SELECT only. The table owner (or a superuser) can still disable or drop the triggers.

import type { ClientBase, Pool } from 'pg';
import { ConfigError, CorruptLogError } from '../../log/errors.js';
import { advisoryLockKey } from './advisory-lock.js';
import { version4, version6 } from './checkpoint-schema.js';
import { PostgresSchemaVersionError } from './errors.js';
import { version8 } from './fork-schema.js';
import { version2 } from './notify-schema.js';
import { migrateToSearch } from './search-schema.js';
import { NOT_NEXT_SEQ_STATE, version3 } from './seq-check-schema.js';
import { version5 } from './session-id-check-schema.js';

export const DEFAULT_SCHEMA = 'shadowlog';

export { NOT_NEXT_SEQ_STATE };
/** SQLSTATE raised by the triggers that refuse UPDATE, DELETE and TRUNCATE of events (and of fold checkpoints but for pruning). */
export const APPEND_ONLY_STATE = 'SL002';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A schema name that needs no quoting to mean what it says: lower-case letters, digits and `_`. */
export function assertSchemaName(name: string): string {
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name) || name.startsWith('pg_')) {
    throw new ConfigError(
      'schema',
      `expected a schema name of lower-case letters, digits and '_' (at most 63, not starting with a digit or pg_), found ${JSON.stringify(name)}`,
    );
  }
  return name;
}

/** A checked schema name, double-quoted for SQL. */
export function quoteSchema(name: string): string {
  return `"${assertSchemaName(name)}"`;
}

type Queryable = Pool | ClientBase;

/** One step of the schema: from version `from` to `from + 1`, run inside the migration transaction. */
export interface Migration {
  readonly from: number;
  readonly description: string;
  /** `schema` is the quoted schema name, e.g. `"shadowlog"`. */
  readonly up: (client: ClientBase, schema: string) => Promise<void>;
}

function version1(s: string): string {
  return `
  CREATE TABLE ${s}.meta (
    key text PRIMARY KEY,
    value text NOT NULL
  );

  -- body is the canonical JSON of the whole event, hash included, stored as text so that
  -- its bytes (which the hash chain covers) come back exactly; jsonb would reorder keys.
  -- The session id check is replaced in version 5 by a cheaper one that admits the same ids.
  CREATE TABLE ${s}.events (
    session_id text COLLATE "C" NOT NULL CHECK (session_id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$'),
    seq bigint NOT NULL CHECK (seq >= 0),
    type text NOT NULL,
    hash text NOT NULL,
    body text NOT NULL,
    PRIMARY KEY (session_id, seq)
  );

  -- One entry per session: lets listSessions find the sessions without scanning every event.
  CREATE INDEX events_session_starts ON ${s}.events (session_id) WHERE seq = 0;

  -- Not the log: who holds each session's ownership lock, for the next claimant's message.
  -- The advisory lock decides; a row left by a crashed owner is simply overwritten.
  CREATE TABLE ${s}.owners (
    session_id text COLLATE "C" PRIMARY KEY,
    lock_key bigint NOT NULL,
    token text NOT NULL,
    backend_pid integer NOT NULL,
    pid integer NOT NULL,
    host text NOT NULL,
    acquired_at timestamptz NOT NULL
  );

  CREATE FUNCTION ${s}.events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    RAISE EXCEPTION USING ERRCODE = '${APPEND_ONLY_STATE}',
      MESSAGE = 'shadowlog: events are append-only; ' || TG_ARGV[0];
  END
  $body$;

  -- Statement-level, so even an UPDATE that matches no row, or an INSERT ... ON CONFLICT DO
  -- UPDATE, is refused.
  CREATE TRIGGER events_no_update BEFORE UPDATE ON ${s}.events
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.events_refuse_change('an event cannot be updated');
  CREATE TRIGGER events_no_delete BEFORE DELETE ON ${s}.events
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.events_refuse_change('an event cannot be deleted');
  CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON ${s}.events
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.events_refuse_change('events cannot be truncated');

  -- Seqs stay dense: a row must take its session's next seq (replaced in version 3 by a
  -- check once per statement, seq-check-schema.ts). Rows earlier in the same
  -- statement are visible here, so a multi-row insert is checked row by row. Two writers
  -- racing for the same seq both pass this check; the primary key then refuses the second.
  -- On a Citus shard the table is events_<shard id>, which holds the whole session.
  CREATE FUNCTION ${s}.events_next_seq() RETURNS trigger LANGUAGE plpgsql AS $body$
  DECLARE
    last bigint;
  BEGIN
    IF TG_TABLE_NAME = 'events' THEN
      SELECT seq INTO last FROM ${s}.events WHERE session_id = NEW.session_id ORDER BY seq DESC LIMIT 1;
    ELSE
      EXECUTE format('SELECT seq FROM %I.%I WHERE session_id = $1 ORDER BY seq DESC LIMIT 1', TG_TABLE_SCHEMA, TG_TABLE_NAME)
        INTO last USING NEW.session_id;
    END IF;
    IF NEW.seq IS DISTINCT FROM coalesce(last + 1, 0) THEN
      RAISE EXCEPTION USING ERRCODE = '${NOT_NEXT_SEQ_STATE}',
        MESSAGE = 'shadowlog: an event must take the next seq of its session',
        DETAIL = format('session %s: expected seq %s, found %s', NEW.session_id, coalesce(last + 1, 0), NEW.seq);
    END IF;
    RETURN NEW;
  END
  $body$;

  CREATE TRIGGER events_next_seq BEFORE INSERT ON ${s}.events
    FOR EACH ROW EXECUTE FUNCTION ${s}.events_next_seq();
`;
}

/** Every migration, in order: `MIGRATIONS[n]` takes a schema from version n to n + 1. */
export const MIGRATIONS: readonly Migration[] = [
  {
    from: 0,
    description: 'create the meta, events and owners tables and the append-only triggers',
    up: async (client, schema) => {
      await client.query(version1(schema));
    },
  },
  {
    from: 1,
    description: 'notify the followers of a session of its new events (LISTEN/NOTIFY): the followers table and its trigger',
    up: async (client, schema) => {
      await client.query(version2(schema));
    },
  },
  {
    from: 2,
    description: 'check that seqs stay dense once per statement (a statement trigger) instead of once per row',
    up: async (client, schema) => {
      await client.query(version3(schema));
    },
  },
  {
    from: 3,
    description: 'keep fold checkpoints beside the log: the fold_checkpoints table',
    up: async (client, schema) => {
      await client.query(version4(schema));
    },
  },
  {
    from: 4,
    description: 'check session ids with an expression that costs about a fifteenth as much per row, admitting the same ids',
    up: async (client, schema) => {
      const rows = await client.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${schema}.events) AS found`);
      await client.query(version5(schema, rows.rows[0]?.found === true));
    },
  },
  {
    from: 5,
    description: 'make fold checkpoints append-only: triggers refuse updates, truncation and deletes other than pruning',
    up: async (client, schema) => {
      await client.query(version6(schema));
    },
  },
  {
    from: 6,
    description:
      "search: every event's text in search_rows under a trigram index (pg_trgm, when it can be installed), written with each append, and the seqs each replacement shadowed; filled from the events stored",
    up: migrateToSearch,
  },
  {
    from: 7,
    description:
      "branches: the session_forks table links a branch to its parent's prefix, and a branch's first event takes the seq after its fork point",
    up: async (client, schema) => {
      await client.query(version8(schema));
    },
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The schema version shadowlog's tables in `schema` have; 0 when there are none (or no such schema). */
export async function readSchemaVersion(db: Queryable, schema: string, location: string): Promise<number> {
  const quoted = quoteSchema(schema);
  const exists = await db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [`${quoted}.meta`]);
  if (exists.rows[0]?.found !== true) return 0;
  const result = await db.query<{ value: string }>(`SELECT value FROM ${quoted}.meta WHERE key = 'schema_version'`);
  const value = result.rows[0]?.value;
  const version = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(version)) {
    throw new CorruptLogError(
      `${location} has a meta table whose schema_version is ${JSON.stringify(value) ?? 'missing'}, expected a whole number; the schema is damaged or is not shadowlog's`,
    );
  }
  return version;
}

/**
 * Brings `schema` up to the newest version in `migrations` in one transaction, under an
 * advisory lock on the schema's name, so that two processes opening a new schema at once do
 * not both create it: the second waits, then finds it done. Returns the version.
 *
 * The lock is taken before the transaction begins, not inside it: a transaction caches the
 * catalog as it was when it started, so one that began before the other process committed
 * its tables would still not see them after waiting for the lock.
 */
export async function migrate(
  client: ClientBase,
  schema: string,
  location: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  const key = advisoryLockKey('migrate', schema);
  await client.query('SELECT pg_advisory_lock($1::bigint)', [key]);
  try {
    return await migrateLocked(client, schema, location, migrations);
  } finally {
    // If the connection is gone, so is the lock.
    await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => {});
  }
}

async function migrateLocked(client: ClientBase, schema: string, location: string, migrations: readonly Migration[]): Promise<number> {
  const quoted = quoteSchema(schema);
  const latest = migrations.length;
  await client.query('BEGIN');
  try {
    const found = await readSchemaVersion(client, schema, location);
    if (found > latest) throw new PostgresSchemaVersionError(location, found, latest, 'another schema');
    if (found === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    for (const migration of migrations.slice(found)) await migration.up(client, quoted);
    if (found < latest) {
      await client.query(
        `INSERT INTO ${quoted}.meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
        [String(latest)],
      );
    }
    await client.query('COMMIT');
    return latest;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      // The error that got us here is the one to report; a broken connection rolls back anyway.
    });
    throw error;
  }
}
