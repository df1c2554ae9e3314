// How a session read from a file stands against what the store holds under its id: not there
// yet, the same, a start of it (the file grew: the rest is appended), or something else (a
// conflict, told by the first line of the file that differs from what was imported). Equal
// hashes are equal events, and a hash covers every event before it, so comparing the stored
// head with the event of the same seq decides.

import type { LogEvent } from '../log/event.js';
import { isPlainObject } from '../log/shape.js';
import type { LogStore } from '../store/log-store.js';
import type { ImportConflict } from './import-errors.js';
import type { SourceFile } from './source-file.js';

export type Reconciled =
  | { readonly kind: 'new' }
  /** The store holds events [0, stored) of the file's session; the file's events from `stored` on are new. */
  | { readonly kind: 'held'; readonly stored: number }
  | { readonly kind: 'conflict'; readonly conflict: ImportConflict };

export interface ReconcileInput {
  readonly sessionId: string;
  readonly path: string;
  /** Every event the file gives now, settled or not. */
  readonly events: readonly LogEvent[];
  /** The file, to name the line that differs (absent for a shadowlog export). */
  readonly file?: SourceFile;
}

export async function reconcileWithStore(store: LogStore, session: ReconcileInput): Promise<Reconciled> {
  const head = await store.head(session.sessionId);
  if (head === undefined) return { kind: 'new' };
  const same = session.events[head.nextSeq - 1];
  if (same !== undefined && same.hash === head.lastHash) return { kind: 'held', stored: head.nextSeq };
  return { kind: 'conflict', conflict: await describeConflict(store, session, head.nextSeq) };
}

async function describeConflict(store: LogStore, session: ReconcileInput, storedEvents: number): Promise<ImportConflict> {
  const base = { sessionId: session.sessionId, path: session.path, storedEvents, importedEvents: session.events.length };
  let seq = 0;
  let firstDifferent: LogEvent | undefined;
  let changedLine: number | undefined;
  const texts = session.file === undefined ? undefined : lineTexts(session.file);
  for await (const page of store.read(session.sessionId)) {
    for (const stored of page) {
      if (firstDifferent === undefined && session.events[seq]?.hash !== stored.hash) firstDifferent = stored;
      seq++;
      if (texts === undefined || changedLine !== undefined) continue;
      for (const { line, text } of linesOf(stored)) {
        if (text === undefined) continue;
        const now = texts.get(line);
        if (now === undefined || !now.includes(text)) {
          changedLine = line;
          break;
        }
      }
    }
    if (firstDifferent !== undefined && (texts === undefined || changedLine !== undefined)) break;
  }
  const firstDifferentSeq = firstDifferent?.seq ?? Math.min(storedEvents, session.events.length);
  if (changedLine !== undefined) {
    const gone = texts?.has(changedLine) === false;
    return {
      ...base,
      firstDifferentSeq,
      line: changedLine,
      reason: gone
        ? `the file no longer has line ${changedLine}, which was imported (it was cut short or replaced)`
        : `line ${changedLine} is not what was imported from it (the file was changed, not only added to)`,
    };
  }
  const line =
    firstDifferent === undefined ? undefined : (linesOf(firstDifferent)[0]?.line ?? nearestLine(session.events, firstDifferentSeq));
  const what =
    firstDifferent === undefined
      ? `the store holds ${storedEvents} events and the file gives ${session.events.length}`
      : `seq ${firstDifferentSeq} was ${firstDifferent.type} and is ${session.events[firstDifferentSeq]?.type ?? 'nothing'} now`;
  return {
    ...base,
    firstDifferentSeq,
    ...(line === undefined ? {} : { line }),
    reason: `the lines imported read the same, but ${line === undefined ? 'they' : `line ${line} on`} map differently now (${what}): a file imported as complete while it was still being written (an answer whose lines kept coming; import live files with --settle, as sync does), or a session imported by another version of shadowlog (a pi session tree imported before shadowlog kept the paths pi left as branches)`,
  };
}

/** The text of each line of the file (a line that held joined records, each of them). */
function lineTexts(file: SourceFile): Map<number, string[]> {
  const texts = new Map<number, string[]>();
  for (const record of file.records) {
    const list = texts.get(record.line) ?? [];
    list.push(record.text);
    texts.set(record.line, list);
  }
  return texts;
}

/** The source lines an imported event names: `sourceLines` of a mapped event, `line` and `text` of a foreign one. */
function linesOf(event: LogEvent): Array<{ line: number; text: string | undefined }> {
  // Any type of event may carry them (an import's own field), so they are read as unknown data.
  const data: unknown = event.data;
  if (!isPlainObject(data)) return [];
  if (Array.isArray(data.sourceLines)) {
    return data.sourceLines.flatMap((ref: unknown) => {
      if (!isPlainObject(ref) || typeof ref.line !== 'number') return [];
      return [{ line: ref.line, text: typeof ref.text === 'string' ? ref.text : undefined }];
    });
  }
  if (typeof data.line === 'number') return [{ line: data.line, text: typeof data.text === 'string' ? data.text : undefined }];
  return [];
}

/** The first line an event at or after `seq` names (a request names none; its answer does). */
function nearestLine(events: readonly LogEvent[], seq: number): number | undefined {
  for (const event of events.slice(seq)) {
    const line = linesOf(event)[0]?.line;
    if (line !== undefined) return line;
  }
  return undefined;
}

/** The first source line the events from `from` on name, for a report of what is held back. */
export function firstLineFrom(events: readonly LogEvent[], from: number): number | null {
  return nearestLine(events, from) ?? null;
}
