// The statements the PostgreSQL store runs on its events, with its schema filled in, and the
// parameters of its inserts. Named, so that each is prepared once per connection.

import type { QueryConfig } from 'pg';
import { InvalidEventError } from '../../log/errors.js';
import type { LogEvent } from '../../log/event.js';
import { canonicalEventJson } from '../../log/event-json.js';
import { quoteSchema } from './schema.js';
import { searchValues } from './search-schema.js';

/** The SQL of the store's statements, with its schema filled in. Names make them prepared once per connection. */
export function statements(schema: string) {
  const s = quoteSchema(schema);
  const named = (name: string, text: string) => ({ name: `shadowlog.${schema}.${name}`, text });
  return {
    head: named('head', `SELECT seq, hash FROM ${s}.events WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`),
    // Each insert writes the search index of its events too (search-schema.ts): one statement, one
    // transaction, so an event is never stored without its index, nor indexed without being stored.
    insertOne: named(
      'insert-one',
      `WITH appended AS (INSERT INTO ${s}.events (session_id, seq, type, hash, body) VALUES ($1, $2, $3, $4, $5))
       ${indexing(s, 6)}`,
    ),
    // One statement for a whole batch. The seqs run from $2 (the store checked that they are
    // dense); types and hashes come as arrays, and the bodies as one text, one body a line:
    // canonical JSON never holds a raw line break, and splitting one text costs the server and
    // pg far less than an array of bodies, every quote of which is escaped in the array literal.
    insertMany: named(
      'insert-many',
      `WITH appended AS (
         INSERT INTO ${s}.events (session_id, seq, type, hash, body)
         SELECT $1, $2::bigint + batch.n - 1, batch.type, batch.hash, batch.body
         FROM unnest($3::text[], $4::text[], string_to_array($5, E'\\n')) WITH ORDINALITY AS batch (type, hash, body, n)
       )
       ${indexing(s, 6)}`,
    ),
    page: named('page', `SELECT body FROM ${s}.events WHERE session_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq LIMIT $4`),
    event: named('event', `SELECT body FROM ${s}.events WHERE session_id = $1 AND seq = $2`),
    hash: named('hash', `SELECT hash FROM ${s}.events WHERE session_id = $1 AND seq = $2`),
    eventsAt: named('events-at', `SELECT seq, body FROM ${s}.events WHERE session_id = $1 AND seq = ANY($2::bigint[])`),
    listCheckpoints: named(
      'list-checkpoints',
      `SELECT seq, digest, length(payload) AS length FROM ${s}.fold_checkpoints WHERE session_id = $1 ORDER BY seq DESC`,
    ),
    readCheckpoint: named('read-checkpoint', `SELECT digest, payload FROM ${s}.fold_checkpoints WHERE session_id = $1 AND seq = $2`),
    // Checkpoints are append-only: a row at the seq is kept. `inserted` says whether this one went
    // in; if not, `stored` is the kept one's digest and `same` whether it is this very checkpoint
    // (a retry after a lost connection). The outer query's snapshot does not see the new row.
    writeCheckpoint: named(
      'write-checkpoint',
      `WITH inserted AS (
         INSERT INTO ${s}.fold_checkpoints (session_id, seq, digest, payload) VALUES ($1::text, $2::bigint, $3::text, $4::text)
         ON CONFLICT (session_id, seq) DO NOTHING RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM inserted) AS inserted, stored.digest AS stored,
         stored.digest = $3::text AND stored.payload = $4::text AS same
       FROM (SELECT 1) AS one
       LEFT JOIN ${s}.fold_checkpoints stored ON stored.session_id = $1::text AND stored.seq = $2::bigint`,
    ),
    pruneCheckpoints: named(
      'prune-checkpoints',
      `DELETE FROM ${s}.fold_checkpoints WHERE session_id = $1 AND seq NOT IN
         (SELECT seq FROM ${s}.fold_checkpoints WHERE session_id = $1 ORDER BY seq DESC LIMIT $2)`,
    ),
    // The time is the second-last key of a canonical body, so it is read from the body's end
    // (no JSON parse, which PostgreSQL also refuses for text holding \u0000); a body written
    // otherwise by raw SQL falls back to the parse.
    forkLink: named('fork-link', `SELECT parent_id, fork_seq, parent_hash FROM ${s}.session_forks WHERE session_id = $1`),
    insertForkLink: named(
      'insert-fork-link',
      `INSERT INTO ${s}.session_forks (session_id, parent_id, fork_seq, parent_hash) VALUES ($1, $2, $3, $4)`,
    ),
    // Sessions (seq 0) and branches (their first own event, at fork seq + 1), with each branch's link.
    sessionsWithForks: named(
      'sessions-with-forks',
      `SELECT * FROM (
       SELECT first.session_id AS id, ${timeOf('first.body')} AS created_at, last.seq AS last_seq, ${timeOf('last.body')} AS updated_at,
         NULL::text AS parent_id, NULL::bigint AS fork_seq
       FROM ${s}.events first
       CROSS JOIN LATERAL (
         SELECT seq, body FROM ${s}.events WHERE session_id = first.session_id ORDER BY seq DESC LIMIT 1
       ) last
       WHERE first.seq = 0
       UNION ALL
       SELECT fork.session_id, ${timeOf('first.body')}, last.seq, ${timeOf('last.body')}, fork.parent_id, fork.fork_seq
       FROM ${s}.session_forks fork
       JOIN ${s}.events first ON first.session_id = fork.session_id AND first.seq = fork.fork_seq + 1
       CROSS JOIN LATERAL (
         SELECT seq, body FROM ${s}.events WHERE session_id = fork.session_id ORDER BY seq DESC LIMIT 1
       ) last
       ) listed
       ORDER BY id COLLATE "C"`,
    ),
    sessions: named(
      'sessions',
      `SELECT first.session_id AS id, ${timeOf('first.body')} AS created_at, last.seq AS last_seq, ${timeOf('last.body')} AS updated_at
       FROM ${s}.events first
       CROSS JOIN LATERAL (
         SELECT seq, body FROM ${s}.events WHERE session_id = first.session_id ORDER BY seq DESC LIMIT 1
       ) last
       WHERE first.seq = 0
       ORDER BY first.session_id COLLATE "C"`,
    ),
  };
}

