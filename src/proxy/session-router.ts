// Which session a request joins (docs/proxy.md, "Sessions"): the one its x-shadowlog-session
// header names (a new one, or one whose log a shadowlog proxy started, an imported copy of one
// included, since the log carries no mark of where it was written: never a harness's session;
// when another writer owns it, a sibling session of the proxy's own takes its calls); else, for
// a Responses request with previous_response_id (or a conversation), the session that answer
// (or conversation) belongs to. A conversation's first request (only system and user messages)
// starts a new session, unless it retries an idle session's unanswered request (the session's
// surface is a prefix of it) or carries the conversation id of an idle session with the same
// system prompt; a new one sent with no conversation id names the session it most likely
// continues (session-link.ts). Any other request joins the idle session of the same API that it
// extends (the longest), or else whose surface it keeps the most of (a shared prefix and
// retained tail), counting messages other than a leading system message, at least one; else the
// idle session whose conversation id (Anthropic metadata.user_id, prompt_cache_key) it carries;
// else a new session. A session waiting for an answer is joined only through the header: a
// second request sent before the first was answered is another conversation.

import { randomBytes } from 'node:crypto';
import { SessionBusyError, SessionExistsError } from '../log/errors.js';
import type { SessionContinuation } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { assertSessionId } from '../log/session-id.js';
import type { LogStore } from '../store/log-store.js';
import { messageKey } from './proxy-message.js';
import { ProxyForeignSessionError } from './proxy-refusals.js';
import { PROXY_HARNESS_VERSION, ProxySession, type ReceivedCall, type RouteMode } from './proxy-session.js';
import { continuedSession, isOpeningRequest, isSystemKey, systemKeyOf } from './session-link.js';
import { keptLength, matchSurface } from './surface-match.js';

/** How long after a session's last call a client's compaction of it is still linked to it, by default: 30 minutes. */
export const DEFAULT_LINK_IDLE_MS = 30 * 60 * 1000;

export interface SessionLinkOptions {
  /** 0: link nothing. */
  readonly linkIdleMs: number;
  readonly now: () => number;
}

export interface Routed {
  readonly session: ProxySession;
  readonly mode: RouteMode;
}

export class SessionRouter {
  private readonly sessions = new Map<string, ProxySession>();
  private readonly opening = new Map<string, Promise<ProxySession>>();
  /** Named sessions another writer owns, and the sibling session that takes their calls in this run. */
  private readonly siblings = new Map<string, ProxySession>();

  constructor(
    private readonly store: LogStore,
    private readonly onError: (error: unknown, session: string) => void,
    private readonly newId: () => string = newProxySessionId,
    /** Told once per named session whose calls go to a sibling. */
    private readonly onSibling: (named: string, sibling: string, owner: string) => void = () => {},
    private readonly link: SessionLinkOptions = { linkIdleMs: DEFAULT_LINK_IDLE_MS, now: Date.now },
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
    const session = this.create(this.newId(), call.protocol.name, this.continuationOf(call));
    session.begin(call, 'match');
    return { session, mode: 'match' };
  }

