// Which lines of a Codex rollout are one model call, and which token_count is its usage. A call
// is a run of output items (reasoning, messages, tool calls) with no input between them (a user
// or developer message, a tool output); a token_count whose totals moved is a new call's count,
// and Codex repeats the last one after tool outputs. Older rollouts (0.58) write the count just
// before the call's items, newer ones just after: the first count's place in the file decides
// which for the whole file.

import type { SourceRecord } from '../source-file.js';
import { objectOf, type SourceObject } from '../source-values.js';
import { isOutputItem } from './codex-items.js';

export interface CodexCall {
  /** Indexes (into the records) of the call's output items, in order. */
  readonly items: readonly number[];
  /** The token_count info that counted it, when one did. */
  readonly usage: SourceObject | undefined;
  /**
   * Whether records added to the file can no longer change it: a later call has begun, or it is
   * closed (an input or a count came after it) and its count is known (newer rollouts write the
   * count after the call's items).
   */
  readonly settled: boolean;
}

export function itemOf(record: SourceRecord): SourceObject | undefined {
  return record.value.type === 'response_item' ? objectOf(record.value.payload) : undefined;
}

function isInput(record: SourceRecord): boolean {
  if (record.value.type === 'compacted') return true;
  const item = itemOf(record);
  return item !== undefined && !isOutputItem(item) && (item.type === 'message' || String(item.type).endsWith('_output'));
}

/** The token_count records whose totals moved: a call's count, not a repeat. Index → info. */
function newCounts(records: readonly SourceRecord[]): Map<number, SourceObject> {
  const counts = new Map<number, SourceObject>();
  let previous: string | undefined;
  records.forEach((record, index) => {
    const payload = record.value.type === 'event_msg' ? objectOf(record.value.payload) : undefined;
    const info = payload?.type === 'token_count' ? objectOf(payload.info) : undefined;
    if (info === undefined) return;
    const totals = JSON.stringify(info.total_token_usage ?? info.last_token_usage);
    if (totals !== previous) counts.set(index, info);
    previous = totals;
  });
  return counts;
}

/** Whether an input or a count comes after index `end`: the run of output items ending there is closed. */
function closedAfter(records: readonly SourceRecord[], end: number, counts: ReadonlyMap<number, SourceObject>): boolean {
  for (let index = end + 1; index < records.length; index++) {
    if (counts.has(index) || isInput(records[index] as SourceRecord)) return true;
  }
  return false;
}

/** The file's model calls, keyed by the index of each call's first item. */
export function codexCalls(records: readonly SourceRecord[]): Map<number, CodexCall> {
  const counts = newCounts(records);
  const runs: number[][] = [];
  let open: number[] | undefined;
  let countSince = false;
  records.forEach((record, index) => {
    if (counts.has(index)) countSince = true;
    const item = itemOf(record);
    if (item !== undefined && isOutputItem(item)) {
      if (open === undefined || countSince) {
        open = [];
        runs.push(open);
      }
      open.push(index);
      countSince = false;
    } else if (isInput(record)) {
      open = undefined;
    }
  });
  const countIndexes = [...counts.keys()];
  const firstRun = runs[0]?.[0] ?? Number.POSITIVE_INFINITY;
  const before = (countIndexes[0] ?? Number.POSITIVE_INFINITY) < firstRun;
  const calls = new Map<number, CodexCall>();
  runs.forEach((run, position) => {
    const start = run[0] as number;
    const end = run[run.length - 1] as number;
    const previousEnd = runs[position - 1]?.at(-1) ?? -1;
    const nextStart = runs[position + 1]?.[0] ?? records.length;
    const candidates = countIndexes.filter((index) => (before ? index > previousEnd && index < start : index > end && index < nextStart));
    const chosen = before ? candidates[candidates.length - 1] : candidates[0];
    const last = position === runs.length - 1;
    const settled = !last || ((before || chosen !== undefined) && closedAfter(records, end, counts));
    calls.set(start, { items: run, usage: chosen === undefined ? undefined : counts.get(chosen), settled });
  });
  return calls;
}
