// The compact encoding of a model/request's surface (format 2): the change from the session's
// previous model/request, so that a call costs log bytes in proportion to what changed since the
// last one, not to the length of the surface. Between two calls a surface only gains nodes at its
// tail and has runs of nodes replaced by one (compaction, pruning); each of those is one splice.
//
//   surfaceChange: {base: 812, length: 10000, splices: [[9998, 0, 815, 816]]}
//
// reads: take the list of the model/request at seq 812, keep it up to position 9998, remove 0
// seqs there, put 815 and 816 there, keep the rest; the result has 10,000 seqs. Splices name
// positions in the base list, in increasing order, and do not overlap. Decoding is one pass over
// the base list.

import { InvalidEventError } from './errors.js';
import type { SessionSeq } from './seq.js';

/** At `position` of the base list, remove `deleteCount` seqs and put the seqs that follow there. */
export type SurfaceSplice = [position: number, deleteCount: number, ...seqs: SessionSeq[]];

export interface SurfaceChange {
  /** The seq of the session's previous model/request, whose list this changes. */
  base: SessionSeq;
  /** How many seqs the decoded list has (a reader can show it without decoding). */
  length: number;
  splices: SurfaceSplice[];
}

/** A model/request's decoded surface: its seq and the seqs of the nodes it rendered. */
export interface RequestSurfaceList {
  readonly seq: number;
  readonly seqs: readonly number[];
}

/** The characters of `{"surfaceSeqs":…}` around the list's own JSON. */
const PLAIN_LIST_WRAPPER = '{"surfaceSeqs":}'.length;

/**
 * The shorter encoding of `seqs` for a model/request written after `previous` (the session's
 * previous model/request, if any): the change from it, or the plain list when that is no shorter
 * in JSON (always for a session's first call). O(length) time; a map is built only past the
 * first difference, which for a surface that only grew is never.
 */
export function encodeRequestSurface(
  previous: RequestSurfaceList | undefined,
  seqs: readonly number[],
): { surfaceSeqs: number[] } | { surfaceChange: SurfaceChange } {
  if (previous === undefined) return { surfaceSeqs: [...seqs] };
  const splices = spliceList(previous.seqs, seqs);
  const change = { surfaceChange: { base: previous.seq as SessionSeq, length: seqs.length, splices } };
  const changeLength = JSON.stringify(change).length;
  if (shorterThanAnyList(changeLength, seqs.length)) return change;
  return changeLength < PLAIN_LIST_WRAPPER + jsonLengthOf(seqs) ? change : { surfaceSeqs: [...seqs] };
}

/**
 * What encodeRequestSurface returns for a surface that is `previous`'s list with `appended` added
 * at its end, in time proportional to `appended`, not to the surface: the change of one splice
 * (none when nothing was appended). Undefined when the plain list might be the shorter; encode
 * the whole list with encodeRequestSurface then (the change is then about as long as the list).
 */
export function encodeGrownSurface(
  previous: RequestSurfaceList,
  appended: readonly number[],
): { surfaceChange: SurfaceChange } | undefined {
  const length = previous.seqs.length + appended.length;
  const splices: SurfaceSplice[] = appended.length === 0 ? [] : [[previous.seqs.length, 0, ...(appended as SessionSeq[])]];
  const change = { surfaceChange: { base: previous.seq as SessionSeq, length, splices } };
  // The same test encodeRequestSurface makes first; past it, that function compares exact lengths.
  return shorterThanAnyList(JSON.stringify(change).length, length) ? change : undefined;
}

/**
 * Whether a change of JSON length `changeLength` is shorter than the plain list of any `count`
 * seqs, whose JSON has at least 2 characters per seq: then the list's exact length is not needed.
 */
function shorterThanAnyList(changeLength: number, count: number): boolean {
  return changeLength < PLAIN_LIST_WRAPPER + 2 * count + 1;
}

/** The length of the JSON of a list of non-negative integers, without writing it. */
function jsonLengthOf(seqs: readonly number[]): number {
  let length = 2 + Math.max(0, seqs.length - 1);
  for (const seq of seqs)
    length += seq < 10 ? 1 : seq < 100 ? 2 : seq < 1000 ? 3 : seq < 10_000 ? 4 : seq < 100_000 ? 5 : String(seq).length;
  return length;
}

function spliceList(previous: readonly number[], next: readonly number[]): SurfaceSplice[] {
  let prefix = 0;
  const shorter = Math.min(previous.length, next.length);
  while (prefix < shorter && previous[prefix] === next[prefix]) prefix++;
  if (prefix === previous.length) return prefix === next.length ? [] : [[prefix, 0, ...(next.slice(prefix) as SessionSeq[])]];
  const positions = new Map<number, number>();
  for (let index = prefix; index < previous.length; index++) positions.set(previous[index] as number, index);
  const splices: SurfaceSplice[] = [];
  let cursor = prefix;
  let open: SurfaceSplice | undefined;
  for (let index = prefix; index < next.length; index++) {
    const seq = next[index] as SessionSeq;
    const at = positions.get(seq);
    if (at !== undefined && at >= cursor) {
      // Kept from the base list: what stands between the cursor and it was removed.
      if (at > cursor) {
        open ??= [cursor, 0];
        open[1] += at - cursor;
      }
      if (open !== undefined) splices.push(open);
      open = undefined;
      cursor = at + 1;
    } else {
      open ??= [cursor, 0];
      open.push(seq);
    }
  }
  if (cursor < previous.length) {
    open ??= [cursor, 0];
    open[1] += previous.length - cursor;
  }
  if (open !== undefined) splices.push(open);
  return splices;
}

/**
 * Decodes `change` against `previous`, the session's previous model/request. Throws an
 * InvalidEventError naming the field when the base is not that request, a splice does not fit
 * the base list, or the result does not have the stated length.
 */
export function applySurfaceChange(previous: RequestSurfaceList | undefined, change: SurfaceChange, seq: number): number[] {
  const field = 'data.surfaceChange';
  if (previous === undefined || previous.seq !== change.base) {
    const latest = previous === undefined ? 'the session has no earlier model/request' : `the previous one is #${previous.seq}`;
    throw new InvalidEventError(`${field}.base`, "the seq of the session's previous model/request", `${change.base} (${latest})`, seq);
  }
  const base = previous.seqs;
  const out: number[] = [];
  let cursor = 0;
  change.splices.forEach((splice, index) => {
    const [position, deleteCount] = splice;
    if (position < cursor || position + deleteCount > base.length) {
      throw new InvalidEventError(
        `${field}.splices[${index}]`,
        `a splice within the base list of ${base.length} seqs, at or after position ${cursor} (splices are in order and do not overlap)`,
        `position ${position}, ${deleteCount} removed`,
        seq,
      );
    }
    for (let at = cursor; at < position; at++) out.push(base[at] as number);
    for (let at = 2; at < splice.length; at++) out.push(splice[at] as number);
    cursor = position + deleteCount;
  });
  for (let at = cursor; at < base.length; at++) out.push(base[at] as number);
  if (out.length !== change.length) {
    throw new InvalidEventError(`${field}.length`, `the length of the decoded list, ${out.length}`, String(change.length), seq);
  }
  return out;
}
