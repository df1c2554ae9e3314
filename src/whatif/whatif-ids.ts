// The ids of what-if sessions: `<audited>.whatif-<request seq>-<n>` for the first request of the
// n-th what-if of that call, `.2`, `.3`, … for more counterfactual samples, and `.recorded-1`, …
// for the recorded request sent again. The audited id is cut so that the longest fits the
// 128-character limit of a session id.

import type { LogStore } from '../store/log-store.js';
import type { AuditedCall } from './audited-session.js';

const MAX_BASE = 72;

/** For each call, its sessions' ids: the counterfactual samples (at least one), then the recorded ones (one per sample). */
export async function whatIfSessionIds(
  store: LogStore,
  sessionId: string,
  calls: ReadonlyArray<Pick<AuditedCall, 'seq'>>,
  samples: number,
  /** `whatif`, or `probe` for the probe sessions of `tune --probe` (`<audited>.probe-<seq>-<n>`). */
  kind: 'whatif' | 'probe' = 'whatif',
): Promise<string[][]> {
  const taken = new Set((await store.listSessions()).map((session) => session.id));
  const base = sessionId.length > MAX_BASE ? sessionId.slice(0, MAX_BASE) : sessionId;
  return calls.map((call) => {
    const prefix = `${base}.${kind}-${call.seq}-`;
    let n = 1;
    while (taken.has(`${prefix}${n}`)) n++;
    const run = `${prefix}${n}`;
    taken.add(run);
    const ids = [run];
    for (let sample = 2; sample <= samples; sample++) ids.push(`${run}.${sample}`);
    for (let sample = 1; sample <= samples; sample++) ids.push(`${run}.recorded-${sample}`);
    return ids;
  });
}
