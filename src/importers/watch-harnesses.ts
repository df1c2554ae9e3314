// `shadowlog sync --watch`: sync passes (harness-sync.ts) for as long as it runs. A pass starts
// as soon as a harness directory reports a change (fs.watch, recursive), and at least every
// `intervalMs` in any case: a platform or file system without events (a network mount) is
// still followed, and a directory that appears later is found. Stopping (the signal) waits for
// the pass under way: each session is appended in one transaction, so nothing is half written.

import { type FSWatcher, watch } from 'node:fs';
import type { LogStore } from '../store/log-store.js';
import { harnessLocations } from './harness-locations.js';
import { HarnessSync, type HarnessSyncOptions, type SyncPassReport } from './harness-sync.js';

export interface WatchHarnessesOptions extends HarnessSyncOptions {
  /** The longest time between passes, in ms (default 1000). */
  readonly intervalMs?: number;
  /** Only poll: no file-system events. */
  readonly poll?: boolean;
  /** Ends the watch after the pass under way. */
  readonly signal: AbortSignal;
  /** Each pass's report, the first included. */
  readonly onPass: (report: SyncPassReport) => void | Promise<void>;
  /** A directory whose events could not be watched: it is polled. */
  readonly onWatchLost?: (directory: string, error: unknown) => void;
}

export const DEFAULT_WATCH_INTERVAL_MS = 1000;

/** The least time between passes while files keep changing: a burst of writes is read once. */
const SETTLE_BURST_MS = 100;

export async function watchHarnesses(store: LogStore, options: WatchHarnessesOptions): Promise<void> {
  const locations = options.locations ?? harnessLocations();
  const sync = new HarnessSync(store, { ...options, locations });
  const intervalMs = options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
  const watchers = new Map<string, FSWatcher>();
  const polled = new Set<string>();
  let wake: (() => void) | undefined;
  let changed = false;
  const poke = () => {
    changed = true;
    wake?.();
  };
  const watchDirectories = () => {
    if (options.poll === true) return;
    for (const { directory } of locations) {
      if (watchers.has(directory) || polled.has(directory)) continue;
      try {
        const watcher = watch(directory, { recursive: true, persistent: false }, poke);
        watcher.on('error', (error) => {
          watcher.close();
          watchers.delete(directory);
          polled.add(directory);
          options.onWatchLost?.(directory, error);
        });
        watchers.set(directory, watcher);
      } catch (error) {
        // A directory not there yet is looked for again on the next pass; others are polled.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          polled.add(directory);
          options.onWatchLost?.(directory, error);
        }
      }
    }
  };
  options.signal.addEventListener('abort', () => wake?.(), { once: true });
  try {
    while (!options.signal.aborted) {
      changed = false;
      watchDirectories();
      await options.onPass(await sync.pass());
      if (options.signal.aborted) break;
      const wait = changed ? Math.min(SETTLE_BURST_MS, intervalMs) : intervalMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        // A change during the short wait after a burst does not cut it shorter.
        wake = changed ? () => (options.signal.aborted ? done() : undefined) : done;
      });
    }
  } finally {
    for (const watcher of watchers.values()) watcher.close();
  }
}
