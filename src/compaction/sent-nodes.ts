// Which surface nodes the model has already been sent. A node is sent once a model/request
// whose surface included it was appended. A node on the surface now was on it, unshadowed,
// at every request since its own seq, so it has been sent exactly when some model/request
// stands after it in the log: knowing the latest request suffices. A proxied request off the
// surface (log/off-surface.ts) sent a body of its own, not the surface: it proves nothing sent.

import { dataOf } from '../log/event-data.js';
import { offSurfaceReason } from '../log/off-surface.js';
import type { SessionLog } from '../store/session-log.js';

/**
 * The seq of the latest model/request after `notBefore`, or undefined when there is none.
 * Walks back from the head, reading only log-only events: bounded by the events since
 * `notBefore`, which the caller sets to the oldest node it asks about.
 */
export async function latestRequestSince(log: SessionLog, notBefore: number): Promise<number | undefined> {
  for (let seq = log.nextSeq - 1; seq > notBefore; seq--) {
    if (log.fold.isSurfaceEvent(seq)) continue;
    const event = await log.readEvent(seq);
    if (event.type === 'model/request' && offSurfaceReason(dataOf(event, 'model/request')) === undefined) return seq;
  }
  return undefined;
}

/** A predicate "has the node at this seq been sent?", for nodes at or after `oldest` on the current surface. */
export async function sentNodes(log: SessionLog, oldest: number): Promise<(seq: number) => boolean> {
  const latest = await latestRequestSince(log, oldest);
  return (seq) => latest !== undefined && seq < latest;
}
