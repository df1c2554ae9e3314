// An in-memory LogStore, for tests and short-lived tools. Same contract as the durable ones.

import { ConcurrencyError, SeqOutOfRangeError, SessionBusyError, SessionNotFoundError } from '../../log/errors.js';
import type { LogEvent } from '../../log/event.js';
import { isSessionSeq } from '../../log/seq.js';
import { assertSessionId } from '../../log/session-id.js';
import { checkForkParent, expectNewSession, type ForkLink, firstOwnSeq, forkLinkOfBatch, readStitched } from '../branch-link.js';
import { CheckpointExistsError } from '../checkpoint-errors.js';
import type {
  AppendOptions,
  CheckpointEntry,
  CheckpointStore,
  LogHead,
  LogStore,
  Ownership,
  ReadRange,
  StoredCheckpoint,
  StoredSession,
} from '../log-store.js';
import type { SearchableStore, SearchQuery, SearchResult } from '../search/search-query.js';
import { checkAppendBatch, checkCheckpointWrite, checkKeep, resolveReadRange } from '../store-checks.js';
import { MemorySearch } from './memory-search.js';

let ownerCounter = 0;

/** What the handles of one memory store share, as connections share a database. */
interface MemoryData {
  /** Each session's own events: a branch's start at its fork seq + 1 (its prefix is its parent's). */
  readonly sessions: Map<string, LogEvent[]>;
  /** Each branch's link to its parent. */
  readonly links: Map<string, ForkLink>;
  readonly owners: Map<string, string>;
  /** Fold checkpoints by session, by seq. */
  readonly checkpoints: Map<string, Map<number, StoredCheckpoint>>;
  /** The events in append order, for search. */
  readonly search: MemorySearch;
}

/** A LogStore in memory, for tests and short-lived programs; everything is lost when the process ends. */
export class MemoryLogStore implements LogStore, CheckpointStore, SearchableStore {
  readonly location = 'memory:';
  private data: MemoryData = {
    sessions: new Map(),
    links: new Map(),
    owners: new Map(),
    checkpoints: new Map(),
    search: new MemorySearch(),
  };

  /**
   * Another handle on the same sessions, as a second connection is on a database: what one
   * appends the other reads, an append through either is checked against the same log, and
   * a session owned through one is busy for the other.
   */
  openHandle(): MemoryLogStore {
    const handle = new MemoryLogStore();
    handle.data = this.data;
    return handle;
  }

  private get sessions(): Map<string, LogEvent[]> {
    return this.data.sessions;
  }

  private get owners(): Map<string, string> {
    return this.data.owners;
  }

