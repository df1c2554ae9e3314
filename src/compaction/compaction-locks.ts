// The compaction locks a session's log holds open (SPEC §7): a compaction/start with no
// compaction/end since the latest session/end-seed or session/fork. What `unlock` reads before it ends them.

import type { LogEvent } from '../log/event.js';
import { CompactionSessionState } from './session-state.js';

/** An open compaction: its id and the seq of its compaction/start. */
export interface OpenCompaction {
  readonly compactionId: string;
  readonly startSeq: number;
}

/** Follows a session's events in seq order and says which compactions are open after them. */
export interface CompactionLockTracker {
  /** Give it every event of the session, in seq order (e.g. as SessionLog.open's `observe`). */
  observe(event: LogEvent): void;
  /** The compactions open after the events observed so far, oldest first. */
  openCompactions(): readonly OpenCompaction[];
}

/** A tracker of the compaction locks a session's log holds open. */
export function trackCompactionLocks(): CompactionLockTracker {
  const state = new CompactionSessionState();
  return {
    observe: (event) => state.observe(event),
    openCompactions: () => [...state.openCompactions.entries()].map(([compactionId, startSeq]) => ({ compactionId, startSeq })),
  };
}
