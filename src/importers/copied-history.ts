// A session file that starts with a copy of another session's history (a Claude Code
// `--fork-session` file, a Codex rollout made by `/fork`) as a branch of that session (SPEC §14).
// The copy's lines are not the parent's lines (another session id, new timestamps), so the
// file is first mapped on its own and its events compared with the parent's as imported, the
// source's line texts and times aside: the last point where every event so far matches the
// parent's, every record so far is mapped and no tool call waits for its result is where the
// branch leaves. Then it is mapped again, taking the parent's events for the copied records
// (the prefix is read from the parent, never copied), a session/fork, and its own records.

import { canonicalJson } from '../log/canonical-json.js';
import type { LogEvent } from '../log/event.js';
import { isForeignType } from '../log/foreign-event.js';
import { isPlainObject } from '../log/shape.js';
import type { SessionBuilder } from './session-builder.js';

/** What the comparison needs of a source's mapper: its records one by one, and where they are all mapped. */
export interface StepMapper {
  /** The number of records. */
  readonly length: number;
  feed(index: number): void;
  /**
   * Whether every record before `index` is in the builder's events once record `index` comes
   * (or the records end, for `index === length`), mapping what that record would complete.
   */
  settledBefore(index: number): boolean;
  /** The end of the records. */
  end(): void;
  /** The source line of record `index`, for a report. */
  lineOf(index: number): number;
}

/** Why a forked file the store holds whole already is not made a branch on a later import. */
export const STORED_WHOLE =
  'the store holds it already, imported whole before its parent was, and it stays so (as a branch its events would differ); import it under another id with --as ID, or into another store, to link it';

export interface CopiedHistoryInput {
  readonly parentSessionId: string;
  readonly parentEvents: readonly LogEvent[];
  /** A mapper over a new builder, taking `prefix` (the parent's events) for the records that copy them. */
  readonly mapperFor: (prefix: readonly LogEvent[]) => { readonly builder: SessionBuilder; readonly mapper: StepMapper };
  /** The records that must be part of the copy (those the source marks as copied); the branch may not leave before them. */
  readonly copied: number;
  /** Called right after the session/fork, before the branch's own records (a Codex fork's own session_meta). */
  readonly afterFork?: (builder: SessionBuilder) => void;
}

export type CopiedHistoryResult =
  | { readonly kind: 'branch'; readonly builder: SessionBuilder }
  | { readonly kind: 'unlinked'; readonly reason: string };

export function forkFromCopiedHistory(input: CopiedHistoryInput): CopiedHistoryResult {
  const { parentEvents, parentSessionId } = input;
  const first = input.mapperFor([]);
  let matched = 0;
  let best: { readonly index: number; readonly events: number } | undefined;
  let differs: number | undefined;
  for (let index = 0; index <= first.mapper.length; index++) {
    const settled = first.mapper.settledBefore(index);
    const events = first.builder.events;
    while (matched < events.length && matched < parentEvents.length && sameEvent(events[matched], parentEvents[matched])) matched++;
    if (matched < events.length) {
      differs = Math.max(0, index - 1);
      break;
    }
    if (settled && first.builder.forkProblem() === undefined) best = { index, events: events.length };
    if (index < first.mapper.length) first.mapper.feed(index);
  }
  const line = differs === undefined ? undefined : first.mapper.lineOf(differs);
  if (best === undefined || best.index < input.copied || best.events <= 1) {
    const where = line === undefined ? '' : ` (from line ${line})`;
    return {
      kind: 'unlinked',
      reason: `its copy of ${parentSessionId}'s history does not match ${parentSessionId} as imported${where}`,
    };
  }
  const second = input.mapperFor(parentEvents.slice(0, best.events));
  for (let index = 0; index < best.index; index++) second.mapper.feed(index);
  second.mapper.settledBefore(best.index);
  second.builder.fork(parentSessionId);
  input.afterFork?.(second.builder);
  for (let index = best.index; index < second.mapper.length; index++) second.mapper.feed(index);
  second.mapper.end();
  return { kind: 'branch', builder: second.builder };
}

/** Keys of a source line that differ between a copy and its original: when and in which session it was written. */
const COPY_KEYS = new Set(['timestamp', 'sessionId', 'forkedFrom', 'parentUuid', 'logicalParentUuid']);

/** Whether a copy's event is the parent's: the same event, the source's line numbers, texts and times aside. */
function sameEvent(copy: LogEvent | undefined, original: LogEvent | undefined): boolean {
  if (copy === undefined || original === undefined) return false;
  if (copy.type !== original.type || copy.seq !== original.seq) return false;
  if (canonicalJson(copy.surfaceOp ?? null) !== canonicalJson(original.surfaceOp ?? null)) return false;
  return comparable(copy) === comparable(original);
}

function comparable(event: LogEvent): string {
  const data: unknown = event.data;
  if (!isPlainObject(data)) return canonicalJson(data ?? null);
  if (isForeignType(event.type) && typeof data.text === 'string') {
    try {
      const line: unknown = JSON.parse(data.text);
      if (isPlainObject(line)) return canonicalJson(Object.fromEntries(Object.entries(line).filter(([key]) => !COPY_KEYS.has(key))));
    } catch {
      // A line that is not JSON is compared as it is.
    }
    return data.text;
  }
  return canonicalJson(Object.fromEntries(Object.entries(data).filter(([key]) => !/sourceLines$/i.test(key))));
}
