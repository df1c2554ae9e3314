// Checkpoints of the SQLite store's write-ahead log, off the path of large appends. In WAL mode
// SQLite copies the log back into the database file itself, inside the commit that takes the log
// past 1,000 pages: that append waits for the copy and for an fsync of the database file. A
// commit of LARGE_COMMIT_BYTES or more (a batch) runs without it once the store's checkpoint
// thread (checkpoint-thread.mjs) is running, and each ~4 MiB such commits write, the store asks
// the thread for a PASSIVE checkpoint (no lock taken: appends and reads go on). Smaller commits
// (single events, a turn's few) keep SQLite's own checkpoints: for them a thread would only let
// the log grow, and each commit into a growing file costs more than the checkpoint it saves.
//
// SQLite starts the log over from its beginning only when a write begins after a checkpoint
// that copied all of it; a checkpoint running beside a writer that never pauses leaves the last
// frames behind every time, and the log would grow without end. So once the thread reports a
// log longer than WAL_LIMIT_BYTES, the store's own connection copies what is left right after a
// commit (little: what was written while the thread copied the rest), and the next write starts
// the log over. While the thread is behind (a request unfinished with the log past
// WAL_LIMIT_BYTES since), large commits keep SQLite's checkpoints too. If the thread cannot start
// or fails, every commit does, and the failure is kept (SqliteLogStore.backgroundCheckpointError)
// and told once, as a process warning: no append fails for it.
//
// The store and the thread talk through shared memory, checked at each large commit: an agent
// that appends in a tight loop may give its event loop no turn for a long time, and neither side
// must wait for one.

import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { messageOf } from '../../log/errors.js';
import { StoreError } from './errors.js';

/** About SQLite's own threshold (1,000 pages of 4 KiB), in bytes written to the log. */
export const CHECKPOINT_AFTER_BYTES = 4 * 1024 * 1024;
/** A commit with at least this many bytes of bodies leaves its checkpoint to the thread. */
export const LARGE_COMMIT_BYTES = 256 * 1024;
/** A log longer than this, as the thread last saw it, is finished by the store's own connection (see above). */
export const WAL_LIMIT_BYTES = 8 * CHECKPOINT_AFTER_BYTES;
/** What a commit adds to the log beyond its bodies, in pages: the leaf it ended on, often an inner page or two. */
const PAGES_PER_COMMIT = 2;
/** SQLite's default wal_autocheckpoint, which every commit but a large one the thread takes keeps. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;
/** How often idle() looks whether the thread is done. */
const IDLE_POLL_MS = 1;
/** How long close waits for a checkpoint in flight before it stops the thread anyway. */
const STOP_WAIT_MS = 10_000;

// The slots of the shared Int32Array; checkpoint-thread.mjs has the same list.
const REQUESTED = 0;
const DONE = 1;
const STATE = 2;
const LOG_FRAMES = 3;
const SLOTS = 4;
const STARTING = 0;
const READY = 1;
const FAILED = 2;
const STOPPING = 3;

