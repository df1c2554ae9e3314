// The SQLite store's fold checkpoints (schema version 2, append-only from version 3): rows of
// fold_checkpoints, never touching the events. A row is written once; writing the same one again
// is a no-op, and another at its seq is refused (CheckpointExistsError). A read-only store on an
// older file has no table: it lists no checkpoints.

import type Database from 'better-sqlite3';
import { CheckpointExistsError } from '../checkpoint-errors.js';
import type { CheckpointEntry, StoredCheckpoint } from '../log-store.js';

type Connection = Database.Database;
type EntryRow = [seq: number, digest: string, length: number];
type CheckpointRow = [digest: string, payload: string];
type StoredRow = [digest: string, same: 0 | 1];

export class CheckpointTable {
  private readonly listStatement: Database.Statement<[string], EntryRow> | undefined;
  private readonly readStatement: Database.Statement<[string, number], CheckpointRow> | undefined;
  private readonly writeStatement: Database.Statement<[string, number, string, string]> | undefined;
  private readonly storedStatement: Database.Statement<[string, string, string, number], StoredRow> | undefined;
  private readonly pruneStatement: Database.Statement<[string, string, number]> | undefined;

  constructor(db: Connection) {
    const present = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'fold_checkpoints'").get() !== undefined;
    if (!present) return;
    this.listStatement = db
      .prepare<[string], EntryRow>('SELECT seq, digest, length(payload) FROM fold_checkpoints WHERE session_id = ? ORDER BY seq DESC')
      .raw();
    this.readStatement = db
      .prepare<[string, number], CheckpointRow>('SELECT digest, payload FROM fold_checkpoints WHERE session_id = ? AND seq = ?')
      .raw();
    this.writeStatement = db.prepare('INSERT INTO fold_checkpoints (session_id, seq, digest, payload) VALUES (?, ?, ?, ?)');
    this.storedStatement = db
      .prepare<[string, string, string, number], StoredRow>(
        'SELECT digest, digest = ? AND payload = ? FROM fold_checkpoints WHERE session_id = ? AND seq = ?',
      )
      .raw();
    this.pruneStatement = db.prepare(
      `DELETE FROM fold_checkpoints WHERE session_id = ? AND seq NOT IN
         (SELECT seq FROM fold_checkpoints WHERE session_id = ? ORDER BY seq DESC LIMIT ?)`,
    );
  }

  /** Does the file have the table (schema version 2 or later)? */
  get present(): boolean {
    return this.listStatement !== undefined;
  }

  list(sessionId: string): CheckpointEntry[] {
    return (this.listStatement?.all(sessionId) ?? []).map(([seq, digest, length]) => ({ seq, digest, length }));
  }

  read(sessionId: string, seq: number): StoredCheckpoint | undefined {
    const row = this.readStatement?.get(sessionId, seq);
    return row === undefined ? undefined : { seq, digest: row[0], payload: row[1] };
  }

  /** Only on a writable store, which has the table; inside a write transaction. */
  write(location: string, sessionId: string, checkpoint: StoredCheckpoint): void {
    const { seq, digest, payload } = checkpoint;
    const stored = this.storedStatement?.get(digest, payload, sessionId, seq);
    if (stored !== undefined) {
      if (stored[1] === 1) return;
      throw new CheckpointExistsError(location, sessionId, seq, stored[0]);
    }
    this.writeStatement?.run(sessionId, seq, digest, payload);
  }

  prune(sessionId: string, keep: number): number {
    return this.pruneStatement?.run(sessionId, sessionId, keep).changes ?? 0;
  }
}
