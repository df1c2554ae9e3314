// A model/request records the surface it rendered (SPEC §4): its surfaceSeqs (or, in format 2,
// its surfaceChange, decoded) must be exactly the surface at its position, or replay would
// rebuild a request from nodes other than the ones the record claims were sent.

import { InvalidEventError } from './errors.js';
import type { LogEvent, ModelRequestData } from './event.js';
import { dataOf } from './event-data.js';
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
 */
export class RequestSurfaces {
  latest: RequestSurfaceList | undefined;

  decode(data: ModelRequestData, seq: number): readonly number[] {
    return requestSurfaceOf(this.latest, data, seq);
  }

  /** Checks the model/request `event` against `surface` (the nodes where it stands); returns the undo. */
  apply(event: LogEvent, surface: Iterable<{ readonly seq: number }>): () => void {
    const data = dataOf(event, 'model/request');
    const seqs = this.decode(data, event.seq);
    checkRequestSurface(surface, seqs, event.seq, data.surfaceSeqs === undefined ? 'data.surfaceChange' : 'data.surfaceSeqs');
    const previous = this.latest;
    this.latest = { seq: event.seq, seqs };
    return () => {
      this.latest = previous;
    };
  }
}

/**
 * Decodes the surfaces of a session's model/requests for a reader that does not fold the log
 * (stats, the compaction meter's anchor): hand it every model/request in seq order.
 */
export class RequestSurfaceDecoder {
  private previous: RequestSurfaceList | undefined;

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
