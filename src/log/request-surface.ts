// A model/request records the surface it rendered (SPEC §4): its surfaceSeqs (or, in format 2,
// its surfaceChange, decoded) must be exactly the surface at its position, or replay would
// rebuild a request from nodes other than the ones the record claims were sent.

import { InvalidEventError } from './errors.js';
import type { LogEvent, ModelRequestData } from './event.js';
import { appliedDataOf, dataOf } from './event-data.js';
import type { RequestState } from './fold-state.js';
import { applySurfaceChange, type RequestSurfaceList } from './surface-change.js';

/** The seqs a model/request rendered, decoded against the session's previous model/request. */
export function requestSurfaceOf(previous: RequestSurfaceList | undefined, data: ModelRequestData, seq: number): readonly number[] {
  if (data.surfaceSeqs !== undefined) return data.surfaceSeqs;
  if (data.surfaceChange !== undefined) return applySurfaceChange(previous, data.surfaceChange, seq);
  throw new InvalidEventError('data.surfaceSeqs', 'present (or, in format 2, surfaceChange)', 'neither', seq);
}

/** How many nodes a model/request rendered, without decoding it. */
export function requestSurfaceLength(data: ModelRequestData): number {
  return data.surfaceSeqs?.length ?? data.surfaceChange?.length ?? 0;
}

/**
 * The fold's record of the latest model/request: each new one is decoded against it, checked
 * against the surface where it stands, and becomes the latest (undoably, for atomic batches).
 *
 * The check costs what changed: the fold tells it of every surface change (noteSurfaceChange),
 * and while the surface has only grown since the latest request, whose seqs were the surface
 * then, the surface is those seqs and the ones appended since; a new request that records
 * exactly that change (one splice appending them, or none) is proven without walking the
 * surface, and its list is the latest's grown in place. Anything else is checked node by node.
 */
export class RequestSurfaces {
  latest: RequestSurfaceList | undefined;
  /** The seqs appended to the surface since the latest request; undefined after a replacement, or before any request. */
  private appended: number[] | undefined;
  /** The list this object made and may grow in place (never a list read from an event). */
  private owned: number[] | undefined;

  /** The seqs appended to the surface since the latest request, when it has only grown since; else undefined. */
  get appendedSinceLatest(): readonly number[] | undefined {
    return this.appended;
  }

  decode(data: ModelRequestData, seq: number): readonly number[] {
    return requestSurfaceOf(this.latest, data, seq);
  }

  /** The surface gained the node `appendedSeq`, or had a range replaced (undefined); returns the undo. */
  noteSurfaceChange(appendedSeq: number | undefined): () => void {
    const appended = this.appended;
    if (appended === undefined) return () => {};
    if (appendedSeq !== undefined) {
      appended.push(appendedSeq);
      return () => {
        appended.pop();
      };
    }
    this.appended = undefined;
    return () => {
      this.appended = appended;
    };
  }

  snapshot(): RequestState | null {
    return this.latest === undefined
      ? null
      : { seq: this.latest.seq, seqs: [...this.latest.seqs], appended: this.appended === undefined ? null : [...this.appended] };
  }

  /** Takes the state of a snapshot (into a fresh object); the list restored is this object's own, and may grow in place. */
  restore(state: RequestState | null): void {
    if (state === null) return;
    const seqs = [...state.seqs];
    this.latest = { seq: state.seq, seqs };
    this.owned = seqs;
    this.appended = state.appended === null ? undefined : [...state.appended];
  }