export type Statements = ReturnType<typeof statements>;

/** The rest of an insert statement that writes the search index, from parameter $first on (searchValues' five). */
function indexing(s: string, first: number): string {
  const [seqs, kinds, texts, shadowed, shadowedBy] = [0, 1, 2, 3, 4].map((offset) => `$${first + offset}`);
  return `, searched AS (
         INSERT INTO ${s}.search_rows (session_id, seq, kind, text)
         SELECT $1, part.seq, part.kind, part.text
         FROM unnest(${seqs}::bigint[], ${kinds}::text[], string_to_array(${texts}, E'\\n')) WITH ORDINALITY AS part (seq, kind, text, n)
         ORDER BY part.n
       )
       INSERT INTO ${s}.search_shadowed (session_id, seq, by_seq)
       SELECT $1, shadowed.seq, shadowed.by_seq FROM unnest(${shadowed}::bigint[], ${shadowedBy}::bigint[]) AS shadowed (seq, by_seq)
       ON CONFLICT DO NOTHING`;
}

/** SQL for the `time` of the event whose body is `body`. */
function timeOf(body: string): string {
  return `coalesce(substring(${body} from '"time":"([^"\\\\]*)","type":"(?:[^"\\\\]|\\\\.)*"}$'), ${body}::json ->> 'time')`;
}

/** The parameters of the insertMany statement: the first seq, the types and hashes, and the bodies one a line. */
export function insertValues(sessionId: string, events: readonly LogEvent[]): [string, number, string[], string[], string] {
  const types: string[] = [];
  const hashes: string[] = [];
  const bodies: string[] = [];
  for (const event of events) {
    types.push(event.type);
    hashes.push(event.hash);
    const body = canonicalEventJson(event);
    // Canonical JSON escapes every control character; a body with a line break was not written by it.
    if (body.includes('\n'))
      throw new InvalidEventError('body', 'canonical JSON (which holds no raw line break)', 'a raw line break', event.seq);
    bodies.push(body);
  }
  return [sessionId, (events[0] as LogEvent).seq, types, hashes, bodies.join('\n')];
}

/** The one statement that inserts `events` (at least one): insertOne for one event, insertMany for more. */
export function insertQuery(sql: Statements, sessionId: string, events: readonly LogEvent[]): QueryConfig {
  const [first] = events;
  if (events.length === 1 && first !== undefined) {
    return { ...sql.insertOne, values: [sessionId, first.seq, first.type, first.hash, canonicalEventJson(first), ...searchValues(events)] };
  }
  return { ...sql.insertMany, values: [...insertValues(sessionId, events), ...searchValues(events)] };
}
