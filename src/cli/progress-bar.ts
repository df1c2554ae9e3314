// Progress on stderr for long commands (`copy`): on a terminal, a bar redrawn in place and
// cleared at the end; on a file or a pipe, a plain line now and then, so that a log shows the
// command is alive without filling up (nothing at all for a command that ends quickly).

import type { Writable } from 'node:stream';

export interface ProgressState {
  readonly done: number;
  readonly total: number;
  /** What is being worked on, e.g. `3/7 sessions, 12,345/23,456 events, session-abc`. */
  readonly detail: string;
}

export interface ProgressBar {
  update(state: ProgressState): void;
  /** Removes the bar from a terminal; prints nothing elsewhere. */
  finish(): void;
}

export interface ProgressBarOptions {
  /** The word before the bar, e.g. `copying`. */
  readonly label: string;
  readonly now?: () => number;
  /** Least time between redraws on a terminal (default 100 ms). */
  readonly redrawMs?: number;
  /** Least time between plain lines elsewhere, and before the first (default 10 s). */
  readonly lineMs?: number;
}

const BAR_WIDTH = 24;

export function createProgressBar(stream: Writable, options: ProgressBarOptions): ProgressBar {
  const terminal = (stream as { isTTY?: boolean }).isTTY === true;
  const now = options.now ?? Date.now;
  const interval = terminal ? (options.redrawMs ?? 100) : (options.lineMs ?? 10_000);
  // Off a terminal, the first line waits a whole interval: a quick command prints none.
  let last = terminal ? Number.NEGATIVE_INFINITY : now();
  let drawn = false;
  return {
    update(state) {
      const time = now();
      if (time - last < interval && !(terminal && state.done >= state.total)) return;
      last = time;
      const share = state.total === 0 ? 1 : Math.min(1, state.done / state.total);
      const percent = `${Math.floor(share * 100)}%`.padStart(4);
      if (!terminal) {
        stream.write(`${options.label}: ${percent.trim()}, ${state.detail}\n`);
        return;
      }
      const filled = Math.round(share * BAR_WIDTH);
      const line = `${options.label} ${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)} ${percent}  ${state.detail}`;
      const columns = (stream as { columns?: number }).columns ?? 80;
      stream.write(`\r${line.slice(0, Math.max(10, columns - 1))}\x1b[K`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[K');
      drawn = false;
    },
  };
}
