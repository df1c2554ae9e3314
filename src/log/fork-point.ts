// Fork points (SPEC §14): a branch may start after any event that leaves a sendable surface.
// The fold checks a session/fork against its link here, and SessionLog.fork names the nearest
// valid seqs of a refused point from the same rule.

import { InvalidEventError } from './errors.js';
import type { LogEvent } from './event.js';
import { appliedDataOf } from './event-data.js';

/** What a fork point needs of the fold that has applied the events up to it. */
export interface ForkPointFold {
  readonly nextSeq: number;
  readonly lastHash: string;
  pendingToolCalls(): ReadonlyArray<{ readonly callId: string; readonly callSeq: number }>;
  unclaimedMeteringEvents(): ReadonlyArray<{ readonly seq: number; readonly type: string }>;
}

/** Why a branch cannot fork after the events `fold` has applied; undefined when it can. */
export function forkPointProblem(fold: ForkPointFold): string | undefined {
  if (fold.nextSeq === 0) return 'a branch forks after an event, and the session has none';
  const pending = fold.pendingToolCalls();
  if (pending.length > 0) {
    const calls = pending.map(({ callId, callSeq }) => `${JSON.stringify(callId)} (seq ${callSeq})`).join(', ');
    return `it would leave the tool call${pending.length === 1 ? '' : 's'} ${calls} without ${pending.length === 1 ? 'its result' : 'their results'}`;
  }
  const meters = fold.unclaimedMeteringEvents();
  if (meters.length > 0) {
    const listed = meters.map(({ seq, type }) => `${type} (seq ${seq})`).join(', ');
    return `it would separate ${listed} from the replacement written with it`;
  }
  return undefined;
}

/** Checks a session/fork against the fold before it: its seq, its parent's hash, and a sendable fork point. */
export function checkForkEvent(event: LogEvent, fold: ForkPointFold): void {
  const { seq } = event;
  const data = appliedDataOf(event, 'session/fork');
  if (data.forkSeq !== seq - 1) {
    throw new InvalidEventError('data.forkSeq', `${seq - 1} (a session/fork stands right after its fork point)`, String(data.forkSeq), seq);
  }
  if (data.parentHash !== fold.lastHash) {
    throw new InvalidEventError(
      'data.parentHash',
      `the hash of event ${data.forkSeq} of session ${data.parentSessionId}, ${fold.lastHash.slice(0, 12)}… (the parent changed after the fork, or the branch names the wrong parent)`,
      `${data.parentHash.slice(0, 12)}…`,
      seq,
    );
  }
  const problem = forkPointProblem(fold);
  if (problem !== undefined) throw new InvalidEventError('data.forkSeq', 'a fork point that leaves a sendable surface', problem, seq);
}
