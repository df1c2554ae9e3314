// A session's origin (log/session-origin.ts) from its first events: reading stops as soon as
// nothing later can change it, so describing a session costs a page or two, not the whole log.

import { type SessionOrigin, SessionOriginFold } from '../log/session-origin.js';
import type { LogStore } from './log-store.js';

/** Events read at most before the origin is taken as it stands. */
const MAX_EVENTS = 4_000;

export async function readSessionOrigin(store: LogStore, sessionId: string): Promise<SessionOrigin> {
  const fold = new SessionOriginFold(sessionId);
  let read = 0;
  for await (const page of store.read(sessionId, { pageSize: 250 })) {
    for (const event of page) {
      fold.apply(event);
      read++;
    }
    if (fold.complete || read >= MAX_EVENTS) break;
  }
  return fold.origin();
}
