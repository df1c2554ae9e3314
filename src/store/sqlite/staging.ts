// Where appendAll puts a stream of batches while it reads and checks them: a table in the
// connection's TEMP database, which takes no lock on the store's file. A slow input (an import
// reading stdin, a copy reading another store) so never holds the write lock that every other
// writer needs; the events move into the log in one short write transaction at the end. Memory
// stays at about one batch: SQLite keeps the table in its page cache and spills it to a
// temporary file, which costs disk the size of the input until the connection closes.

import type Database from 'better-sqlite3';
import type { LogEvent } from '../../log/event.js';
import { shadowedSeqsOf } from '../search/search-place.js';
import { searchParts } from '../search/search-text.js';

export class Staging {
  private nextStream = 0;
  /** Streams whose appendAll failed: their rows are deleted when the next stream opens. */
  private abandoned: number[] = [];
  private readonly addTransaction: Database.Transaction<(stream: number, events: readonly LogEvent[], bodies: readonly string[]) => void>;
  private readonly moveStatement: Database.Statement<[string, number]>;
  private readonly discardStatement: Database.Statement<[number]>;
  /** The search index's parts of each stream's events, numbered in order from 1 (moveInto gives them ids after the last). */
  private readonly searchOrdinals = new Map<number, number>();
  private readonly lastSearchId: Database.Statement<[], number>;
  private readonly moveSearchStatements: readonly Database.Statement<unknown[]>[];
  private readonly discardSearchStatements: readonly Database.Statement<[number]>[];

  constructor(db: Database.Database) {
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_events (
      stream INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      hash TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (stream, seq)
    ) WITHOUT ROWID`);
    // What the search index gets (search-index.ts), computed here, outside the write lock.
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_search (
      stream INTEGER NOT NULL,
      ordinal INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      kind TEXT NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (stream, ordinal)
    ) WITHOUT ROWID;
    CREATE TEMP TABLE IF NOT EXISTS staged_shadowed (
      stream INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      by_seq INTEGER NOT NULL
    )`);
    const insert = db.prepare<[number, number, string, string, string]>(
      'INSERT INTO temp.staged_events (stream, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)',
    );
    const insertPart = db.prepare<[number, number, number, string, string]>(
      'INSERT INTO temp.staged_search (stream, ordinal, seq, kind, text) VALUES (?, ?, ?, ?, ?)',
    );
    const insertShadowed = db.prepare<[number, number, number]>('INSERT INTO temp.staged_shadowed (stream, seq, by_seq) VALUES (?, ?, ?)');
    // A deferred transaction that touches only the TEMP database: the store's file is not locked.
    this.addTransaction = db.transaction((stream: number, events: readonly LogEvent[], bodies: readonly string[]) => {
      let ordinal = this.searchOrdinals.get(stream) ?? 0;
      for (let index = 0; index < events.length; index++) {
        const event = events[index] as LogEvent;
        insert.run(stream, event.seq, event.type, event.hash, bodies[index] as string);
        for (const part of searchParts(event)) insertPart.run(stream, ++ordinal, event.seq, part.kind, part.text);
        for (const seq of shadowedSeqsOf(event)) insertShadowed.run(stream, seq, event.seq);
      }
      this.searchOrdinals.set(stream, ordinal);
    });
    // The parts take the ids after the last indexed one, in order, and the same rowids in the text index.
    this.lastSearchId = db.prepare<[], number>('SELECT coalesce(max(id), 0) FROM main.search_rows').pluck();
    this.moveSearchStatements = [
      db.prepare(
        'INSERT INTO main.search_text (rowid, text) SELECT @base + ordinal, text FROM temp.staged_search WHERE stream = @stream ORDER BY ordinal',
      ),
      db.prepare(
        'INSERT INTO main.search_rows (id, session_id, seq, kind) SELECT @base + ordinal, @session, seq, kind FROM temp.staged_search WHERE stream = @stream ORDER BY ordinal',
      ),
      db.prepare(
        'INSERT OR IGNORE INTO main.search_shadowed (session_id, seq, by_seq) SELECT @session, seq, by_seq FROM temp.staged_shadowed WHERE stream = @stream',
      ),
    ];
    this.discardSearchStatements = [
      db.prepare('DELETE FROM temp.staged_search WHERE stream = ?'),
      db.prepare('DELETE FROM temp.staged_shadowed WHERE stream = ?'),
    ];
    this.moveStatement = db.prepare(
      `INSERT INTO main.events (session_id, seq, type, hash, body)
       SELECT ?, seq, type, hash, body FROM temp.staged_events WHERE stream = ? ORDER BY seq`,
    );
    this.discardStatement = db.prepare('DELETE FROM temp.staged_events WHERE stream = ?');
  }

  /** A new stream, kept apart from any other appendAll running on the same connection. */
  open(): number {
    while (this.abandoned.length > 0) {
      this.discard(this.abandoned[0] as number);
      this.abandoned.shift();
    }
    return this.nextStream++;
  }

  add(stream: number, events: readonly LogEvent[], bodies: readonly string[]): void {
    this.addTransaction(stream, events, bodies);
  }

  /** Moves the stream's events into the log; run it inside the store's write transaction. */
  moveInto(sessionId: string, stream: number): void {
    this.moveStatement.run(sessionId, stream);
    const base = this.lastSearchId.get() ?? 0;
    const [text, rows, shadowed] = this.moveSearchStatements as [
      Database.Statement<unknown[]>,
      Database.Statement<unknown[]>,
      Database.Statement<unknown[]>,
    ];
    text.run({ base, stream });
    rows.run({ base, stream, session: sessionId });
    shadowed.run({ stream, session: sessionId });
    this.discard(stream);
  }

  private discard(stream: number): void {
    this.discardStatement.run(stream);
    for (const statement of this.discardSearchStatements) statement.run(stream);
    this.searchOrdinals.delete(stream);
  }

  /** Gives up a stream without touching the database. */
  abandon(stream: number): void {
    this.abandoned.push(stream);
  }
}
