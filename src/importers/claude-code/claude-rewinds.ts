// Claude Code's rewinds in one transcript. Every record names the one it follows (`parentUuid`),
// and a rewind deletes nothing: the next message names an earlier one as its parent, and what
// followed that one stays in the file. So the records form a tree; the latest path (from the
// last message back to the root) is the session, and each abandoned path that holds a
// conversation of its own (a prompt, or an answer the main path does not have) is a branch of
// the path it left (SPEC §14). Not rewinds: a compact boundary (no parentUuid; its
// logicalParentUuid, or else the message before it, is where it continues), the results of
// parallel tool calls (each names the tool_use line it answers), progress and system lines
// hanging beside the path. Those stay in the session, in file order, as before. A record without
// a uuid goes with the next record that has one.

import type { SourceRecord } from '../source-file.js';
import { arrayOf, objectOf, stringOf } from '../source-values.js';

/** A path of the transcript that becomes a session: its own records (indices, in file order). */
export interface ClaudePath {
  /** The uuid of its first own record (for a branch; the main path has none). */
  readonly rootUuid: string | undefined;
  readonly own: readonly number[];
  /** For a branch: the path it leaves (an index into the paths) and the index of its first own record. */
  readonly parent?: { readonly path: number; readonly at: number };
}

/**
 * The paths of a transcript's main (non-sidechain) records: the main path first, then each
 * branch after the path it leaves. A transcript without rewinds is one path of every record.
 */
export function claudePaths(records: readonly SourceRecord[], storedLine?: number): ClaudePath[] {
  const all = records.map((_, index) => index);
  const tree = recordTree(records);
  const leaf = storedLeaf(records, tree, storedLine) ?? lastMessage(records, tree.indexOf);
  if (leaf === undefined) return [{ rootUuid: undefined, own: all }];
  const paths: ClaudePath[] = [];
  const owner = new Map<number, number>();
  // Each path claims its latest path; what hangs beside it is a branch of it or stays with it.
  const claim = (pathIndex: number, start: number, root: number | undefined): void => {
    const onPath = new Set<number>();
    for (let at: number | undefined = start; at !== undefined && at !== root; at = tree.parentOf[at]) onPath.add(at);
    if (root !== undefined) onPath.add(root);
    const subtrees = new Map<number, number[]>();
    for (const index of tree.descendants(root)) {
      if (onPath.has(index)) continue;
      const top = topOff(index, onPath, tree.parentOf);
      if (top === undefined) continue;
      const members = subtrees.get(top);
      if (members === undefined) subtrees.set(top, [index]);
      else members.push(index);
    }
    const mainMessageIds = new Set([...onPath].map((index) => answerId(records[index] as SourceRecord)));
    for (const [top, members] of [...subtrees].sort(([a], [b]) => a - b)) {
      if (!members.some((index) => isOwnConversation(records[index] as SourceRecord, mainMessageIds))) continue;
      const branchIndex = paths.length;
      paths.push({ rootUuid: stringOf(records[top]?.value.uuid), own: [], parent: { path: pathIndex, at: top } });
      for (const index of members) owner.set(index, branchIndex);
      const branchLeaf = lastMessage(
        members.map((index) => records[index] as SourceRecord),
        (position) => members[position],
      );
      claim(branchIndex, branchLeaf ?? top, top);
    }
  };
  paths.push({ rootUuid: undefined, own: [] });
  claim(0, leaf, undefined);
  if (paths.length === 1) return [{ rootUuid: undefined, own: all }];
  // A record without a uuid (a file-history-snapshot, written before the prompt it belongs to)
  // goes with the next record that has one.
  let next = 0;
  for (let index = records.length - 1; index >= 0; index--) {
    if (stringOf(records[index]?.value.uuid) !== undefined) next = owner.get(index) ?? 0;
    else owner.set(index, next);
  }
  const owns: number[][] = paths.map(() => []);
  for (const index of all) owns[owner.get(index) ?? 0]?.push(index);
  return paths.map((path, index) => ({ ...path, own: owns[index] ?? [] }));
}

interface RecordTree {
  /** The record each record continues (undefined for a root or a record outside the tree). */
  readonly parentOf: ReadonlyArray<number | undefined>;
  readonly indexOf: (position: number) => number;
  /** The records under `root` (every record in the tree when undefined), in file order. */
  descendants(root: number | undefined): number[];
}

