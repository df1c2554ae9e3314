// Session ownership for the SQLite store (SPEC §8): an owner record per session whose holder's
// liveness is checked, so that a process killed with SIGKILL does not hold a session forever.
//
// A record names a process by pid, host and start time. On the same host the pid must be alive
// and its start time (from /proc/<pid>/stat) must match, which guards against a reused pid;
// where /proc is not available, a live pid is enough. A record from another host cannot be
// checked from here and always counts as alive: sharing a file across machines needs the
// owner there to release it.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { SessionBusyError } from '../../log/errors.js';

export interface OwnerRecord {
  readonly sessionId: string;
  readonly token: string;
  readonly pid: number;
  readonly host: string;
  /** Boot id and start time of the process, or null where /proc could not tell. */
  readonly processStart: string | null;
  readonly acquiredAt: string;
}

/** Who holds a session, as a SessionBusyError shows it. */
export function describeOwner(record: Pick<OwnerRecord, 'pid' | 'host' | 'acquiredAt'>): string {
  return `pid ${record.pid} on host ${record.host} since ${record.acquiredAt}`;
}

/**
 * The owner records of one connection. Each method is one write transaction that SQLite undoes
 * whole when it finds the lock taken, so the store runs it through its lock wait (lock-wait.ts):
 * a claim beside a long writer waits for the lock rather than failing.
 */
export class OwnerTable {
  private readonly claimTransaction: Database.Transaction<(sessionId: string) => OwnerRecord>;
  private readonly releaseStatement: Database.Statement<[string, string]>;

  constructor(db: Database.Database) {
    const select = db.prepare<[string], OwnerRecord>(
      `SELECT session_id AS sessionId, token, pid, host, process_start AS processStart, acquired_at AS acquiredAt
       FROM owners WHERE session_id = ?`,
    );
    const replace = db.prepare<[string, string, number, string, string | null, string]>(
      'INSERT OR REPLACE INTO owners (session_id, token, pid, host, process_start, acquired_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.releaseStatement = db.prepare('DELETE FROM owners WHERE session_id = ? AND token = ?');
    this.claimTransaction = db.transaction((sessionId: string) => {
      const holder = select.get(sessionId);
      // Our own pid is alive too, so a second claim from this process is refused here as well.
      if (holder !== undefined && isOwnerAlive(holder)) throw new SessionBusyError(sessionId, describeOwner(holder));
      const record: OwnerRecord = { sessionId, token: randomUUID(), ...currentProcess(), acquiredAt: new Date().toISOString() };
      replace.run(sessionId, record.token, record.pid, record.host, record.processStart, record.acquiredAt);
      return record;
    });
  }

  /** Claims the session, replacing the record of a dead owner. Throws SessionBusyError. */
  claim(sessionId: string): OwnerRecord {
    return this.claimTransaction.immediate(sessionId);
  }

  /** Deletes the record only if it is still ours: a later owner's claim is left alone. */
  release(sessionId: string, token: string): void {
    this.releaseStatement.run(sessionId, token);
  }
}

/** Whether the process a record names may still be running. */
export function isOwnerAlive(record: Pick<OwnerRecord, 'pid' | 'host' | 'processStart'>): boolean {
  if (record.host !== hostname()) return true;
  if (!isPidAlive(record.pid)) return false;
  const status = readProcessStatus(record.pid);
  // A zombie has exited; only its parent has not collected it yet.
  if (status?.state === 'Z') return false;
  if (record.processStart === null || status === undefined) return true;
  return status.start === record.processStart;
}

function isPidAlive(pid: number): boolean {
  // 0 and negative pids name process groups, not a process: such a record is damaged.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let thisProcess: Pick<OwnerRecord, 'pid' | 'host' | 'processStart'> | undefined;

function currentProcess(): Pick<OwnerRecord, 'pid' | 'host' | 'processStart'> {
  thisProcess ??= { pid: process.pid, host: hostname(), processStart: readProcessStatus(process.pid)?.start ?? null };
  return thisProcess;
}

let bootId: string | null | undefined;

/** The state and start of a process from /proc, or undefined where that cannot be read. */
export function readProcessStatus(pid: number): { state: string; start: string } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2, the command name, is in parentheses and may hold spaces or ')' itself, so the
  // fields are counted from after the last ')': field 3 (state) first, field 22 (starttime) 20th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTime = fields[19];
  if (state === undefined || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  // Start times count clock ticks since boot; the boot id keeps them apart across reboots.
  bootId ??= readBootId();
  return { state, start: bootId === null ? startTime : `${bootId}/${startTime}` };
}

function readBootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}
