// The SQLite store of a command that may write, when its file does not exist yet: the file is
// created by the first write, so that a command that fails before writing anything (an import of
// a file it cannot read, a compact of a session that is not there) leaves no empty store behind.
// Until then, reads see an empty store, unless the file has appeared meanwhile (another process
// created it), and then they read it.
//
// Nothing is ever removed: a file that appeared after the command started may be someone else's
// new store, and only creating it late is free of that race. A first write that streams
// (appendAll: import, copy) is read whole before the file is created, so that a source that fails
// part-way (a corrupt line, a missing trailer) leaves no file either; it is one session's events,
// which import holds in memory anyway. A write that fails inside SQLite itself, once the file is
// made, leaves the new file, as any store keeps what it has.

import { existsSync } from 'node:fs';
import type { LogEvent } from '../log/index.js';
import {
  type AppendOptions,
  type CheckpointEntry,
  type CheckpointStore,
  type ForkLink,
  type LogHead,
  type LogStore,
  MemoryLogStore,
  type Ownership,
  type ReadRange,
  type StoredCheckpoint,
  type StoredSession,
} from '../store/index.js';

type FullStore = LogStore & CheckpointStore;

export class CreateOnWriteStore implements FullStore {
  private opened: Promise<FullStore> | undefined;
  private readonly empty = new MemoryLogStore();

  constructor(
    private readonly file: string,
    readonly location: string,
    private readonly open: () => Promise<FullStore>,
  ) {}

  /** Whether the first write has created (or found) the file. */
  get created(): boolean {
    return this.opened !== undefined;
  }

  async append(sessionId: string, events: readonly LogEvent[], options: AppendOptions): Promise<void> {
    return (await this.real()).append(sessionId, events, options);
  }

  async appendAll(sessionId: string, batches: AsyncIterable<readonly LogEvent[]>, options: AppendOptions): Promise<number> {
    if (this.opened !== undefined || existsSync(this.file)) return (await this.real()).appendAll(sessionId, batches, options);
    // Read the source whole first: if it fails, the file is never created.
    const read: (readonly LogEvent[])[] = [];
    for await (const batch of batches) read.push(batch);
    return (await this.real()).appendAll(sessionId, fromList(read), options);
  }

  async *read(sessionId: string, range?: ReadRange): AsyncIterable<readonly LogEvent[]> {
    yield* (await this.reader()).read(sessionId, range);
  }

  async readEvent(sessionId: string, seq: number): Promise<LogEvent> {
    return (await this.reader()).readEvent(sessionId, seq);
  }

  async head(sessionId: string): Promise<LogHead | undefined> {
    return (await this.reader()).head(sessionId);
  }

  async listSessions(): Promise<StoredSession[]> {
    return (await this.reader()).listSessions();
  }

  async readForkLink(sessionId: string): Promise<ForkLink | undefined> {
    // Both stores it reads (the empty one, the file's) keep branches.
    return (await this.reader()).readForkLink?.(sessionId);
  }

  /** A claim is a write (SQLite keeps owners in a table): it creates the file. */
  async acquireOwnership(sessionId: string): Promise<Ownership> {
    return (await this.real()).acquireOwnership(sessionId);
  }

  async writeCheckpoint(sessionId: string, checkpoint: StoredCheckpoint): Promise<void> {
    return (await this.real()).writeCheckpoint(sessionId, checkpoint);
  }

  async listCheckpoints(sessionId: string): Promise<CheckpointEntry[]> {
    return (await this.reader()).listCheckpoints(sessionId);
  }

  async readCheckpoint(sessionId: string, seq: number): Promise<StoredCheckpoint | undefined> {
    return (await this.reader()).readCheckpoint(sessionId, seq);
  }

  async pruneCheckpoints(sessionId: string, keep: number): Promise<number> {
    return (await this.reader()).pruneCheckpoints(sessionId, keep);
  }

  async readEventsAt(sessionId: string, seqs: readonly number[]): Promise<LogEvent[]> {
    return (await this.reader()).readEventsAt(sessionId, seqs);
  }

  async close(): Promise<void> {
    // A store that failed to open has nothing to close; its failure was the command's error.
    if (this.opened !== undefined)
      await this.opened.then(
        (store) => store.close(),
        () => undefined,
      );
  }

  /** The store to read: the real one once it exists, else the empty one. */
  private reader(): Promise<FullStore> {
    if (this.opened !== undefined || existsSync(this.file)) return this.real();
    return Promise.resolve(this.empty);
  }

  /** The real store, creating its file (the default store's .shadowlog too) on first use. */
  private real(): Promise<FullStore> {
    this.opened ??= this.open();
    return this.opened;
  }
}

async function* fromList<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
