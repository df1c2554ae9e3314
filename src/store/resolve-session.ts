// The session a command names: its full id, a unique prefix of it, or the id its source harness
// gave it (Claude Code's session uuid, Codex's rollout id, pi's session id), or a prefix of that.
// Every command that takes a session id resolves it here, so they all accept the same names.
//
// A full id is found with one look-up, as before. Otherwise the ids are matched by prefix, and
// an imported session by its source's id (from its shadowlog id `claude-code-<uuid>`, and, for a
// session imported under another name, from the source lines it keeps). A name that matches a
// session and sub-sessions of it (`<id>.agent-…`) names the session; an exact source id wins
// over prefixes of others.

import { SessionNotFoundError } from '../log/errors.js';
import { assertSessionId } from '../log/session-id.js';
import { AmbiguousSessionError, type SessionCandidate } from './ambiguous-session-error.js';
import type { LogStore } from './log-store.js';
import { readSessionOrigin } from './read-session-origin.js';

/** Candidates an ambiguity error describes; the rest are counted. */
const DESCRIBED = 10;

const SOURCE_PREFIX = /^(?:claude-code|codex|pi)-/;

/**
 * The full id of the session `given` names. Throws InvalidSessionIdError for a name that cannot
 * be one, SessionNotFoundError when no session matches, AmbiguousSessionError when several do.
 */
export async function resolveSessionId(store: LogStore, given: string): Promise<string> {
  assertSessionId(given);
  if ((await store.head(given)) !== undefined) return given;
  const ids = (await store.listSessions()).map((session) => session.id);
  let matches = ids.filter((id) => id.startsWith(given) || sourceIdOf(id)?.startsWith(given));
  const exact = matches.filter((id) => sourceIdOf(id) === given);
  if (exact.length > 0) matches = exact;
  const origins = new Map<string, SessionCandidate>();
  if (matches.length === 0) {
    // A session imported under a name of its own (`import --as`) is found by the id in its source lines.
    for (const id of ids.filter((each) => !SOURCE_PREFIX.test(each))) {
      const origin = await readSessionOrigin(store, id);
      if (origin.sourceId?.startsWith(given)) origins.set(id, { id, ...origin });
    }
    matches = [...origins.keys()];
    const exactOrigins = matches.filter((id) => origins.get(id)?.sourceId === given);
    if (exactOrigins.length > 0) matches = exactOrigins;
  }
  const roots = matches.filter((id) => !matches.some((other) => other !== id && id.startsWith(`${other}.`)));
  if (roots.length === 1) return roots[0] as string;
  if (roots.length === 0) throw new SessionNotFoundError(given);
  const described: SessionCandidate[] = [];
  for (const id of roots.slice(0, DESCRIBED)) described.push(origins.get(id) ?? { id, ...(await readSessionOrigin(store, id)) });
  throw new AmbiguousSessionError(given, described, roots.length - described.length);
}

/** The source's own id that an imported session's shadowlog id carries (`claude-code-<uuid>` → `<uuid>`). */
function sourceIdOf(id: string): string | undefined {
  const prefix = SOURCE_PREFIX.exec(id);
  return prefix === null ? undefined : id.slice(prefix[0].length);
}
