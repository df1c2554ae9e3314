// Branches in a store (SPEC §14): a branch keeps only its own events, from its session/fork at
// seq forkSeq + 1; its events 0 … forkSeq are read from its parent (and its parent's ancestors in
// turn), never copied. What every backend shares: the link a batch opens with, the checks made
// before a branch is created, and reads that stitch the parent's prefix to the branch's own.

import { ConcurrencyError, SessionNotFoundError, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { dataOf } from '../log/event-data.js';

/** A branch's link to its parent, as its session/fork names it. */
export interface ForkLink {
  readonly parentSessionId: string;
  readonly forkSeq: number;
  readonly parentHash: string;
}

/** A branch whose parent is missing from the store, or does not hold the event the branch forks after, with that hash. */
export class ForkParentError extends ShadowlogError {
  readonly sessionId: string;
  readonly parentSessionId: string;
  readonly forkSeq: number;
  constructor(sessionId: string, link: ForkLink, found: string) {
    super(
      'FORK_PARENT_MISMATCH',
      `branch ${sessionId} forks session ${link.parentSessionId} after seq ${link.forkSeq} (hash ${link.parentHash.slice(0, 12)}…), but ${found}; a branch is created only on the parent it names, and nothing was written`,
    );
    this.sessionId = sessionId;
    this.parentSessionId = link.parentSessionId;
    this.forkSeq = link.forkSeq;
  }
}

/**
 * The link a batch opens a branch with: its first event is a session/fork at `expectedSeq`.
 * Undefined for any other batch. The data is validated (a malformed session/fork is an InvalidEventError).
 */
export function forkLinkOfBatch(events: readonly LogEvent[], expectedSeq: number): ForkLink | undefined {
  const first = events[0];
  if (first === undefined || first.type !== 'session/fork' || first.seq !== expectedSeq) return undefined;
  const { parentSessionId, forkSeq, parentHash } = dataOf(first, 'session/fork');
  return { parentSessionId, forkSeq, parentHash };
}

/** The seq of a session's first own event: 0, or a branch's forkSeq + 1. */
export function firstOwnSeq(link: ForkLink | undefined): number {
  return link === undefined ? 0 : link.forkSeq + 1;
}

/**
 * The next seq a session that has no events yet takes from a batch: 0, or for a batch that
 * opens a branch, the seq after its fork point. Throws ConcurrencyError when the batch expects
 * another (a branch batch whose fork seq does not lead to its own seq).
 */
export function expectNewSession(sessionId: string, events: readonly LogEvent[], expectedSeq: number): ForkLink | undefined {
  const link = expectedSeq === 0 ? undefined : forkLinkOfBatch(events, expectedSeq);
  if (expectedSeq !== 0 && (link === undefined || link.forkSeq + 1 !== expectedSeq)) throw new ConcurrencyError(sessionId, expectedSeq, 0);
  return link;
}

/** Checks, before a branch is created, that its parent is in `store` and holds the event it forks after, with its hash. */
export async function checkForkParent(
  sessionId: string,
  link: ForkLink,
  readParentEvent: (parentSessionId: string, seq: number) => Promise<LogEvent | undefined>,
): Promise<void> {
  if (link.parentSessionId === sessionId) throw new ForkParentError(sessionId, link, 'a session cannot be its own parent');
  let event: LogEvent | undefined;
  try {
    event = await readParentEvent(link.parentSessionId, link.forkSeq);
  } catch (error) {
    if (SessionNotFoundError.isInstance(error))
      throw new ForkParentError(sessionId, link, `this store has no session ${link.parentSessionId}`);
    throw error;
  }
  if (event === undefined) throw new ForkParentError(sessionId, link, `session ${link.parentSessionId} has no event ${link.forkSeq}`);
  if (event.hash !== link.parentHash) {
    throw new ForkParentError(sessionId, link, `its event ${link.forkSeq} has hash ${event.hash.slice(0, 12)}…`);
  }
}

/**
 * Reads seqs [fromSeq, endSeq) of a session whose own events start at `ownFrom`, a page at a
 * time: those below it from the parent (`readParent`, itself a full read of the parent, so
 * that a parent's ancestors are read in turn), the rest from its own (`readOwn`).
 */
export async function* readStitched(
  fromSeq: number,
  endSeq: number,
  ownFrom: number,
  readParent: (fromSeq: number, toSeq: number) => AsyncIterable<readonly LogEvent[]>,
  readOwn: (fromSeq: number, toSeq: number) => AsyncIterable<readonly LogEvent[]>,
): AsyncIterable<readonly LogEvent[]> {
  if (fromSeq < Math.min(ownFrom, endSeq)) yield* readParent(fromSeq, Math.min(ownFrom, endSeq));
  if (endSeq > Math.max(ownFrom, fromSeq)) yield* readOwn(Math.max(ownFrom, fromSeq), endSeq);
}