export class WalCheckpointer {
  private thread: Worker | undefined;
  private slots: Int32Array | undefined;
  /** True while the thread is behind: large commits keep SQLite's own checkpoints. */
  private behind = false;
  /** Bytes written to the log (estimated) since the last checkpoint was asked for. */
  private sinceRequested = 0;
  /** The DONE count last seen. */
  private seenDone = 0;
  /** Set when the thread saw a log past WAL_LIMIT_BYTES: the store's connection finishes it after its next commit. */
  private finishLog = false;
  private readonly pageSize: number;
  private failure: StoreError | undefined;
  /** What the thread said when it failed; its message may come after its state says so. */
  private failureDetail: string | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    this.pageSize = db.pragma('page_size', { simple: true }) as number;
  }

  /** Why the thread stopped checkpointing, if it did; SQLite's own checkpoints took over then. */
  get error(): StoreError | undefined {
    this.guarded(() => this.poll());
    return this.failure;
  }

  /** The checkpoints the thread has finished. */
  get completed(): number {
    return this.slots === undefined ? 0 : Atomics.load(this.slots, DONE);
  }

  /**
   * Runs `transaction`, a write of `bytes` of bodies that commits when it returns. A large one
   * commits without SQLite's checkpoint while the thread can take it, and may then ask the thread
   * for one. What goes wrong with checkpoints never fails the write: it hands them back to SQLite.
   */
  commit(bytes: number, transaction: () => void): void {
    if (bytes < LARGE_COMMIT_BYTES || this.failure !== undefined || this.stopped) {
      transaction();
      return;
    }
    let takenOver = false;
    this.guarded(() => {
      if (this.poll() && !this.behind) {
        this.db.pragma('wal_autocheckpoint = 0');
        takenOver = true;
      }
    });
    try {
      transaction();
    } finally {
      if (takenOver) this.guarded(() => this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`));
    }
    this.sinceRequested += bytes + PAGES_PER_COMMIT * this.pageSize;
    if (this.sinceRequested >= CHECKPOINT_AFTER_BYTES) this.guarded(() => this.afterThreshold());
  }

  private afterThreshold(): void {
    const slots = this.slots;
    if (slots === undefined) {
      this.start();
      return;
    }
    if (!this.poll()) return;
    if (Atomics.load(slots, REQUESTED) !== this.seenDone) {
      // Only one checkpoint runs at a time. A thread this far behind (slow, stuck or gone
      // without a word) leaves large commits to SQLite's own checkpoints until it reports again.
      if (this.sinceRequested >= WAL_LIMIT_BYTES) this.behind = true;
      return;
    }
    if (this.finishLog) {
      // No transaction is open on this connection and it is the one that writes: this copies
      // everything left, and the next write starts the log over.
      this.finishLog = false;
      this.sinceRequested = 0;
      this.db.pragma('wal_checkpoint(PASSIVE)');
      return;
    }
    this.sinceRequested = 0;
    Atomics.add(slots, REQUESTED, 1);
    Atomics.notify(slots, REQUESTED);
  }

  /** Resolves once no checkpoint is starting or running. */
  async idle(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    const slots = this.slots;
    if (slots === undefined) return;
    while (!this.stopped && this.failure === undefined && performance.now() < deadline) {
      const state = Atomics.load(slots, STATE);
      if (state === READY ? Atomics.load(slots, DONE) === Atomics.load(slots, REQUESTED) : state !== STARTING) break;
      await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
    }
    this.guarded(() => this.poll());
  }

  /**
   * Waits for a checkpoint in flight (at most STOP_WAIT_MS: a checkpoint cut short is safe) and
   * stops the thread; the store's connection is closed after.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    await this.idle(performance.now() + STOP_WAIT_MS);
    this.stopped = true;
    const thread = this.thread;
    const slots = this.slots;
    if (thread === undefined || slots === undefined) return;
    Atomics.store(slots, STATE, STOPPING);
    // Wakes the thread whichever slot it sleeps on.
    Atomics.add(slots, REQUESTED, 1);
    Atomics.notify(slots, REQUESTED);
    thread.removeAllListeners('exit');
    thread.removeAllListeners('error');
    await thread.terminate();
  }

  private start(): void {
    const slots = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
    // The thread checks that the path still names this file, not one moved there since.
    const { dev, ino } = statSync(this.file);
    const thread = new Worker(new URL('./checkpoint-thread.mjs', import.meta.url), {
      workerData: { file: this.file, dev, ino, shared: slots.buffer },
    });
    this.thread = thread;
    this.slots = slots;
    thread.on('message', (message: { kind: string; message: string }) => {
      if (message.kind !== 'failed') return;
      this.failureDetail = message.message;
      this.guarded(() => this.poll());
    });
    thread.on('error', (error) => this.fail(`it failed: ${error.message}`));
    thread.on('exit', (code) => {
      if (!this.stopped) this.fail(`it exited with code ${code}`);
    });
    // After the listeners, which would ref it again: the thread never keeps the process alive
    // (a checkpoint cut short is safe, and close waits for one in flight).
    thread.unref();
  }

  /** Takes in what the thread did since; false while it cannot take a request (starting, failed, stopped). */
  private poll(): boolean {
    const slots = this.slots;
    if (slots === undefined || this.failure !== undefined || this.stopped) return false;
    const state = Atomics.load(slots, STATE);
    if (state === FAILED) {
      this.fail(this.failureDetail ?? 'it could not open the file or a checkpoint failed');
      return false;
    }
    if (state !== READY) return false;
    const done = Atomics.load(slots, DONE);
    if (done !== this.seenDone) {
      this.seenDone = done;
      this.behind = false;
      // -1 when the checkpoint could not run (another connection was checkpointing): no news.
      if (Atomics.load(slots, LOG_FRAMES) * this.pageSize > WAL_LIMIT_BYTES) this.finishLog = true;
    }
    return true;
  }

  /** Runs `work`; what it throws hands checkpoints back to SQLite instead of reaching the write that called. */
  private guarded(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      this.fail(`the store's connection could not manage checkpoints: ${messageOf(error)}`, error);
    }
  }

  private fail(reason: string, cause?: unknown): void {
    if (this.failure !== undefined || this.stopped) return;
    const detail = this.failureDetail === undefined || reason.includes(this.failureDetail) ? reason : `${reason} (${this.failureDetail})`;
    this.failure = new StoreError(
      `sqlite:${this.file}`,
      `the checkpoint thread stopped: ${detail}; SQLite checkpoints inside every commit again, and the log is intact`,
      cause === undefined ? {} : { cause },
    );
    process.emitWarning(`shadowlog: ${this.failure.message}`, { code: 'SHADOWLOG_WAL_CHECKPOINT_THREAD_FAILED' });
    try {
      // A failure between turning SQLite's checkpoints off for a commit and back on must not leave them off.
      if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    } catch (error) {
      process.emitWarning(`shadowlog: sqlite:${this.file}: turning SQLite's own checkpoints back on failed: ${messageOf(error)}`, {
        code: 'SHADOWLOG_WAL_CHECKPOINT_THREAD_FAILED',
      });
    }
    const thread = this.thread;
    if (thread !== undefined) {
      thread.removeAllListeners('exit');
      thread.terminate().catch((error: unknown) => {
        process.emitWarning(`shadowlog: sqlite:${this.file}: stopping the checkpoint thread failed: ${messageOf(error)}`, {
          code: 'SHADOWLOG_WAL_CHECKPOINT_THREAD_FAILED',
        });
      });
    }
  }
}
