// Schema version 7 of the PostgreSQL store: the search index. `search_rows` holds each searchable
// part of an event (store/search/search-text.ts) with its text, under a trigram GIN index
// (pg_trgm), so that a case-insensitive substring (ILIKE '%src/csv.ts%') is an index lookup;
// `search_shadowed` notes which seqs each replacement shadowed. Both are written by the same
// statement as the events they index (statements.ts), and are append-only as the log is.
//
// pg_trgm ships with PostgreSQL and is a trusted extension since version 13: a role that may
// create objects in the database can install it. When it cannot be installed (an older server
// without a superuser, a managed service that leaves it out), the tables are made without the
// trigram index, and a search reads every row of search_rows (still the text alone, not the events).
// A later migration by a role that can install it does not add it by itself: run
//   CREATE EXTENSION pg_trgm; CREATE INDEX search_rows_text ON <schema>.search_rows USING gin (text gin_trgm_ops);
//
// Citus: search_rows is keyed by a global id, not by session: to distribute it by session_id,
// change its primary key to (session_id, id) first. Not run against Citus here.

import type { ClientBase } from 'pg';
import type { LogEvent } from '../../log/event.js';
import { shadowedSeqsOf } from '../search/search-place.js';
import { searchParts } from '../search/search-text.js';
import { parseStoredEvent } from '../store-checks.js';

// The SQLSTATE of every append-only refusal (schema.ts's APPEND_ONLY_STATE; schema.ts imports this file).
const APPEND_ONLY_STATE = 'SL002';

/** The schema version that brought the search index. */
export const SEARCH_SCHEMA_VERSION = 7;

/** Events read per statement while the migration indexes a store's events. */
const BACKFILL_PAGE = 2000;

function tables(s: string): string {
  return `
  CREATE TABLE ${s}.search_rows (
    id bigserial PRIMARY KEY,
    session_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL,
    text text NOT NULL
  );
  CREATE INDEX search_rows_session ON ${s}.search_rows (session_id, id);

  CREATE TABLE ${s}.search_shadowed (
    session_id text COLLATE "C" NOT NULL,
    seq bigint NOT NULL,
    by_seq bigint NOT NULL,
    PRIMARY KEY (session_id, seq)
  );

  CREATE FUNCTION ${s}.search_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $body$
  BEGIN
    RAISE EXCEPTION USING ERRCODE = '${APPEND_ONLY_STATE}',
      MESSAGE = 'shadowlog: the search index is append-only, as the log it indexes; ' || TG_ARGV[0];
  END
  $body$;
  CREATE TRIGGER search_rows_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON ${s}.search_rows
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.search_refuse_change('a row cannot be changed or removed');
  CREATE TRIGGER search_shadowed_no_change BEFORE UPDATE OR DELETE OR TRUNCATE ON ${s}.search_shadowed
    FOR EACH STATEMENT EXECUTE FUNCTION ${s}.search_refuse_change('a row cannot be changed or removed');
`;
}

/**
 * Version 7 on the quoted schema `s`, inside the migration's transaction: pg_trgm if it can be
 * installed (in a savepoint, so that a refusal leaves the transaction usable), the tables, the
 * trigram index when the extension is there, and every stored event indexed.
 */
export async function migrateToSearch(client: ClientBase, s: string): Promise<void> {
  const trigrams = await trigramSchema(client);
  await client.query(tables(s));
  if (trigrams !== undefined) {
    await client.query(`CREATE INDEX search_rows_text ON ${s}.search_rows USING gin (text "${trigrams}".gin_trgm_ops)`);
  }
  await backfill(client, s);
}

/** The schema pg_trgm is installed in, installing it if it is not and this role may; undefined when it cannot be had. */
async function trigramSchema(client: ClientBase): Promise<string | undefined> {
  const find = async () =>
    (
      await client.query<{ schema: string }>(
        "SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'",
      )
    ).rows[0]?.schema;
  const found = await find();
  if (found !== undefined) return found;
  await client.query('SAVEPOINT shadowlog_trigrams');
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    await client.query('RELEASE SAVEPOINT shadowlog_trigrams');
  } catch {
    // Not allowed here (or not available): the search reads every row instead. Another
    // migration may have installed it meanwhile (two schemas migrating at once), so look again.
    await client.query('ROLLBACK TO SAVEPOINT shadowlog_trigrams');
  }
  return find();
}

async function backfill(client: ClientBase, s: string): Promise<void> {
  let after: [string, number] = ['', -1];
  for (;;) {
    const { rows } = await client.query<{ session_id: string; seq: string; body: string }>(
      `SELECT session_id, seq, body FROM ${s}.events WHERE (session_id, seq) > ($1::text COLLATE "C", $2::bigint) ORDER BY session_id, seq LIMIT ${BACKFILL_PAGE}`,
      after,
    );
    if (rows.length === 0) return;
    const bySession = new Map<string, LogEvent[]>();
    for (const row of rows) {
      const list = bySession.get(row.session_id) ?? [];
      list.push(parseStoredEvent(row.session_id, Number(row.seq), row.body, 'the table'));
      bySession.set(row.session_id, list);
    }
    for (const [sessionId, events] of bySession) {
      const values = searchValues(events);
      await client.query(
        `WITH searched AS (
           INSERT INTO ${s}.search_rows (session_id, seq, kind, text)
           SELECT $1, part.seq, part.kind, part.text
           FROM unnest($2::bigint[], $3::text[], string_to_array($4, E'\\n')) WITH ORDINALITY AS part (seq, kind, text, n) ORDER BY part.n
         )
         INSERT INTO ${s}.search_shadowed (session_id, seq, by_seq)
         SELECT $1, shadowed.seq, shadowed.by_seq FROM unnest($5::bigint[], $6::bigint[]) AS shadowed (seq, by_seq)
         ON CONFLICT DO NOTHING`,
        [sessionId, ...values],
      );
    }
    const last = rows.at(-1) as { session_id: string; seq: string };
    after = [last.session_id, Number(last.seq)];
    if (rows.length < BACKFILL_PAGE) return;
  }
}

/**
 * What the search tables get for `events`: the parts' seqs, kinds and texts (one a line: search
 * text holds no line break), and the shadowed seqs with the seq of the event that shadowed each.
 */
export function searchValues(events: readonly LogEvent[]): [number[], string[], string, number[], number[]] {
  const seqs: number[] = [];
  const kinds: string[] = [];
  const texts: string[] = [];
  const shadowed: number[] = [];
  const shadowedBy: number[] = [];
  for (const event of events) {
    for (const part of searchParts(event)) {
      seqs.push(event.seq);
      kinds.push(part.kind);
      texts.push(part.text);
    }
    for (const seq of shadowedSeqsOf(event)) {
      shadowed.push(seq);
      shadowedBy.push(event.seq);
    }
  }
  return [seqs, kinds, texts.join('\n'), shadowed, shadowedBy];
}
