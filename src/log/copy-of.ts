// A copy (format 2): a message that repeats an earlier one, as another harness's compaction
// writes copies of earlier messages into its new history (Codex's replacement_history). Its
// data names the original in `copyOf`, a seq before its own, so that `origins` and `show` can
// follow a copy back to what it copies.

import { CorruptLogError } from './errors.js';
import type { LogEvent } from './event.js';
import { isSessionSeq, type SessionSeq } from './seq.js';

/** The seq of the event `event` copies; undefined for an event that is not a copy. Throws CorruptLogError for a copyOf that names no earlier event. */
export function copyOfSeq(event: Pick<LogEvent, 'seq' | 'data'>): SessionSeq | undefined {
  const copyOf = (event.data as { copyOf?: unknown }).copyOf;
  if (copyOf === undefined) return undefined;
  if (!isSessionSeq(copyOf) || copyOf >= event.seq) {
    throw new CorruptLogError(`event ${event.seq}: data.copyOf must be the seq of an earlier event, found ${JSON.stringify(copyOf)}`, {
      seq: event.seq,
    });
  }
  return copyOf;
}