  /** For a new session: the one a client's compaction sent with no conversation id most likely continues. */
  private continuationOf(call: ReceivedCall) {
    if ('unparsed' in call.request || this.link.linkIdleMs <= 0) return undefined;
    const request = call.request;
    if (request.conversationKey !== undefined || request.serverConversation !== undefined || request.previousResponseId !== undefined)
      return undefined;
    const keys = request.messages.map(messageKey);
    if (!isOpeningRequest(keys)) return undefined;
    const idle = this.list().filter((session) => !session.busy);
    return continuedSession(
      idle,
      { protocol: call.protocol.name, keys, model: request.model, toolsKey: request.toolsKey },
      this.link.now(),
      this.link.linkIdleMs,
    );
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
    if (request.serverConversation !== undefined) {
      const session = idle.find((candidate) => candidate.serverConversation === request.serverConversation);
      return session === undefined ? undefined : { session, mode: 'continues' };
    }
    const keys = request.messages.map(messageKey);
    const skip = request.messages[0]?.type === 'system/message' ? 1 : 0;
    const extended = longestExtended(idle, keys);
    if (extended !== undefined) return { session: extended, mode: 'match' };
    if (isOpeningRequest(keys)) {
      // A first request: a new run, unless its conversation id names an idle session of the same system prompt.
      if (request.conversationKey === undefined) return undefined;
      const system = systemKeyOf(keys);
      const session = idle.find(
        (candidate) => candidate.conversationKey === request.conversationKey && systemKeyOf(candidate.keys) === system,
      );
      return session === undefined ? undefined : { session, mode: 'match' };
    }
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
    const known = this.sessions.get(id) ?? this.siblings.get(id);
    if (known !== undefined) return known;
    let opening = this.opening.get(id);
    if (opening === undefined) {
      opening = this.openNamed(id, protocol);
      this.opening.set(id, opening);
      opening.finally(() => this.opening.delete(id)).catch(() => {});
    }
    return opening;
  }

  /**
   * The session a client named: started, or continued when the proxy recorded it; refused when it
   * did not; a sibling when another writer owns it, stored or new (claimed a moment ago by another
   * proxy naming the same new id). One that another writer started between the look and the start
   * is looked at again, as the stored session it now is.
   */
  private async openNamed(id: string, protocol: string, again = false): Promise<ProxySession> {
    const exists = (await this.store.head(id)) !== undefined;
    if (exists) await this.assertRecordedByProxy(id);
    try {
      const session = exists
        ? await ProxySession.open(this.store, id, protocol, this.onError)
        : await ProxySession.started(this.store, id, protocol, this.onError);
      this.sessions.set(id, session);
      return session;
    } catch (error) {
      if (SessionExistsError.isInstance(error) && !exists && !again) return this.openNamed(id, protocol, true);
      if (!SessionBusyError.isInstance(error)) throw error;
      const reason = `session ${id} is owned by another writer (${error.owner}), and a session has one writer at a time, so the proxy forwarded this call and recorded it in a session of its own`;
      const sibling = ProxySession.start(this.store, siblingIdOf(id), protocol, this.onError, { sessionId: id, reason });
      this.sessions.set(sibling.id, sibling);
      this.siblings.set(id, sibling);
      this.onSibling(id, sibling.id, error.owner);
      return sibling;
    }
  }

  /**
   * Refuses a stored session whose log no shadowlog proxy started (a harness's session, an import
   * of one): a client may not add calls to it. An import of a proxy's session reads as one: an
   * import stores the same events, and nothing outside them says where they were written.
   */
  private async assertRecordedByProxy(id: string): Promise<void> {
    const first = await this.store.readEvent(id, 0);
    let startedBy: string = first.type;
    if (first.type === 'session/start') {
      try {
        startedBy = dataOf(first, 'session/start').harnessVersion;
      } catch {
        startedBy = 'a session/start that is not valid';
      }
    }
    if (startedBy !== PROXY_HARNESS_VERSION) throw new ProxyForeignSessionError(id, startedBy);
  }

  private create(id: string, protocol: string, continues?: SessionContinuation): ProxySession {
    const session = ProxySession.start(this.store, id, protocol, this.onError, undefined, continues);
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

/** `<named>.sibling-xxxxxx`, cut to fit the session-id grammar (128 characters). */
function siblingIdOf(named: string): string {
  const suffix = `.sibling-${randomBytes(3).toString('hex')}`;
  return `${named.slice(0, 128 - suffix.length)}${suffix}`;
}

/** proxy-YYYYMMDD-HHMMSS-xxxxxx, as the spine's session ids are made. */
export function newProxySessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `proxy-${stamp}-${randomBytes(3).toString('hex')}`;
}
