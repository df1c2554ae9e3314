// Which session a request joins (docs/proxy.md, "Sessions"): the one its x-shadowlog-session
// header names; else, for a Responses request with previous_response_id, the session that
// answer belongs to; else the idle session of the same API that the request extends (the
// longest), or else whose surface it keeps the most of (a shared prefix and retained tail),
// counting messages other than a leading system message, at least one; else the idle session
// whose conversation id (Anthropic metadata.user_id, prompt_cache_key) the request carries; else
// a new session. A session waiting for an answer is joined only through the header: a second
// request sent before the first was answered is another conversation.

import { randomBytes } from 'node:crypto';
import { assertSessionId } from '../log/session-id.js';
import type { LogStore } from '../store/log-store.js';
import { messageKey } from './proxy-message.js';
import { ProxySession, type ReceivedCall, type RouteMode } from './proxy-session.js';
import { keptLength, matchSurface } from './surface-match.js';

export interface Routed {
  readonly session: ProxySession;
  readonly mode: RouteMode;
}

export class SessionRouter {
  private readonly sessions = new Map<string, ProxySession>();
  private readonly opening = new Map<string, Promise<ProxySession>>();

  constructor(
    private readonly store: LogStore,
    private readonly onError: (error: unknown, session: string) => void,
    private readonly newId: () => string = newProxySessionId,
  ) {}

  /** Routes `call` and marks its session busy (synchronously, once the session is known). */
  async route(call: ReceivedCall, named: string | undefined): Promise<Routed> {
    if (named !== undefined) {
      const session = await this.named(named, call.protocol.name);
      session.begin(call, 'match');
      return { session, mode: 'match' };
    }
    const found = this.find(call);
    if (found !== undefined) {
      found.session.begin(call, found.mode);
      return found;
    }
    const session = this.create(this.newId(), call.protocol.name);
    session.begin(call, 'match');
    return { session, mode: 'match' };
  }

  list(): ProxySession[] {
    return [...this.sessions.values()];
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    const results = await Promise.allSettled(this.list().map((session) => session.close()));
    for (const result of results) if (result.status === 'rejected') throw result.reason;
  }

  private find(call: ReceivedCall): Routed | undefined {
    if ('unparsed' in call.request) return undefined;
    const request = call.request;
    const idle = this.list().filter((session) => !session.busy && session.protocol === call.protocol.name);
    if (request.previousResponseId !== undefined) {
      const session = idle.find((candidate) => candidate.lastResponseId === request.previousResponseId);
      if (session !== undefined) return { session, mode: 'continues' };
    }
    const keys = request.messages.map(messageKey);
    const skip = request.messages[0]?.type === 'system/message' ? 1 : 0;
    const extended = longestExtended(idle, keys);
    if (extended !== undefined) return { session: extended, mode: 'match' };
    let best: { session: ProxySession; kept: number } | undefined;
    for (const session of idle) {
      const surface = session.keys;
      const surfaceSkip = isSystemKey(surface[0]) ? 1 : 0;
      const kept = keptLength(surface.length - surfaceSkip, matchSurface(surface.slice(surfaceSkip), keys.slice(skip)));
      if (kept < 1) continue;
      if (best === undefined || kept > best.kept || (kept === best.kept && session.lastUsed > best.session.lastUsed))
        best = { session, kept };
    }
    if (best !== undefined) return { session: best.session, mode: 'match' };
    if (request.conversationKey !== undefined) {
      const session = idle.find((candidate) => candidate.conversationKey === request.conversationKey);
      if (session !== undefined) return { session, mode: 'match' };
    }
    return undefined;
  }

  private async named(id: string, protocol: string): Promise<ProxySession> {
    assertSessionId(id);
    const known = this.sessions.get(id);
    if (known !== undefined) return known;
    let opening = this.opening.get(id);
    if (opening === undefined) {
      opening = (async () => {
        const session =
          (await this.store.head(id)) === undefined
            ? await ProxySession.started(this.store, id, protocol, this.onError)
            : await ProxySession.open(this.store, id, protocol, this.onError);
        this.sessions.set(id, session);
        return session;
      })();
      this.opening.set(id, opening);
      opening.finally(() => this.opening.delete(id)).catch(() => {});
    }
    return opening;
  }

  private create(id: string, protocol: string): ProxySession {
    const session = ProxySession.start(this.store, id, protocol, this.onError);
    this.sessions.set(id, session);
    return session;
  }
}

/**
 * The idle session the request extends with the most messages (beyond a leading system message),
 * if any: the common case, found without matching every session in full. A session can be
 * extended only where its last message stands in the request.
 */
function longestExtended(idle: readonly ProxySession[], keys: readonly string[]): ProxySession | undefined {
  const positions = new Map<string, number[]>();
  keys.forEach((key, index) => {
    const list = positions.get(key);
    if (list === undefined) positions.set(key, [index]);
    else list.push(index);
  });
  let best: ProxySession | undefined;
  for (const session of idle) {
    const surface = session.keys;
    const last = surface.length - 1;
    if (last < (isSystemKey(surface[0]) ? 1 : 0)) continue;
    if (!(positions.get(surface[last] as string) ?? []).includes(last)) continue;
    if (
      best !== undefined &&
      (surface.length < best.keys.length || (surface.length === best.keys.length && session.lastUsed <= best.lastUsed))
    )
      continue;
    if (surface.every((key, index) => key === keys[index])) best = session;
  }
  return best;
}

function isSystemKey(key: string | undefined): boolean {
  return key?.endsWith('"type":"system/message"}') === true;
}

/** proxy-YYYYMMDD-HHMMSS-xxxxxx, as the spine's session ids are made. */
export function newProxySessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `proxy-${stamp}-${randomBytes(3).toString('hex')}`;
}
