// How the SQLite store waits for another connection's write lock. SQLite lets one connection
// write at a time; a writer that finds the lock taken must wait for it, not fail: a running
// agent beside a big import or copy should pause for as long as that takes. SQLite's own busy
// wait blocks the event loop, so each attempt waits only LOCK_ATTEMPT_MS inside SQLite; between
// attempts the event loop runs. Once a write has waited `lockNoticeMs` the caller is told (once),
// and only after `lockTimeoutMs` does it give up with StoreLockTimeoutError.

import Database from 'better-sqlite3';
import { ConfigError } from '../../log/errors.js';
import { formatDuration, StoreLockTimeoutError } from './errors.js';

/** How long one attempt waits inside SQLite (its busy_timeout) before the event loop gets a turn. */
export const LOCK_ATTEMPT_MS = 100;
/** How long a write waits for the lock before it gives up, unless the store is told otherwise. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10 * 60_000;
/** How long a write waits before onLockWait is told, unless the store is told otherwise. */
export const DEFAULT_LOCK_NOTICE_MS = 5_000;
/** The pause between attempts, so that a wait never spins. */
const PAUSE_MS = 5;

/** A write that has been waiting for another connection's lock for `lockNoticeMs` and goes on waiting. */
export interface LockWait {
  readonly location: string;
  /** What is waiting, e.g. `appending events`, `claiming the session`. */
  readonly action: string;
  readonly waitedMs: number;
  /** When it will give up: the store's lockTimeoutMs (Infinity: never). */
  readonly timeoutMs: number;
  /** One line for a person, e.g. for stderr. */
  readonly message: string;
}

export interface LockWaitOptions {
  /**
   * How long a write (or an open that must create or migrate the schema) waits for another
   * connection's write lock before it fails with StoreLockTimeoutError. Default 10 minutes;
   * `Infinity` waits for as long as it takes.
   */
  readonly lockTimeoutMs?: number;
  /** How long a write waits before onLockWait is told. Default 5 s. */
  readonly lockNoticeMs?: number;
  /** Told once per write that has waited `lockNoticeMs` and is still waiting. */
  readonly onLockWait?: (wait: LockWait) => void;
}

export class LockWaiter {
  readonly timeoutMs: number;
  readonly noticeMs: number;
  /** The busy_timeout of the connection: one attempt's wait inside SQLite. */
  readonly attemptMs: number;
  private readonly onLockWait: ((wait: LockWait) => void) | undefined;

  constructor(
    readonly location: string,
    options: LockWaitOptions = {},
  ) {
    this.timeoutMs = checkDuration('lockTimeoutMs', options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS);
    this.noticeMs = checkDuration('lockNoticeMs', options.lockNoticeMs ?? DEFAULT_LOCK_NOTICE_MS);
    if (options.onLockWait !== undefined && typeof options.onLockWait !== 'function') {
      throw new ConfigError('onLockWait', `onLockWait must be a function, found ${typeof options.onLockWait}`);
    }
    this.onLockWait = options.onLockWait;
    this.attemptMs = Math.min(LOCK_ATTEMPT_MS, this.timeoutMs);
  }

  /**
   * Runs `work` (one statement, or one whole transaction, which SQLite leaves undone when it
   * finds the lock taken) until it gets past SQLITE_BUSY. `beforeAttempt` runs before each try,
   * e.g. to refuse a store that was closed meanwhile.
   */
  async run<T>(action: string, work: () => T, beforeAttempt: () => void = () => {}): Promise<T> {
    const started = performance.now();
    let told = false;
    for (;;) {
      beforeAttempt();
      try {
        return work();
      } catch (error) {
        if (!isBusy(error)) throw error;
        const waitedMs = performance.now() - started;
        if (waitedMs >= this.timeoutMs) throw new StoreLockTimeoutError(this.location, action, waitedMs, this.timeoutMs, { cause: error });
        if (!told && waitedMs >= this.noticeMs && this.onLockWait !== undefined) {
          told = true;
          this.onLockWait(this.describe(action, waitedMs));
        }
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    }
  }

  private describe(action: string, waitedMs: number): LockWait {
    const limit = Number.isFinite(this.timeoutMs) ? `for up to ${formatDuration(this.timeoutMs)} in all` : 'for as long as it takes';
    return {
      location: this.location,
      action,
      waitedMs,
      timeoutMs: this.timeoutMs,
      message: `${this.location}: ${action} has waited ${formatDuration(waitedMs)} for the write lock, which another connection holds (an import, a copy or another agent writing); still waiting, ${limit}`,
    };
  }
}

export function isBusy(error: unknown): boolean {
  return error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY');
}

function checkDuration(key: string, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new ConfigError(key, `${key} must be a number of milliseconds of at least 0 (Infinity: no limit), found ${String(value)}`);
  }
  return value;
}
