// What a store holds of a pi file's sessions already: for each, the id of the last entry it
// holds, so that a re-import keeps every stored session on the path it was imported with (a pi
// session that went back to an earlier entry after an import gets a branch, and the stored
// session is left as it is: stored events are never rewritten).

import type { LogEvent } from '../../log/event.js';
import { isPlainObject } from '../../log/shape.js';
import type { LogStore } from '../../store/log-store.js';
import type { ImportOptions } from '../importer-options.js';
import type { SourceFile } from '../source-file.js';
import { piSessionIds } from './pi-importer.js';

/** Events read at a time, from the end, to find the last one that names its source line. */
const WINDOW = 32;

/** The stored sessions `files` could give, each with the id of the last pi entry the store holds of it. */
export async function storedPiLeaves(store: LogStore, files: readonly SourceFile[], options: ImportOptions): Promise<Map<string, string>> {
  const leaves = new Map<string, string>();
  for (const file of files) {
    const ids = piSessionIds(file, options);
    // A file with no entry that has a sibling is one path: there is nothing to choose.
    if (ids.length === 1) continue;
    for (const sessionId of ids) {
      const leaf = await lastEntryId(store, sessionId);
      if (leaf !== undefined) leaves.set(sessionId, leaf);
    }
  }
  return leaves;
}

async function lastEntryId(store: LogStore, sessionId: string): Promise<string | undefined> {
  const head = await store.head(sessionId);
  if (head === undefined) return undefined;
  for (let end = head.nextSeq; end > 0; end -= WINDOW) {
    const events: LogEvent[] = [];
    for await (const page of store.read(sessionId, { fromSeq: Math.max(0, end - WINDOW), toSeq: end })) events.push(...page);
    for (let index = events.length - 1; index >= 0; index--) {
      const entry = entryOf(events[index] as LogEvent);
      if (entry !== undefined) return entry.id;
    }
  }
  return undefined;
}

/**
 * The pi entry in the source text an imported event keeps (`sourceLines` of a mapped one, `text`
 * of a foreign one), with its id: undefined for an event that keeps none; an entry without an id
 * (version 1) has none to give.
 */
function entryOf(event: LogEvent): { id: string | undefined } | undefined {
  // Any type of event may carry them (an import's own field), so they are read as unknown data.
  const data: unknown = event.data;
  if (!isPlainObject(data)) return undefined;
  const texts: unknown[] = Array.isArray(data.sourceLines)
    ? data.sourceLines.map((ref: unknown) => (isPlainObject(ref) ? ref.text : undefined))
    : [data.text];
  for (const text of texts.reverse()) {
    if (typeof text !== 'string') continue;
    try {
      const entry: unknown = JSON.parse(text);
      if (isPlainObject(entry) && entry.type !== 'session') return { id: typeof entry.id === 'string' ? entry.id : undefined };
    } catch {
      // Not a whole record: a line of another form names no entry.
    }
  }
  return undefined;
}