  async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    await this.checkNewBranch(sessionId, events, options.expectedSeq);
    this.appendNow(sessionId, events, options.expectedSeq);
  }

  async appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    assertSessionId(sessionId);
    const pending: LogEvent[] = [];
    for await (const batch of batches) {
      checkAppendBatch(sessionId, batch, options.expectedSeq + pending.length);
      pending.push(...batch);
    }
    await this.checkNewBranch(sessionId, pending, options.expectedSeq);
    this.appendNow(sessionId, pending, options.expectedSeq);
    return pending.length;
  }

  private appendNow(sessionId: string, events: readonly LogEvent[], expectedSeq: number): void {
    checkAppendBatch(sessionId, events, expectedSeq);
    const existing = this.sessions.get(sessionId);
    let link: ForkLink | undefined;
    if (existing === undefined) link = expectNewSession(sessionId, events, expectedSeq);
    else {
      const nextSeq = this.nextSeqOf(sessionId, existing);
      if (nextSeq !== expectedSeq) throw new ConcurrencyError(sessionId, expectedSeq, nextSeq);
    }
    if (events.length === 0) return;
    const log = existing ?? [];
    // Frozen deep copies: nothing outside the store can change a stored event.
    for (const event of events) log.push(deepFreeze(structuredClone(event)));
    this.sessions.set(sessionId, log);
    if (link !== undefined) this.data.links.set(sessionId, link);
    this.data.search.add(sessionId, events);
  }

  /** A batch that creates a branch: its parent must be here, with the event it forks after. */
  private async checkNewBranch(sessionId: string, events: readonly LogEvent[], expectedSeq: number): Promise<void> {
    assertSessionId(sessionId);
    if (this.sessions.has(sessionId)) return;
    const link = forkLinkOfBatch(events, expectedSeq);
    if (link === undefined) return;
    await checkForkParent(sessionId, link, async (parent, seq) => {
      const head = await this.head(parent);
      if (head === undefined) throw new SessionNotFoundError(parent);
      return seq < head.nextSeq ? this.readEvent(parent, seq) : undefined;
    });
  }

  /** The seq after a session's last event. */
  private nextSeqOf(sessionId: string, own: readonly LogEvent[]): number {
    return firstOwnSeq(this.data.links.get(sessionId)) + own.length;
  }

  /** The branch link of a session, or undefined for a session that is not a branch. SessionNotFoundError for an unknown one. */
  async readForkLink(sessionId: string): Promise<ForkLink | undefined> {
    this.requireLog(sessionId);
    return this.data.links.get(sessionId);
  }

  /** A session's whole log, its ancestors' prefix included (for search, which reads turns before a hit). */
  private wholeLog(sessionId: string): LogEvent[] {
    const own = this.sessions.get(sessionId) ?? [];
    const link = this.data.links.get(sessionId);
    if (link === undefined) return own;
    return [...this.wholeLog(link.parentSessionId).slice(0, link.forkSeq + 1), ...own];
  }

  /** Searches the events by reading each, in append order (SearchableStore). */
  async search(query: SearchQuery): Promise<SearchResult> {
    const logs = new Map<string, LogEvent[]>();
    for (const id of this.sessions.keys()) logs.set(id, this.wholeLog(id));
    return this.data.search.search(query, logs);
  }

  async *read(sessionId: string, range: ReadRange = {}): AsyncIterable<readonly LogEvent[]> {
    const log = this.requireLog(sessionId);
    const link = this.data.links.get(sessionId);
    const ownFrom = firstOwnSeq(link);
    const { fromSeq, endSeq, pageSize } = resolveReadRange(range, ownFrom + log.length);
    const readOwn = async function* (from: number, to: number): AsyncIterable<readonly LogEvent[]> {
      for (let at = from; at < to; at += pageSize) yield log.slice(at - ownFrom, Math.min(at + pageSize, to) - ownFrom);
    };
    if (link === undefined) yield* readOwn(fromSeq, endSeq);
    else
      yield* readStitched(
        fromSeq,
        endSeq,
        ownFrom,
        (from, to) => this.read(link.parentSessionId, { fromSeq: from, toSeq: to, pageSize }),
        readOwn,
      );
  }

  async readEvent(sessionId: string, seq: number): Promise<LogEvent> {
    const log = this.requireLog(sessionId);
    const link = this.data.links.get(sessionId);
    const ownFrom = firstOwnSeq(link);
    if (link !== undefined && isSessionSeq(seq) && seq < ownFrom) return this.readEvent(link.parentSessionId, seq);
    const event = isSessionSeq(seq) ? log[seq - ownFrom] : undefined;
    if (event === undefined) throw new SeqOutOfRangeError(seq, ownFrom + log.length);
    return event;
  }

  async head(sessionId: string): Promise<LogHead | undefined> {
    assertSessionId(sessionId);
    const log = this.sessions.get(sessionId);
    const last = log?.[log.length - 1];
    return log === undefined || last === undefined ? undefined : { nextSeq: this.nextSeqOf(sessionId, log), lastHash: last.hash };
  }

  async listSessions(): Promise<StoredSession[]> {
    return [...this.sessions.entries()]
      .map(([id, log]) => {
        const link = this.data.links.get(id);
        return {
          id,
          events: this.nextSeqOf(id, log),
          createdAt: (log[0] as LogEvent).time,
          updatedAt: (log[log.length - 1] as LogEvent).time,
          ...(link === undefined ? {} : { parent: { sessionId: link.parentSessionId, forkSeq: link.forkSeq } }),
        };
      })
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async acquireOwnership(sessionId: string): Promise<Ownership> {
    assertSessionId(sessionId);
    const holder = this.owners.get(sessionId);
    if (holder !== undefined) throw new SessionBusyError(sessionId, holder);
    const owner = `memory owner ${++ownerCounter} (pid ${process.pid})`;
    this.owners.set(sessionId, owner);
    return {
      sessionId,
      owner,
      release: async () => {
        if (this.owners.get(sessionId) === owner) this.owners.delete(sessionId);
      },
    };
  }

  async close(): Promise<void> {}

  async writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void> {
    const log = this.requireLog(sessionId);
    checkCheckpointWrite(checkpoint, this.nextSeqOf(sessionId, log));
    const { seq, digest, payload } = checkpoint;
    const kept = this.data.checkpoints.get(sessionId) ?? new Map<number, StoredCheckpoint>();
    // Append-only, as the SQL stores' triggers hold theirs: the same one again is a retry, another is refused.
    const stored = kept.get(seq);
    if (stored !== undefined) {
      if (stored.digest === digest && stored.payload === payload) return;
      throw new CheckpointExistsError(this.location, sessionId, seq, stored.digest);
    }
    kept.set(seq, { seq, digest, payload });
    this.data.checkpoints.set(sessionId, kept);
  }

  async listCheckpoints(sessionId: string): Promise<CheckpointEntry[]> {
    this.requireLog(sessionId);
    const kept = [...(this.data.checkpoints.get(sessionId)?.values() ?? [])];
    return kept.sort((a, b) => b.seq - a.seq).map(({ seq, digest, payload }) => ({ seq, digest, length: payload.length }));
  }

  async readCheckpoint(sessionId: string, seq: number): Promise<StoredCheckpoint | undefined> {
    this.requireLog(sessionId);
    const found = this.data.checkpoints.get(sessionId)?.get(seq);
    return found === undefined ? undefined : { ...found };
  }

  async pruneCheckpoints(sessionId: string, keep: number): Promise<number> {
    checkKeep(keep);
    const entries = await this.listCheckpoints(sessionId);
    const kept = this.data.checkpoints.get(sessionId);
    for (const entry of entries.slice(keep)) kept?.delete(entry.seq);
    return Math.max(0, entries.length - keep);
  }

  async readEventsAt(sessionId: string, seqs: readonly number[]): Promise<LogEvent[]> {
    this.requireLog(sessionId);
    const events: LogEvent[] = [];
    for (const seq of seqs) events.push(await this.readEvent(sessionId, seq));
    return events;
  }

  private requireLog(sessionId: string): LogEvent[] {
    assertSessionId(sessionId);
    const log = this.sessions.get(sessionId);
    if (log === undefined) throw new SessionNotFoundError(sessionId);
    return log;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
