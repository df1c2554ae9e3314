// Checks every backend makes before it writes a batch.

import { CorruptLogError, InvalidEventError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { isSessionSeq } from '../log/seq.js';
import { assertSessionId } from '../log/session-id.js';

/** The session id is safe and the batch's seqs run densely from `expectedSeq`. */
export function checkAppendBatch(sessionId: string, events: readonly LogEvent[], expectedSeq: number): void {
  assertSessionId(sessionId);
  if (!isSessionSeq(expectedSeq)) throw new InvalidEventError('expectedSeq', 'a non-negative safe integer', String(expectedSeq));
  events.forEach((event, index) => {
    if (event.seq !== expectedSeq + index) {
      throw new CorruptLogError(
        `a batch appended at seq ${expectedSeq} must hold seqs ${expectedSeq}, ${expectedSeq + 1}, …; event ${index} has seq ${event.seq}`,
        { seq: event.seq },
      );
    }
  });
}