  /** Checks the model/request `event` against `surface` (the nodes where it stands); returns the undo. */
  apply(event: LogEvent, surface: Iterable<{ readonly seq: number }>): () => void {
    const data = appliedDataOf(event, 'model/request');
    const previous = this.latest;
    const previousAppended = this.appended;
    const previousOwned = this.owned;
    let seqs: readonly number[];
    let grown: { readonly list: number[]; readonly length: number } | undefined;
    if (previous !== undefined && previousAppended !== undefined && recordsAppend(data, previous, previousAppended)) {
      // The surface is previous.seqs + appended (see above), and the request records exactly that.
      if (previous.seqs === previousOwned) {
        grown = { list: previousOwned, length: previousOwned.length };
        for (const appendedSeq of previousAppended) previousOwned.push(appendedSeq);
        seqs = previousOwned;
      } else {
        this.owned = previous.seqs.concat(previousAppended);
        seqs = this.owned;
      }
    } else {
      seqs = this.decode(data, event.seq);
      checkRequestSurface(surface, seqs, event.seq, data.surfaceSeqs === undefined ? 'data.surfaceChange' : 'data.surfaceSeqs');
    }
    this.latest = { seq: event.seq, seqs };
    this.appended = [];
    return () => {
      if (grown !== undefined) grown.list.length = grown.length;
      this.latest = previous;
      this.appended = previousAppended;
      this.owned = previousOwned;
    };
  }
}

/** Does the request record the previous request's surface with `appended` added at its end, and nothing else? */
function recordsAppend(data: ModelRequestData, previous: RequestSurfaceList, appended: readonly number[]): boolean {
  const change = data.surfaceChange;
  if (change === undefined || data.surfaceSeqs !== undefined || change.base !== previous.seq) return false;
  if (change.length !== previous.seqs.length + appended.length) return false;
  if (change.splices.length === 0) return appended.length === 0;
  const [splice] = change.splices;
  if (change.splices.length !== 1 || splice === undefined) return false;
  if (splice[0] !== previous.seqs.length || splice[1] !== 0 || splice.length - 2 !== appended.length) return false;
  for (let index = 0; index < appended.length; index++) if (splice[index + 2] !== appended[index]) return false;
  return true;
}

/**
 * Decodes the surfaces of a session's model/requests for a reader that does not fold the log
 * (stats, the compaction meter's anchor): hand it every model/request in seq order.
 */
export class RequestSurfaceDecoder {
  private previous: RequestSurfaceList | undefined;

  /** The latest model/request decoded (what the next one is decoded against), if any. */
  get latest(): RequestSurfaceList | undefined {
    return this.previous;
  }

  /** Decodes the next model/request against `latest` instead, as if it had been the last one decoded. */
  resumeFrom(latest: RequestSurfaceList | undefined): void {
    this.previous = latest;
  }

  decode(event: LogEvent): readonly number[] {
    const seqs = requestSurfaceOf(this.previous, dataOf(event, 'model/request'), event.seq);
    this.previous = { seq: event.seq, seqs };
    return seqs;
  }
}

export function checkRequestSurface(
  surface: Iterable<{ readonly seq: number }>,
  surfaceSeqs: readonly number[],
  seq: number,
  field = 'data.surfaceSeqs',
): void {
  let position = 0;
  let difference: string | undefined;
  for (const node of surface) {
    if (difference === undefined && surfaceSeqs[position] !== node.seq) {
      const recorded = surfaceSeqs[position];
      difference = `position ${position}: recorded ${recorded === undefined ? 'nothing' : `#${recorded}`}, the surface has #${node.seq}`;
    }
    position++;
  }
  if (difference === undefined && surfaceSeqs.length > position) {
    difference = `position ${position}: recorded #${surfaceSeqs[position]}, the surface has nothing`;
  }
  if (difference !== undefined) {
    throw new InvalidEventError(
      field,
      'the seqs of the surface at its position, in order',
      `a list that differs first at ${difference} (${surfaceSeqs.length} recorded, ${position} on the surface)`,
      seq,
    );
  }
}

/** The decoded surface of every model/request among `events` (a whole log, in seq order), by seq. */
export function requestSurfacesOf(events: Iterable<LogEvent>): Map<number, readonly number[]> {
  const decoder = new RequestSurfaceDecoder();
  const surfaces = new Map<number, readonly number[]>();
  for (const event of events) if (event.type === 'model/request') surfaces.set(event.seq, decoder.decode(event));
  return surfaces;
}
