// Where a hit stands: on the session's surface, shadowed there by a compaction or a prune (the
// original is kept in the log, and the surface shows its replacement), or on no surface at all
// (a log-only event: a model request, an error, another harness's line).

import { isSurfaceType, type LogEvent } from '../../log/event.js';
import { isReplaceOp } from '../../log/surface-op.js';

export type SearchPlace = 'surface' | 'shadowed' | 'log-only';

/** Does `event` replace surface nodes (a summary, a pruned result)? */
export function isSurfaceReplacement(event: LogEvent): boolean {
  return isReplaceOp(event.surfaceOp);
}

/**
 * The seqs `event` shadows: a replacement's sourceEventSeqs (the surface nodes it replaces, and
 * the log-only metering events that belong to it). A surface node is shadowed once for good: the
 * log is append-only and a shadowed node never comes back to the surface.
 */
export function shadowedSeqsOf(event: LogEvent): readonly number[] {
  return isReplaceOp(event.surfaceOp) ? (event.sourceEventSeqs ?? []) : [];
}

/** The place of an event of `type`, shadowed by the event at `shadowedBy` if any. */
export function placeOf(type: string, shadowedBy: number | undefined): SearchPlace {
  if (!isSurfaceType(type)) return 'log-only';
  return shadowedBy === undefined ? 'surface' : 'shadowed';
}
