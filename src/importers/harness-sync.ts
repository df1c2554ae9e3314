// `shadowlog sync`: the sessions of every harness found on the machine (harness-locations.ts)
// imported into one store and kept in step with their files. Each pass reads only the files that
// changed since the pass before (all of them on the first), and those whose held-back events
// (import-files.ts, settleMs) have since settled; a Claude Code conversation is read whole (its
// transcript and its subagents' files), so that its sub-sessions stay linked. What is new in a
// file is appended to its session; unchanged files write nothing; files that are not sessions
// are skipped with their reason, and damaged ones reported while the others are imported.

import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ShadowlogError } from '../log/errors.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import type { LogStore } from '../store/log-store.js';
import { type HarnessLocation, harnessLocations } from './harness-locations.js';
import { importFiles } from './import-files.js';
import { type ImportInput, readImportInputs } from './import-inputs.js';
import type { FailedFile, SessionReport, SkippedFile } from './import-report.js';

export interface HarnessSyncOptions {
  readonly registry: EventTypeRegistry;
  /** A file changed less than this long ago (ms) is still being written: what may still change at its end waits (default 60 s). */
  readonly settleMs?: number;
  /** The harness directories (default: harnessLocations()). */
  readonly locations?: readonly HarnessLocation[];
  /** The clock (default Date.now). */
  readonly now?: () => number;
}

export interface SyncedSession {
  readonly sessionId: string;
  readonly path: string;
  readonly status: SessionReport['status'];
  /** The events written now. */
  readonly written: number;
  /** The session's model calls in the store. */
  readonly modelCalls: number;
  /** Events held back, the file still being written. */
  readonly pending: number;
}

export interface HarnessSyncReport extends HarnessLocation {
  /** Whether the directory exists. */
  readonly found: boolean;
  /** The .jsonl files under it. */
  readonly files: number;
  /** The files read in this pass (changed since the last, or settled since). */
  readonly read: number;
  /** Each session of the files read, with what the pass did. */
  readonly sessions: readonly SyncedSession[];
  readonly skipped: readonly SkippedFile[];
  readonly failed: readonly FailedFile[];
}

export interface SyncPassReport {
  readonly harnesses: readonly HarnessSyncReport[];
}

export const DEFAULT_SETTLE_MS = 60_000;

interface FileState {
  readonly size: number;
  readonly mtimeMs: number;
}

export class HarnessSync {
  private readonly seen = new Map<string, FileState>();
  /** Files with events held back: read again once settled. */
  private readonly pending = new Set<string>();
  private readonly locations: readonly HarnessLocation[];
  private readonly settleMs: number;
  private readonly now: () => number;

  constructor(
    private readonly store: LogStore,
    private readonly options: HarnessSyncOptions,
  ) {
    this.locations = options.locations ?? harnessLocations();
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.now = options.now ?? Date.now;
  }

  /** One pass over every harness directory; returns what it found and did. */
  async pass(): Promise<SyncPassReport> {
    const harnesses: HarnessSyncReport[] = [];
    for (const location of this.locations) harnesses.push(await this.passOver(location));
    return { harnesses };
  }

  private async passOver(location: HarnessLocation): Promise<HarnessSyncReport> {
    const files = await listJsonl(location.directory);
    if (files === undefined) return { ...location, found: false, files: 0, read: 0, sessions: [], skipped: [], failed: [] };
    const now = this.now();
    const due = new Set<string>();
    for (const [path, state] of files) {
      const before = this.seen.get(path);
      const changed = before === undefined || before.size !== state.size || before.mtimeMs !== state.mtimeMs;
      const settled = this.pending.has(path) && now - state.mtimeMs >= this.settleMs;
      if (changed || settled) due.add(path);
    }
    const toRead = location.harness === 'claude-code' ? withConversations(location.directory, due, [...files.keys()]) : [...due];
    const inputs: ImportInput[] = [];
    const failed: FailedFile[] = [];
    for (const path of toRead.sort()) {
      try {
        const [input] = await readImportInputs([path], '/');
        if (input !== undefined) inputs.push({ ...input, fromDirectory: true });
      } catch (error) {
        if (!ShadowlogError.isInstance(error)) throw error;
        failed.push({ path, code: error.code, message: error.message, line: null });
      }
    }
    for (const path of toRead) {
      const state = files.get(path);
      if (state !== undefined) this.seen.set(path, state);
      this.pending.delete(path);
    }
    const summary =
      inputs.length === 0
        ? { files: [], skipped: [], failed: [] }
        : await importFiles(this.store, inputs, { format: 'auto', registry: this.options.registry, settleMs: this.settleMs, now });
    const sessions: SyncedSession[] = [];
    for (const file of summary.files) {
      for (const session of file.sessions) {
        if (session.pending !== undefined) this.pending.add(file.path);
        sessions.push({
          sessionId: session.sessionId,
          path: file.path,
          status: session.status,
          written: session.written,
          modelCalls: session.modelCalls,
          pending: session.pending?.events ?? 0,
        });
      }
    }
    return {
      ...location,
      found: true,
      files: files.size,
      read: inputs.length,
      sessions,
      skipped: summary.skipped,
      failed: [...failed, ...summary.failed],
    };
  }
}

/** One pass of `sync`: every session file of every harness found. */
export async function syncHarnesses(store: LogStore, options: HarnessSyncOptions): Promise<SyncPassReport> {
  return new HarnessSync(store, options).pass();
}

/** The regular .jsonl files under `directory` with their size and time, or undefined when there is no such directory. */
async function listJsonl(directory: string): Promise<Map<string, FileState> | undefined> {
  const info = await stat(directory).catch(() => undefined);
  if (info?.isDirectory() !== true) return undefined;
  const found = new Map<string, FileState>();
  const walk = async (path: string): Promise<void> => {
    const entries = await readdir(path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      // A directory removed while it is walked has no files any more.
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) {
        const state = await stat(child).catch(() => undefined);
        if (state !== undefined) found.set(child, { size: state.size, mtimeMs: state.mtimeMs });
      }
    }
  };
  await walk(directory);
  return found;
}

/**
 * The files due, with the rest of each Claude Code conversation they belong to: a transcript is
 * <project>/<uuid>.jsonl and its subagents' files are under <project>/<uuid>/.
 */
function withConversations(directory: string, due: ReadonlySet<string>, all: readonly string[]): string[] {
  const keyOf = (path: string) =>
    relative(directory, path)
      .split(sep)
      .slice(0, 2)
      .join(sep)
      .replace(/\.jsonl$/, '');
  const keys = new Set([...due].map(keyOf));
  return all.filter((path) => keys.has(keyOf(path)));
}