function recordTree(records: readonly SourceRecord[]): RecordTree {
  const byUuid = new Map<string, number>();
  const parentOf: Array<number | undefined> = [];
  let lastMessageIndex: number | undefined;
  records.forEach((record, index) => {
    const uuid = stringOf(record.value.uuid);
    const named = stringOf(record.value.parentUuid);
    let parent = named === undefined ? undefined : byUuid.get(named);
    if (named === undefined && isCompactBoundary(record)) {
      // A compaction continues the conversation it summarizes, whatever its parentUuid says.
      const logical = stringOf(record.value.logicalParentUuid);
      parent = (logical === undefined ? undefined : byUuid.get(logical)) ?? lastMessageIndex;
    }
    parentOf.push(uuid === undefined ? undefined : parent);
    if (uuid !== undefined && !byUuid.has(uuid)) byUuid.set(uuid, index);
    if (uuid !== undefined && isMessage(record)) lastMessageIndex = index;
  });
  const children = new Map<number | undefined, number[]>();
  parentOf.forEach((parent, index) => {
    if (stringOf(records[index]?.value.uuid) === undefined) return;
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [index]);
    else siblings.push(index);
  });
  return {
    parentOf,
    indexOf: (position) => position,
    descendants(root) {
      const found: number[] = root === undefined ? [] : [root];
      const stack = [...(children.get(root) ?? [])];
      while (stack.length > 0) {
        const index = stack.pop() as number;
        found.push(index);
        stack.push(...(children.get(index) ?? []));
      }
      return found.sort((a, b) => a - b);
    },
  };
}

/**
 * The record under the path that `index` hangs from: its ancestor whose parent is on the path,
 * or the root of a tree the path is not in (a rewind to the first prompt starts a new root).
 */
function topOff(index: number, onPath: ReadonlySet<number>, parentOf: ReadonlyArray<number | undefined>): number | undefined {
  let at = index;
  for (let steps = 0; steps < parentOf.length; steps++) {
    const parent = parentOf[at];
    if (parent === undefined) return at;
    if (onPath.has(parent)) return at;
    at = parent;
  }
  return undefined;
}

/**
 * The leaf of the path a stored session continues, when the store holds the transcript's
 * session (imported up to `storedLine`): the last message under that line's record. The store's
 * events never change, so a rewind made since the import leaves that path the session, and the
 * new latest path a branch of it.
 */
function storedLeaf(records: readonly SourceRecord[], tree: RecordTree, storedLine: number | undefined): number | undefined {
  if (storedLine === undefined) return undefined;
  let index: number | undefined;
  records.forEach((record, position) => {
    if (record.line === storedLine && stringOf(record.value.uuid) !== undefined) index = position;
  });
  if (index === undefined) return undefined;
  const under = tree.descendants(index);
  return lastMessage(
    under.map((position) => records[position] as SourceRecord),
    (position) => under[position],
  );
}

/** The index of the last user or assistant record that has a uuid. */
function lastMessage(records: readonly SourceRecord[], indexOf: (position: number) => number | undefined): number | undefined {
  for (let position = records.length - 1; position >= 0; position--) {
    const record = records[position] as SourceRecord;
    if (stringOf(record.value.uuid) !== undefined && isMessage(record)) return indexOf(position);
  }
  return undefined;
}

/** A record that makes an abandoned path a conversation of its own: a prompt, or an answer the path it left does not hold. */
function isOwnConversation(record: SourceRecord, pathAnswers: ReadonlySet<string | undefined>): boolean {
  if (record.value.type === 'user') {
    if (record.value.isMeta === true || record.value.isCompactSummary === true) return false;
    const content = objectOf(record.value.message)?.content;
    if (typeof content === 'string') return true;
    return arrayOf(content).some((block) => objectOf(block)?.type !== 'tool_result');
  }
  if (record.value.type !== 'assistant') return false;
  const message = objectOf(record.value.message);
  return message?.model !== '<synthetic>' && !pathAnswers.has(answerId(record));
}

function answerId(record: SourceRecord): string | undefined {
  return record.value.type === 'assistant' ? stringOf(objectOf(record.value.message)?.id) : undefined;
}

function isMessage(record: SourceRecord): boolean {
  return record.value.type === 'user' || record.value.type === 'assistant';
}

function isCompactBoundary(record: SourceRecord): boolean {
  return record.value.type === 'system' && record.value.subtype === 'compact_boundary';
}
