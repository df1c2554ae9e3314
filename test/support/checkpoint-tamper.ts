// Fold checkpoints as a test needs them beyond what a writer leaves: the key this test file's
// checkpoints are proven with (checkpoint-key-setup.ts gives each file its own), a payload MACed
// under it (a key holder's bug), and a row rewritten in an SQLite file as the file's owner can,
// past the append-only triggers.

import Database from 'better-sqlite3';
import { type CheckpointKey, checkpointDigest, checkpointKeyPath, loadCheckpointKeyFile } from '../../src/store/checkpoint-key.js';
import type { StoredCheckpoint } from '../../src/store/log-store.js';

/** The key this test file's checkpoints are written and proven under (created on first use). */
export function testCheckpointKey(): CheckpointKey {
  return loadCheckpointKeyFile(checkpointKeyPath());
}

/** A checkpoint of `payload` at `seq` whose digest is a MAC under the test key, as a writer holding the key would store it. */
export function keyedCheckpoint(seq: number, payload: string, key: CheckpointKey = testCheckpointKey()): StoredCheckpoint {
  return { seq, digest: checkpointDigest(key, payload), payload };
}

/** The SQLite file a `sqlite:` location names. */
export function sqliteFileOf(location: string): string {
  if (!location.startsWith('sqlite:')) throw new Error(`not an SQLite store: ${location}`);
  return location.slice('sqlite:'.length);
}

/**
 * Rewrites the checkpoint row of `sessionId` at `seq` in the SQLite file, as whoever can write the
 * file can: dropping the append-only triggers first, when there are any.
 */
export function rewriteSqliteCheckpoint(file: string, sessionId: string, seq: number, row: { digest?: string; payload?: string }): void {
  const db = new Database(file);
  try {
    for (const trigger of ['fold_checkpoints_no_update', 'fold_checkpoints_no_overwrite', 'fold_checkpoints_prune_only'])
      db.exec(`DROP TRIGGER IF EXISTS ${trigger}`);
    const changed = db
      .prepare('UPDATE fold_checkpoints SET digest = coalesce(?, digest), payload = coalesce(?, payload) WHERE session_id = ? AND seq = ?')
      .run(row.digest ?? null, row.payload ?? null, sessionId, seq).changes;
    if (changed !== 1) throw new Error(`no checkpoint of ${sessionId} at seq ${seq} to rewrite`);
  } finally {
    db.close();
  }
}
