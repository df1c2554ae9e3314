// The SQLite store's search index (schema version 4): an FTS5 table with the trigram tokenizer
// (case-insensitive, so a substring such as `src/csv.ts` inside a longer path is found), written
// in the same transaction as the events it indexes. It is contentless and keeps no positions
// (detail=none): it says which parts hold every trigram of the text, and the shared matcher
// checks each such candidate against its text, read back from the event's body. Measured on
// synthetic sessions (bench/search.bench.ts): a fifth of the size of an index with positions
// (detail=full), and 40 % less time to write, for candidates that are almost always hits. `search_rows` names each indexed part (session, seq, kind); `search_shadowed`
// notes which seqs a replacement shadowed, so a hit is placed without reading its session.

import type Database from 'better-sqlite3';
import type { LogEvent } from '../../log/event.js';
import { HitCollector, type SearchCandidate, turnStepOf } from '../search/search-hits.js';
import { shadowedSeqsOf } from '../search/search-place.js';
import { type CompiledSearch, compileSearch, type SearchQuery, type SearchResult } from '../search/search-query.js';
import { type SearchPart, searchParts } from '../search/search-text.js';
import { parseStoredEvent } from '../store-checks.js';

type Connection = Database.Database;

/** The message of the triggers that keep the search tables append-only. */
const SEARCH_APPEND_ONLY = 'shadowlog: the search index is append-only, as the log it indexes';

/** Schema version 4: the search tables, empty (the migration fills them from the events). */
export const SEARCH_TABLES_SQL = `
  CREATE TABLE search_rows (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL
  );
  CREATE INDEX search_rows_session ON search_rows (session_id, id);

  CREATE VIRTUAL TABLE search_text USING fts5(text, content = '', detail = none, tokenize = 'trigram');

  CREATE TABLE search_shadowed (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    by_seq INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
  ) WITHOUT ROWID;

  CREATE TRIGGER search_rows_no_update BEFORE UPDATE ON search_rows
  BEGIN SELECT RAISE(ABORT, '${SEARCH_APPEND_ONLY}'); END;
  CREATE TRIGGER search_rows_no_delete BEFORE DELETE ON search_rows
  BEGIN SELECT RAISE(ABORT, '${SEARCH_APPEND_ONLY}'); END;
  CREATE TRIGGER search_shadowed_no_update BEFORE UPDATE ON search_shadowed
  BEGIN SELECT RAISE(ABORT, '${SEARCH_APPEND_ONLY}'); END;
  CREATE TRIGGER search_shadowed_no_delete BEFORE DELETE ON search_shadowed
  BEGIN SELECT RAISE(ABORT, '${SEARCH_APPEND_ONLY}'); END;
`;

/** Events read per statement while the migration indexes a store's existing events. */
const BACKFILL_PAGE = 2000;
/** Candidates read per statement while searching. */
const SEARCH_PAGE = 256;

type Row = [id: number, sessionId: string, seq: number, kind: string, type: string, body: string, shadowedBy: number | null];

/** Writes and reads the search tables of one connection. */
export class SqliteSearchIndex {
  private readonly insertRow: Database.Statement<[string, number, string]>;
  private readonly insertText: Database.Statement<[number | bigint, string]>;
  private readonly insertShadowed: Database.Statement<[string, number, number]>;
  private readonly turnStatement: Database.Statement<[string, number], [number, string]>;

  constructor(private readonly db: Connection) {
    this.insertRow = db.prepare('INSERT INTO search_rows (session_id, seq, kind) VALUES (?, ?, ?)');
    this.insertText = db.prepare('INSERT INTO search_text (rowid, text) VALUES (?, ?)');
    this.insertShadowed = db.prepare('INSERT OR IGNORE INTO search_shadowed (session_id, seq, by_seq) VALUES (?, ?, ?)');
    this.turnStatement = db
      .prepare<[string, number], [number, string]>(
        "SELECT seq, body FROM events WHERE session_id = ? AND seq <= ? AND type IN ('turn/start', 'model/request') ORDER BY seq DESC LIMIT 1",
      )
      .raw();
  }

