// The LogStore contract (SPEC §11): what every storage backend provides. One shared test
// suite (test/contract/log-store-contract.ts) runs against each backend.

import type { LogEvent } from '../log/event.js';
import type { ForkLink } from './branch-link.js';

export interface LogHead {
  /** The seq the next event will have; equal to the number of events. */
  readonly nextSeq: number;
  /** The hash of the last event. */
  readonly lastHash: string;
}

export interface StoredSession {
  readonly id: string;
  readonly events: number;
  /** The time of the session/start event. */
  readonly createdAt: string;
  /** The time of the last event. */
  readonly updatedAt: string;
  /** For a branch (SPEC §14): the session it forks and the seq it forks after; its events 0 … forkSeq are that session's. */
  readonly parent?: { readonly sessionId: string; readonly forkSeq: number };
}

export interface ReadRange {
  /** First seq to read (default 0). */
  readonly fromSeq?: number;
  /** Seq to stop before (default: the end of the log). */
  readonly toSeq?: number;
  /** Events per page (default 1,000). */
  readonly pageSize?: number;
}

/** A claim on a session: only its holder may write (SPEC §8). */
export interface Ownership {
  readonly sessionId: string;
  /** Says who holds the session, for the SessionBusyError of the next claimant. */
  readonly owner: string;
  release(): Promise<void>;
}

export interface AppendOptions {
  /** The seq the first event must get: the store's current next seq. A mismatch is a ConcurrencyError. */
  readonly expectedSeq: number;
}

/** Where sessions' events are kept (SPEC §4): append-only, by seq, with ownership of a session for one writer at a time. */
export interface LogStore {
  /** A short description of where the events live, e.g. `sqlite:/path/log.db`. */
  readonly location: string;

  /**
   * Appends sealed events atomically: all or none. The first must have seq `expectedSeq`
   * and the rest follow densely; `expectedSeq` must equal the session's next seq (0 creates
   * the session). Throws ConcurrencyError, writing nothing, when another writer got there first.
   */
  append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void>;

  /**
   * Appends a stream of batches as one transaction (used by import): if anything fails,
   * nothing of it is stored. Returns the number of events appended.
   */
  appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number>;

  /**
   * True when appendAll sends each batch to the database as soon as it has it, and reads the
   * next one from the source while the database writes it (a store on a server). SessionLog
   * then seals a long append in parts and streams them, so that sealing and writing overlap.
   */
  readonly overlapsAppendAll?: boolean;

  /** Reads events in seq order, a page at a time. Throws SessionNotFoundError for an unknown session. */
  read(sessionId: string, range?: ReadRange): AsyncIterable<readonly LogEvent[]>;

  /** One event. Throws SessionNotFoundError or SeqOutOfRangeError. */
  readEvent(sessionId: string, seq: number): Promise<LogEvent>;

  /** The session's head, or undefined when there is no such session. */
  head(sessionId: string): Promise<LogHead | undefined>;

  listSessions(): Promise<StoredSession[]>;

  /**
   * A branch's link to its parent (SPEC §14), as its session/fork names it; undefined for a
   * session that is not a branch. Throws SessionNotFoundError for an unknown session. Optional:
   * a store without it keeps no branches.
   */
  readForkLink?(sessionId: string): Promise<ForkLink | undefined>;

  /**
   * Claims the session for this process. Throws SessionBusyError while another live owner
   * holds it; an owner that died (even by SIGKILL) holds nothing. Reading needs no claim.
   */
  acquireOwnership(sessionId: string): Promise<Ownership>;

  /**
   * Optional: wakes a follower when the session may have new events, so that it need not poll
   * (followSession in follow.ts uses it; stores without it are polled). The first value comes
   * once the watch is in place, so that a caller who reads after it misses nothing; each later
   * one after one or more appends to the session. A value is a hint to read, never data: it may
   * stand for several appends. Ends when `signal` aborts; throws when it can no longer watch
   * (e.g. its connection was lost), and a follower then polls instead.
   */
  watch?(sessionId: string, signal: AbortSignal): AsyncIterable<void>;

  close(): Promise<void>;
}

/** A fold checkpoint as a store keeps it: its payload (log/fold-checkpoint.ts) and the digest written with it. */
export interface StoredCheckpoint {
  /** The seq it was taken at: the number of events folded. */
  readonly seq: number;
  /**
   * `hmac-sha256:<key id>:<mac>`: the HMAC-SHA256 of the payload under the writer's checkpoint key
   * (store/checkpoint-key.ts), which names the key by its id. Rows written before checkpoints were
   * keyed hold a bare SHA-256 hex digest; stores keep them, and readers prove nothing by them.
   */
  readonly digest: string;
  readonly payload: string;
}

/** One of a session's checkpoints, without its payload. */
export interface CheckpointEntry {
  readonly seq: number;
  readonly digest: string;
  /** The payload's length in characters. */
  readonly length: number;
}

/**
 * Optional, beside the LogStore contract: where a store keeps fold checkpoints (store/fold-checkpoints.ts),
 * derived data that is never part of the log. Checkpoints are append-only as events are: a stored
 * one is never changed or replaced, and only pruning deletes one, and only while a newer one of
 * its session is kept (the SQL stores hold every role to this with triggers). A reader uses none
 * it cannot prove with its checkpoint key and check against the log. Stores without it are always
 * read from seq 0.
 */
export interface CheckpointStore {
  /**
   * Stores `checkpoint`. The same checkpoint (digest and payload) stored again is a no-op, so a
   * retry is safe; another one at a seq the session has one at is refused with
   * CheckpointExistsError, keeping the stored one. Throws InvalidEventError for a digest not of
   * the keyed form, SessionNotFoundError for an unknown session, SeqOutOfRangeError for a seq past
   * its head (or 0), and on a read-only store its error.
   */
  writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void>;
  /** The session's checkpoints, newest first; none for a store whose schema predates them. */
  listCheckpoints(sessionId: string): Promise<CheckpointEntry[]>;
  /** The session's checkpoint at `seq`, or undefined. */
  readCheckpoint(sessionId: string, seq: number): Promise<StoredCheckpoint | undefined>;
  /** Deletes all but the newest `keep` (at least 1) checkpoints of the session; returns how many went. ConfigError for a `keep` below 1. */
  pruneCheckpoints(sessionId: string, keep: number): Promise<number>;
  /** The events at `seqs`, in the order given (restoring a checkpoint reads its surface nodes back). SeqOutOfRangeError for a seq not in the log. */
  readEventsAt(sessionId: string, seqs: readonly number[]): Promise<LogEvent[]>;
}

/** Does `store` keep fold checkpoints? */
export function hasCheckpoints(store: LogStore): store is LogStore & CheckpointStore {
  const candidate = store as Partial<CheckpointStore>;
  return typeof candidate.writeCheckpoint === 'function' && typeof candidate.readEventsAt === 'function';
}

export const DEFAULT_PAGE_SIZE = 1000;
