// What opening a PostgreSQL store does to its database. A writer checks that the database holds
// UTF-8 text, then creates or migrates shadowlog's tables. A reader (`readOnly`) changes
// nothing: a schema that holds no store is a StoreNotFoundError, never created, and an older
// schema is read as it is (every version so far keeps version 1's events table, which is all
// that reading needs; following needs version 2, see watch.ts).

import type { ClientBase } from 'pg';
import type { ConnectionTarget } from './connection.js';
import { PostgresEncodingError, PostgresSchemaVersionError, StoreNotFoundError } from './errors.js';
import { migrate, readSchemaVersion, SCHEMA_VERSION } from './schema.js';

/** Makes the schema ready for the store `target` describes; returns the schema version it has. */
export async function prepareSchema(client: ClientBase, target: ConnectionTarget): Promise<number> {
  // Before anything is written: a session must not fail halfway on its first non-ASCII text.
  if (!target.readOnly) await assertUtf8Database(client, target);
  const found = await readSchemaVersion(client, target.schema, target.location);
  if (found > SCHEMA_VERSION) throw new PostgresSchemaVersionError(target.location, found, SCHEMA_VERSION, 'another schema');
  if (target.readOnly) {
    if (found < 1) throw await storeNotFound(client, target);
    return found;
  }
  return found < SCHEMA_VERSION ? migrate(client, target.schema, target.location) : found;
}

/**
 * Refuses a database whose encoding is not UTF8. Only writers: what a store in such a database
 * holds was accepted by it, so a reader can still read it (and copy it to a UTF8 database).
 */
async function assertUtf8Database(client: ClientBase, target: ConnectionTarget): Promise<void> {
  const result = await client.query<{ encoding: string; database: string }>(
    "SELECT current_setting('server_encoding') AS encoding, current_database() AS database",
  );
  const row = result.rows[0];
  if (row !== undefined && row.encoding !== 'UTF8') throw new PostgresEncodingError(target.server, row.database, row.encoding);
}

async function storeNotFound(client: ClientBase, target: ConnectionTarget): Promise<StoreNotFoundError> {
  const result = await client.query<{ present: boolean; database: string }>(
    'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS present, current_database() AS database',
    [target.schema],
  );
  const present = result.rows[0]?.present === true;
  const database = JSON.stringify(result.rows[0]?.database ?? '');
  const what = present
    ? `schema "${target.schema}" of database ${database} holds no shadowlog store (it has no shadowlog tables)`
    : `database ${database} has no schema "${target.schema}"`;
  return new StoreNotFoundError(
    target.location,
    what,
    'check the schema name (?schema= in the URL) and the database, or create the store first (open it without readOnly, or run a command that writes)',
  );
}
