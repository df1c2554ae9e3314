// Which session a client's own compaction most likely continues (docs/proxy.md, "Sessions"): a
// request that holds only a system prompt and user messages (a summary in place of the history),
// sent with no conversation id, starts a session of its own; when an idle session of the same
// API had the same system prompt, tools and model, had answers, and ended its last call within
// the link window, the new session names it in session/start.continues, with the evidence. A
// link is a claim, never a merge: a new run of the same client with a new first question looks
// the same, and nothing in the request tells the two apart. A request that repeats the session's
// own first request is a new run of it (the same question asked again), and links to nothing.

import type { JsonObject, SessionContinuation } from '../log/event.js';

/** What the link rule reads of an idle session. */
export interface LinkCandidate {
  readonly id: string;
  readonly protocol: string;
  /** The keys of its surface (proxy-message.ts), a leading system message included. */
  readonly keys: readonly string[];
  readonly model: string | undefined;
  readonly toolsKey: string | undefined;
  /** When its last call ended (ms since the epoch); undefined before any ended. */
  readonly lastEnded: number | undefined;
}

export interface LinkRequest {
  readonly protocol: string;
  readonly keys: readonly string[];
  readonly model: string;
  readonly toolsKey: string | undefined;
}

/** The session `request` most likely continues, as session/start.continues; undefined when none qualifies. */
export function continuedSession(
  candidates: readonly LinkCandidate[],
  request: LinkRequest,
  now: number,
  linkIdleMs: number,
): SessionContinuation | undefined {
  const system = systemKeyOf(request.keys);
  const asked = request.keys.slice(system === undefined ? 0 : 1);
  let best: { candidate: LinkCandidate; idle: number } | undefined;
  for (const candidate of candidates) {
    if (candidate.protocol !== request.protocol || candidate.lastEnded === undefined) continue;
    const idle = now - candidate.lastEnded;
    if (idle < 0 || idle > linkIdleMs) continue;
    if (systemKeyOf(candidate.keys) !== system || candidate.toolsKey !== request.toolsKey || candidate.model !== request.model) continue;
    const own = candidate.keys.slice(system === undefined ? 0 : 1);
    if (!own.some(isAnswerKey)) continue;
    // The session's own first request again: a new run asking the same, not a continuation.
    if (asked.length <= own.length && asked.every((key, index) => key === own[index])) continue;
    if (best === undefined || idle < best.idle) best = { candidate, idle };
  }
  if (best === undefined) return undefined;
  const { candidate, idle } = best;
  const evidence: JsonObject = {
    systemPrompt: system === undefined ? 'none in either' : 'the same',
    tools: request.toolsKey === undefined ? 'none offered by either' : 'the same',
    model: request.model,
    idleSeconds: Math.round(idle / 1000),
    linkIdleSeconds: Math.round(linkIdleMs / 1000),
    earlierSurfaceMessages: candidate.keys.length,
    requestMessages: request.keys.length,
    conversationId: 'none in the request',
  };
  return {
    sessionId: candidate.id,
    reason: `the request holds only ${system === undefined ? '' : 'a system prompt and '}user messages and names no conversation, as a client's compaction of its history does, and ${candidate.id} had the same system prompt, tools and model and ended its last call ${Math.round(idle / 1000)} s before (within ${Math.round(linkIdleMs / 1000)} s); a new run of the same client would look the same, so this is a likely continuation, not a certain one`,
    evidence,
  };
}

/** A conversation's first request, by its shape: only system and user messages, at least one user message. */
export function isOpeningRequest(keys: readonly string[]): boolean {
  let users = 0;
  for (const key of keys) {
    if (isUserKey(key)) users++;
    else if (!isSystemKey(key)) return false;
  }
  return users > 0;
}

export function systemKeyOf(keys: readonly string[]): string | undefined {
  const first = keys[0];
  return first !== undefined && isSystemKey(first) ? first : undefined;
}

// Message keys are canonical JSON, keys sorted: "type" comes last in each (proxy-message.ts).
export function isSystemKey(key: string | undefined): boolean {
  return key?.endsWith('"type":"system/message"}') === true;
}

function isUserKey(key: string): boolean {
  return key.endsWith('"type":"user/message"}');
}

function isAnswerKey(key: string): boolean {
  return key.endsWith('"type":"assistant/message"}');
}
