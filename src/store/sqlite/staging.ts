// Where appendAll puts a stream of batches while it reads and checks them: a table in the
// connection's TEMP database, which takes no lock on the store's file. A slow input (an import
// reading stdin, a copy reading another store) so never holds the write lock that every other
// writer needs; the events move into the log in one short write transaction at the end. Memory
// stays at about one batch: SQLite keeps the table in its page cache and spills it to a
// temporary file, which costs disk the size of the input until the connection closes.

import type Database from 'better-sqlite3';
import type { LogEvent } from '../../log/event.js';

export class Staging {
  private nextStream = 0;
  /** Streams whose appendAll failed: their rows are deleted when the next stream opens. */
  private abandoned: number[] = [];
  private readonly addTransaction: Database.Transaction<(stream: number, events: readonly LogEvent[], bodies: readonly string[]) => void>;
  private readonly moveStatement: Database.Statement<[string, number]>;
  private readonly discardStatement: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS staged_events (
      stream INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      type TEXT NOT NULL,
      hash TEXT NOT NULL,
      body TEXT NOT NULL,
      PRIMARY KEY (stream, seq)
    ) WITHOUT ROWID`);
    const insert = db.prepare<[number, number, string, string, string]>(
      'INSERT INTO temp.staged_events (stream, seq, type, hash, body) VALUES (?, ?, ?, ?, ?)',
    );
    // A deferred transaction that touches only the TEMP database: the store's file is not locked.
    this.addTransaction = db.transaction((stream: number, events: readonly LogEvent[], bodies: readonly string[]) => {
      for (let index = 0; index < events.length; index++) {
        const event = events[index] as LogEvent;
        insert.run(stream, event.seq, event.type, event.hash, bodies[index] as string);
      }
    });
    this.moveStatement = db.prepare(
      `INSERT INTO main.events (session_id, seq, type, hash, body)
       SELECT ?, seq, type, hash, body FROM temp.staged_events WHERE stream = ? ORDER BY seq`,
    );
    this.discardStatement = db.prepare('DELETE FROM temp.staged_events WHERE stream = ?');
  }

  /** A new stream, kept apart from any other appendAll running on the same connection. */
  open(): number {
    while (this.abandoned.length > 0) {
      this.discardStatement.run(this.abandoned[0] as number);
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
    this.discardStatement.run(stream);
  }

  /** Gives up a stream without touching the database. */
  abandon(stream: number): void {
    this.abandoned.push(stream);
  }
}
