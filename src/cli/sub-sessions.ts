// The sub-sessions of a session: those whose session/start names it as their parent (format 2),
// each with the tool call that spawned it when known, so that `show` can link them.

import { dataOf, type SessionParent } from '../log/index.js';
import type { LogStore } from '../store/index.js';

export interface SubSession {
  readonly sessionId: string;
  readonly callId?: string;
}

/** Every session of the store whose parent is `sessionId`, in the store's order. */
export async function subSessionsOf(store: LogStore, sessionId: string): Promise<SubSession[]> {
  const found: SubSession[] = [];
  for (const session of await store.listSessions()) {
    if (session.id === sessionId) continue;
    const parent: SessionParent | undefined = dataOf(await store.readEvent(session.id, 0), 'session/start').parent;
    if (parent?.sessionId !== sessionId) continue;
    found.push(parent.callId === undefined ? { sessionId: session.id } : { sessionId: session.id, callId: parent.callId });
  }
  return found;
}
