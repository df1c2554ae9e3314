// pi sessions from version 2 on are trees (id, parentId): pi shows the model the path from its
// leaf (the file's last entry when it opens the file) back to the root, as its
// buildSessionContext builds it, and /tree or /fork leave the paths it moved away from in the
// file. Here the tree is cut into paths, one per session: the main one, and a branch for every
// path that leaves another (SPEC §14). Version-1 files (no ids) are one line of entries.

import type { SourceRecord } from '../source-file.js';

export interface PiTreeEntry {
  readonly record: SourceRecord;
  /** pi's id, or for an entry without one (version 1) a made-up one: `line-N`. */
  readonly id: string;
  readonly parent: PiTreeEntry | undefined;
  readonly children: PiTreeEntry[];
  /** Its index in the file's entries. */
  readonly position: number;
  /** The greatest position in its subtree: where the latest entry written below it is. */
  latest: number;
}

export interface PiTree {
  readonly entries: readonly PiTreeEntry[];
  readonly roots: readonly PiTreeEntry[];
  readonly byId: ReadonlyMap<string, PiTreeEntry>;
  /** Entries whose link could not be followed as written (a parent not before them, a repeated id), each with what was done. */
  readonly notes: ReadonlyArray<{ readonly line: number; readonly reason: string }>;
}

/**
 * The tree of a file's entries. An entry without an id follows the entry before it (pi's own
 * migration of version-1 files); one whose parent is not an earlier entry is a root, as pi's
 * getTree takes an orphan.
 */
export function piTree(records: readonly SourceRecord[]): PiTree {
  const entries: PiTreeEntry[] = [];
  const roots: PiTreeEntry[] = [];
  const byId = new Map<string, PiTreeEntry>();
  const notes: Array<{ line: number; reason: string }> = [];
  let previous: PiTreeEntry | undefined;
  for (const record of records) {
    const ownId = typeof record.value.id === 'string' && record.value.id !== '' ? record.value.id : undefined;
    const repeated = ownId !== undefined && byId.has(ownId);
    const id = ownId === undefined || repeated ? `line-${record.line}` : ownId;
    if (repeated)
      notes.push({
        line: record.line,
        reason: `entry id ${JSON.stringify(ownId)} was used by an earlier entry; this one is taken as ${id}`,
      });
    let parent: PiTreeEntry | undefined;
    if (ownId === undefined) parent = previous;
    else if (typeof record.value.parentId === 'string') {
      parent = byId.get(record.value.parentId);
      if (parent === undefined)
        notes.push({
          line: record.line,
          reason: `its parent entry ${JSON.stringify(record.value.parentId)} is not before it in the file; it is taken as a root, as pi takes an orphan`,
        });
    }
    const entry: PiTreeEntry = { record, id, parent, children: [], position: entries.length, latest: entries.length };
    entries.push(entry);
    byId.set(id, entry);
    (parent === undefined ? roots : parent.children).push(entry);
    previous = entry;
  }
  // Children come after their parents, so one pass from the end carries each subtree's latest up.
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index] as PiTreeEntry;
    if (entry.parent !== undefined && entry.latest > entry.parent.latest) entry.parent.latest = entry.latest;
  }
  return { entries, roots, byId, notes };
}

/** One session's path through the tree. */
export interface PiSessionPath {
  /** undefined for the main session; for a branch, the id of its first entry not on its parent's path. */
  readonly key: string | undefined;
  /** From the root to its last entry. */
  readonly entries: readonly PiTreeEntry[];
  /** The index in `entries` of its first entry not on its parent's path (0 for the main session). */
  readonly leaves: number;
  /** The index, in the list returned, of the path it leaves. */
  readonly parent: number | undefined;
}

/**
 * The tree cut into paths: the main one first, then each path leaving one listed before it, at
 * the entry where it leaves. A path goes down to the latest entry below it, except where the
 * store holds a session of it already (`storedLeaf`, by key: the id of the last entry the store
 * holds of it): it goes through that entry first, so that what was imported stays a start of
 * what is imported now.
 */
export function piSessionPaths(tree: PiTree, storedLeaf: (key: string | undefined) => string | undefined): PiSessionPath[] {
  const paths: PiSessionPath[] = [];
  const queue: Array<{ key: string | undefined; prefix: readonly PiTreeEntry[]; first: PiTreeEntry; parent: number | undefined }> = [];
  const mainFirst = choose(tree.roots, anchorOf(tree, storedLeaf(undefined), undefined));
  if (mainFirst === undefined) return [];
  queue.push({ key: undefined, prefix: [], first: mainFirst, parent: undefined });
  for (const root of tree.roots) if (root !== mainFirst) queue.push({ key: root.id, prefix: [], first: root, parent: 0 });
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const index = paths.length;
    const through = anchorOf(tree, storedLeaf(next.key), next.first);
    const entries = [...next.prefix];
    for (let entry: PiTreeEntry | undefined = next.first; entry !== undefined; ) {
      entries.push(entry);
      const chosen = choose(entry.children, through);
      for (const child of entry.children)
        if (child !== chosen) queue.push({ key: child.id, prefix: [...entries], first: child, parent: index });
      entry = chosen;
    }
    paths.push({ key: next.key, entries, leaves: next.prefix.length, parent: next.parent });
  }
  return paths;
}

/** The entries from `leafId` up to `first` (a path's first own entry), when `leafId` is below it; else none. */
function anchorOf(tree: PiTree, leafId: string | undefined, first: PiTreeEntry | undefined): ReadonlySet<PiTreeEntry> {
  const leaf = leafId === undefined ? undefined : tree.byId.get(leafId);
  const chain = new Set<PiTreeEntry>();
  for (let entry = leaf; entry !== undefined; entry = entry.parent) {
    chain.add(entry);
    if (entry === first) return chain;
  }
  return first === undefined ? chain : new Set();
}

/** The child toward a stored leaf, else the one below which the latest entry was written. */
function choose(children: readonly PiTreeEntry[], through: ReadonlySet<PiTreeEntry>): PiTreeEntry | undefined {
  let latest: PiTreeEntry | undefined;
  for (const child of children) {
    if (through.has(child)) return child;
    if (latest === undefined || child.latest > latest.latest) latest = child;
  }
  return latest;
}
