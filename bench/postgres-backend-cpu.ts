// CPU time the server's backends spent for one pool, to tell the server's share of an append
// from the client's: the backends are found by the pool's application_name in
// pg_stat_activity and their user + system time read from /proc/<pid>/stat. Works when the
// server runs on this Linux machine in the same pid namespace; otherwise every reading is
// undefined and the tables print n/a.

import { readFileSync } from 'node:fs';
import type { Pool } from 'pg';

/** /proc reports times in USER_HZ ticks, which Linux fixes at 100 per second. */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds per backend pid. */
export type BackendCpuSample = ReadonlyMap<number, number>;

/** A distinct application_name for a pool of this run, at most 63 bytes as PostgreSQL keeps. */
export function benchApplicationName(label: string): string {
  return `shadowlog bench ${process.pid} ${label}`.slice(0, 63);
}

function cpuOfProcess(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) return undefined;
    // Fields after the command: state is field 3, utime 14, stime 15.
    const fields = stat.slice(close + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The CPU time so far of every backend whose application_name is `applicationName`. */
export async function sampleBackendCpu(admin: Pool, applicationName: string): Promise<BackendCpuSample | undefined> {
  const result = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName]);
  const sample = new Map<number, number>();
  for (const { pid } of result.rows) {
    const ms = cpuOfProcess(pid);
    if (ms === undefined) return undefined;
    sample.set(pid, ms);
  }
  return sample;
}

/** Backend CPU milliseconds between two samples; a backend that appeared in between counts from its start. */
export function backendCpuBetween(before: BackendCpuSample | undefined, after: BackendCpuSample | undefined): number | undefined {
  if (before === undefined || after === undefined) return undefined;
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
