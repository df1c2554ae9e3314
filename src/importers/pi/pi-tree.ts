// pi sessions from version 2 on are trees (id, parentId): the model is shown the path from the
// last entry back to the root, as pi's buildSessionContext builds it. Entries off that path
// belong to branches the session left; version-1 files (no ids) are one line of entries.

import type { SourceRecord } from '../source-file.js';

/** The ids on the path from the last entry to the root; undefined when the entries have no ids (version 1). */
export function activePath(entries: readonly SourceRecord[]): ReadonlySet<string> | undefined {
  const byId = new Map<string, SourceRecord>();
  let leaf: SourceRecord | undefined;
  for (const entry of entries) {
    if (typeof entry.value.id !== 'string') continue;
    byId.set(entry.value.id, entry);
    leaf = entry;
  }
  if (leaf === undefined) return undefined;
  const path = new Set<string>();
  for (let current: SourceRecord | undefined = leaf; current !== undefined; ) {
    const id = current.value.id as string;
    if (path.has(id)) break;
    path.add(id);
    const parent: unknown = current.value.parentId;
    current = typeof parent === 'string' ? byId.get(parent) : undefined;
  }
  return path;
}

/** Is `entry` part of what the model was last shown? Entries without an id (version 1) always are. */
export function isOnPath(entry: SourceRecord, path: ReadonlySet<string> | undefined): boolean {
  return path === undefined || typeof entry.value.id !== 'string' || path.has(entry.value.id);
}
