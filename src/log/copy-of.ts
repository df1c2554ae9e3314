// A copy (format 2): a message that repeats an earlier one, as another harness's compaction
// writes copies of earlier messages into its new history (Codex's replacement_history). Its
// data names the original in `copyOf`, a seq before its own, so that `origins` and `show` can
// follow a copy back to what it copies. A what-if session (SPEC §15) copies the messages of a
// call of another session: its copies name `{sessionId, seq}`, an event of that session, which
// this session's own projections do not follow (within the what-if session the copy is an original).

import { CorruptLogError } from './errors.js';
import type { CopiedEvent, LogEvent } from './event.js';
import { isSessionSeq, type SessionSeq } from './seq.js';
import { isSessionId } from './session-id.js';

/** The seq of the event `event` copies in its own session; undefined for an event that is not a copy, or copies another session's. Throws CorruptLogError for a copyOf that names no earlier event. */
export function copyOfSeq(event: Pick<LogEvent, 'seq' | 'data'>): SessionSeq | undefined {
  const copied = copiedEventOf(event);
  return copied === undefined || copied.sessionId !== undefined ? undefined : (copied.seq as SessionSeq);
}

/**
 * What `event` copies: `{seq}` for an earlier event of its own session, `{sessionId, seq}` for an
 * event of another session; undefined for an event that is not a copy. Throws CorruptLogError
 * for a copyOf of neither form.
 */
export function copiedEventOf(event: Pick<LogEvent, 'seq' | 'data'>): { readonly sessionId?: string; readonly seq: number } | undefined {
  const copyOf = (event.data as { copyOf?: unknown }).copyOf;
  if (copyOf === undefined) return undefined;
  if (typeof copyOf === 'object' && copyOf !== null && !Array.isArray(copyOf)) {
    const { sessionId, seq } = copyOf as Partial<CopiedEvent>;
    if (isSessionId(sessionId) && isSessionSeq(seq)) return { sessionId, seq };
    throw new CorruptLogError(
      `event ${event.seq}: data.copyOf must be the seq of an earlier event or {sessionId, seq} of another session's, found ${JSON.stringify(copyOf)}`,
      { seq: event.seq },
    );
  }
  if (!isSessionSeq(copyOf) || copyOf >= event.seq) {
    throw new CorruptLogError(`event ${event.seq}: data.copyOf must be the seq of an earlier event, found ${JSON.stringify(copyOf)}`, {
      seq: event.seq,
    });
  }
  return { seq: copyOf };
}
