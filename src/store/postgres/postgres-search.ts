// The PostgreSQL store's search: candidates from search_rows in id (append) order, by the trigram
// index for a plain text of 3 characters or more (ILIKE, which the index answers exactly), else
// every row that the session and kind filters leave; the shared matcher then decides each hit.
// Rows appended while a search runs may or may not be among its candidates.

import type { QueryConfig, QueryResultRow } from 'pg';
import { HitCollector, turnStepOf } from '../search/search-hits.js';
import { compileSearch, type SearchQuery, type SearchResult } from '../search/search-query.js';
import type { SearchKind } from '../search/search-text.js';
import { parseStoredEvent } from '../store-checks.js';
import { quoteSchema } from './schema.js';

/** Runs one reading statement (the store's, which retries on another connection when one is lost). */
export type ReadQuery = <R extends QueryResultRow>(action: string, config: QueryConfig) => Promise<R[]>;

/** Candidates read per statement. */
const SEARCH_PAGE = 256;
/** The first id window searched; each that comes up short is followed by one twice as wide. */
const FIRST_WINDOW = 4096n;

interface CandidateRow {
  id: string;
  session_id: string;
  seq: string;
  kind: SearchKind;
  text: string;
  type: string;
  by_seq: string | null;
}

export async function searchPostgres(read: ReadQuery, schema: string, query: SearchQuery): Promise<SearchResult> {
  const search = compileSearch(query);
  const s = quoteSchema(schema);
  const collector = new HitCollector(search);
  const filters: string[] = [];
  const values: unknown[] = [];
  const parameter = (value: unknown) => {
    values.push(value);
    return `$${values.length + 2}`;
  };
  if (search.indexedText !== undefined) filters.push(`text ILIKE ${parameter(`%${search.indexedText.replace(/[\\%_]/g, '\\$&')}%`)}`);
  if (search.sessionId !== undefined) filters.push(`session_id = ${parameter(search.sessionId)}`);
  if (search.kinds !== undefined) filters.push(`kind = ANY(${parameter(search.kinds)}::text[])`);
  // Candidates are read in id windows that double while they come up short: a common word fills
  // the first window and costs one small scan, where one bitmap scan of the whole trigram index
  // would recheck every row that holds it; a rare path costs a few index lookups. Events and
  // shadows are joined to the page only.
  const text = `SELECT r.id, r.session_id, r.seq, r.kind, r.text, e.type, sh.by_seq
    FROM (
      SELECT id, session_id, seq, kind, text FROM ${s}.search_rows
      WHERE id > $1 AND id <= $2 ${filters.map((filter) => `AND ${filter}`).join(' ')}
      ORDER BY id LIMIT ${SEARCH_PAGE}
    ) r
    JOIN ${s}.events e ON e.session_id = r.session_id AND e.seq = r.seq
    LEFT JOIN ${s}.search_shadowed sh ON sh.session_id = r.session_id AND sh.seq = r.seq
    ORDER BY r.id`;
  const [last] = await read<{ id: string | null }>('searching', { text: `SELECT max(id) AS id FROM ${s}.search_rows` });
  const lastId = BigInt(last?.id ?? '0');
  let window = FIRST_WINDOW;
  for (let after = 0n, upper = window; after < lastId && !collector.done; ) {
    const rows = await read<CandidateRow>('searching', { text, values: [after.toString(), upper.toString(), ...values] });
    for (const row of rows) {
      const seq = Number(row.seq);
      const shadowedBy = row.by_seq === null ? undefined : Number(row.by_seq);
      const hit = collector.offer({ sessionId: row.session_id, seq, type: row.type, kind: row.kind, text: row.text, shadowedBy });
      if (hit !== undefined) collector.placeInTurn(hit, await turnStep(read, s, row.session_id, seq));
      if (collector.done) break;
    }
    if (rows.length === SEARCH_PAGE) after = BigInt((rows.at(-1) as CandidateRow).id);
    else {
      after = upper;
      window *= 2n;
      upper = after + window;
    }
  }
  return collector.result(search.indexedText === undefined ? 'scan' : 'index');
}

async function turnStep(read: ReadQuery, s: string, sessionId: string, seq: number): Promise<{ turn?: number; step?: number }> {
  const [row] = await read<{ seq: string; body: string }>('searching', {
    text: `SELECT seq, body FROM ${s}.events WHERE session_id = $1 AND seq <= $2 AND type IN ('turn/start', 'model/request') ORDER BY seq DESC LIMIT 1`,
    values: [sessionId, seq],
  });
  if (row === undefined) return {};
  return turnStepOf(parseStoredEvent(sessionId, Number(row.seq), row.body, 'the table')) ?? {};
}