  /** Whether `db` has the search tables (schema version 4 or later). */
  static existsIn(db: Connection): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_rows'").get() !== undefined;
  }

  /** Indexes appended events; run it inside the transaction that inserts them. */
  add(sessionId: string, events: readonly LogEvent[]): void {
    for (const event of events) this.addParts(sessionId, event.seq, searchParts(event), shadowedSeqsOf(event));
  }

  addParts(sessionId: string, seq: number, parts: readonly SearchPart[], shadows: readonly number[]): void {
    for (const part of parts) this.insertText.run(this.insertRow.run(sessionId, seq, part.kind).lastInsertRowid, part.text);
    for (const shadowed of shadows) this.insertShadowed.run(sessionId, shadowed, seq);
  }

  /** Indexes every stored event, session by session (the migration to version 4 runs it in its transaction). */
  backfill(): void {
    const page = this.db
      .prepare<[string, number, number], [string, number, string]>(
        'SELECT session_id, seq, body FROM events WHERE (session_id, seq) > (?, ?) ORDER BY session_id, seq LIMIT ?',
      )
      .raw();
    let after: [string, number] = ['', -1];
    for (;;) {
      const rows = page.all(after[0], after[1], BACKFILL_PAGE);
      for (const [sessionId, seq, body] of rows) this.add(sessionId, [parseStoredEvent(sessionId, seq, body, 'the file')]);
      const last = rows.at(-1);
      if (last === undefined || rows.length < BACKFILL_PAGE) return;
      after = [last[0], last[1]];
    }
  }

  /** Runs `query`: candidates from the trigram index for a plain text of 3 characters or more, else every indexed part in order. */
  search(query: SearchQuery): SearchResult {
    const search = compileSearch(query);
    const collector = new HitCollector(search);
    const statement = this.db.prepare<unknown[], Row>(this.candidateSql(search)).raw();
    const filters: unknown[] = [];
    if (search.sessionId !== undefined) filters.push(search.sessionId);
    if (search.kinds !== undefined) filters.push(...search.kinds);
    const match = search.indexedText === undefined ? [] : [trigramQuery(search.indexedText)];
    let cached: { sessionId: string; seq: number; parts: SearchPart[] } | undefined;
    for (let after = 0; !collector.done; ) {
      const rows = statement.all(...match, after, ...filters, SEARCH_PAGE);
      for (const [id, sessionId, seq, kind, type, body, shadowedBy] of rows) {
        after = id;
        if (cached?.sessionId !== sessionId || cached.seq !== seq) {
          cached = { sessionId, seq, parts: searchParts(parseStoredEvent(sessionId, seq, body, 'the file')) };
        }
        const part = cached.parts.find((candidate) => candidate.kind === kind);
        if (part === undefined) continue;
        const candidate: SearchCandidate = { sessionId, seq, type, kind: part.kind, text: part.text, shadowedBy: shadowedBy ?? undefined };
        const hit = collector.offer(candidate);
        if (hit !== undefined) collector.placeInTurn(hit, this.turnStep(sessionId, seq));
        if (collector.done) break;
      }
      if (rows.length < SEARCH_PAGE) break;
    }
    return collector.result(search.indexedText === undefined ? 'scan' : 'index');
  }

  private candidateSql(search: CompiledSearch): string {
    const indexed = search.indexedText !== undefined;
    const where = [
      indexed ? 'search_text MATCH ? AND search_text.rowid > ?' : 'r.id > ?',
      ...(search.sessionId === undefined ? [] : ['r.session_id = ?']),
      ...(search.kinds === undefined ? [] : [`r.kind IN (${search.kinds.map(() => '?').join(', ')})`]),
    ];
    return `SELECT r.id, r.session_id, r.seq, r.kind, e.type, e.body, sh.by_seq
      FROM ${indexed ? 'search_text JOIN search_rows r ON r.id = search_text.rowid' : 'search_rows r'}
      JOIN events e ON e.session_id = r.session_id AND e.seq = r.seq
      LEFT JOIN search_shadowed sh ON sh.session_id = r.session_id AND sh.seq = r.seq
      WHERE ${where.join(' AND ')}
      ORDER BY ${indexed ? 'search_text.rowid' : 'r.id'} LIMIT ?`;
  }

  private turnStep(sessionId: string, seq: number): { turn?: number; step?: number } {
    const row = this.turnStatement.get(sessionId, seq);
    if (row === undefined) return {};
    return turnStepOf(parseStoredEvent(sessionId, row[0], row[1], 'the file')) ?? {};
  }
}

/** An FTS5 query for the rows that hold every trigram of `text` (in any order: detail=none keeps no positions). */
export function trigramQuery(text: string): string {
  const characters = [...text];
  const trigrams = new Set<string>();
  for (let index = 0; index + 3 <= characters.length; index++) trigrams.add(characters.slice(index, index + 3).join(''));
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' AND ');
}
