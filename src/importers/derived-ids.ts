// Ids an import derives from its source, never at random, so that importing the same file
// again writes the same events (same hashes) and is recognised as already present.

import { nodeSha256Hex } from '../store/node-sha256.js';

const UNSAFE = /[^A-Za-z0-9._-]+/g;
const MAX_SESSION_ID = 128;

/** The session id of a source's session: `pi-…`, `claude-code-…`, `codex-…`, then the source's own id. */
export function importedSessionId(source: string, sourceId: string): string {
  return fitSessionId(`${source}-${sourceId.replace(UNSAFE, '-')}`);
}

/** A sub-session's id: its parent's, then `.` and what names it in the source (`agent-acompact-e1f845`). */
export function subSessionId(parentId: string, name: string): string {
  return fitSessionId(`${parentId}.${name.replace(UNSAFE, '-')}`);
}

/** An id in the form of a UUID, from a digest of what names a thing uniquely in its source. */
export function derivedUuid(...parts: readonly (string | number)[]): string {
  const hex = nodeSha256Hex(parts.join('\u0000'));
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Ids longer than a session id may be keep their start and end a digest of the whole, to stay unique. */
function fitSessionId(id: string): string {
  const trimmed = id.replace(/^[^A-Za-z0-9]+/, '');
  if (trimmed.length <= MAX_SESSION_ID) return trimmed;
  return `${trimmed.slice(0, MAX_SESSION_ID - 17)}-${nodeSha256Hex(trimmed).slice(0, 16)}`;
}
