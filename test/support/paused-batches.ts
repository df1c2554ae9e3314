// A stream of batches that stops after its first batch until the test lets it go on: for
// tests of what happens while appendAll holds its transaction open.

import type { LogEvent } from '../../src/log/event.js';

export interface PausedBatches {
  /** Yields the first `firstBatch` events, waits for finish(), then yields the rest. */
  readonly source: AsyncGenerator<LogEvent[]>;
  /** Resolves once the first batch has been taken. */
  readonly firstBatchTaken: Promise<void>;
  finish(): void;
}

export function pausedBatches(events: readonly LogEvent[], firstBatch = 3): PausedBatches {
  let taken = () => {};
  const firstBatchTaken = new Promise<void>((resolve) => {
    taken = resolve;
  });
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  async function* source() {
    yield events.slice(0, firstBatch);
    taken();
    await finished;
    yield events.slice(firstBatch);
  }
  return { source: source(), firstBatchTaken, finish: () => finish() };
}
