// @ts-check
// The SQLite store's checkpoint thread: a connection of its own, on a worker thread, that copies
// the write-ahead log back into the database file (PRAGMA wal_checkpoint(PASSIVE)) when the
// store asks, so that no append waits for it (wal-checkpointer.ts drives it). A PASSIVE
// checkpoint takes no write lock: writers and readers go on meanwhile. The store asks through
// shared memory, not messages: an agent appending in a tight loop may not give its event loop a
// turn for a long time, and the thread must not wait for one. Plain JavaScript, so that it runs
// as it is from the source tree and from dist/ alike; it needs only the driver.

import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

// The slots of the shared Int32Array; wal-checkpointer.ts has the same list.
const REQUESTED = 0;
const DONE = 1;
const STATE = 2;
/** The frames in the log when the last checkpoint ran, copied or not. */
const LOG_FRAMES = 3;
// STATE: 0 while starting, READY, FAILED, or 3 once the store says to stop.
const READY = 1;
const FAILED = 2;

/** @typedef {{ readonly file: string, readonly dev: number, readonly ino: number, readonly shared: SharedArrayBuffer }} CheckpointData */

const { file, dev, ino, shared } = /** @type {CheckpointData} */ (workerData);
const slots = new Int32Array(shared);

/** @param {number} state */
function setState(state) {
  Atomics.store(slots, STATE, state);
  Atomics.notify(slots, STATE);
}

/** @param {unknown} error */
function fail(error) {
  const message =
    error instanceof Database.SqliteError ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);
  parentPort?.postMessage({ kind: 'failed', message });
  setState(FAILED);
}

/** @type {Database.Database | undefined} */
let db;
try {
  db = new Database(file, { fileMustExist: true });
  // The store's file, not another moved to its path since: checkpointing that one would leave
  // the store's log growing.
  const found = statSync(file);
  if (found.dev !== dev || found.ino !== ino) throw new Error(`${file} is no longer the store's file (it was moved or replaced)`);
  setState(READY);
} catch (error) {
  fail(error);
}

let done = Atomics.load(slots, DONE);
while (db !== undefined && Atomics.load(slots, STATE) === READY) {
  // Sleeps until the store asks for more than has been done, or says to stop.
  Atomics.wait(slots, REQUESTED, done);
  if (Atomics.load(slots, STATE) !== READY) break;
  const requested = Atomics.load(slots, REQUESTED);
  if (requested === done) continue;
  try {
    const [row] = /** @type {{ busy: number, log: number, checkpointed: number }[]} */ (db.pragma('wal_checkpoint(PASSIVE)'));
    if (row === undefined) throw new Error('PRAGMA wal_checkpoint returned no row');
    Atomics.store(slots, LOG_FRAMES, row.log);
  } catch (error) {
    fail(error);
    break;
  }
  done = requested;
  Atomics.store(slots, DONE, done);
  Atomics.notify(slots, DONE);
}
db?.close();
