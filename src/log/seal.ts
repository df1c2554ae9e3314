// Turning drafts into sealed events: each is copied into canonical form, given its seq, time
// and hash, and checked against the fold. A batch is all or nothing.

import { canonicalJson } from './canonical-json.js';
import { checkType, isIsoUtc } from './envelope.js';
import { FoldStateError, InvalidEventError } from './errors.js';
import type { EventDraft, JsonObject, LogEvent } from './event.js';
import { computeEventHash, type UnsealedEvent } from './hash.js';
import type { SessionSeq } from './seq.js';
import { describeValue } from './seq.js';
import { isPlainObject } from './shape.js';
import type { SurfaceFold } from './surface-fold.js';

export interface PreparedAppend {
  readonly events: readonly LogEvent[];
  /** Takes the batch back out of the fold (when the store refused it). */
  readonly rollback: () => void;
}

/**
 * Seals `drafts` as the next events after the fold's head and applies them to the fold.
 * Throws a typed error, leaving the fold as it was, if any draft is refused.
 */
export function prepareAppend(
  fold: SurfaceFold,
  drafts: readonly EventDraft[],
  now: () => string = () => new Date().toISOString(),
): PreparedAppend {
  const undos: Array<() => void> = [];
  const firstSeq = fold.nextSeq;
  const rollback = () => {
    // Undoing is only sound while this batch is still the fold's tail.
    if (fold.nextSeq !== firstSeq + undos.length) {
      throw new FoldStateError(
        `cannot roll back events ${firstSeq}–${firstSeq + undos.length - 1}: the fold has moved on to seq ${fold.nextSeq}; appends to one fold must not overlap`,
      );
    }
    for (let i = undos.length - 1; i >= 0; i--) (undos[i] as () => void)();
    undos.length = 0;
  };
  const events: LogEvent[] = [];
  try {
    for (const draft of drafts) {
      const event = sealDraft(draft, fold.nextSeq as SessionSeq, fold.lastHash, now);
      undos.push(fold.apply(event));
      events.push(event);
    }
  } catch (error) {
    rollback();
    throw error;
  }
  return { events, rollback };
}

const DRAFT_KEYS = new Set(['type', 'data', 'surfaceOp', 'sourceEventSeqs', 'ignorable', 'time']);

export function sealDraft(draft: EventDraft, seq: SessionSeq, prevHash: string, now: () => string): LogEvent {
  if (!isPlainObject(draft)) throw new InvalidEventError('event', 'an object', describeValue(draft), seq);
  for (const key of Object.keys(draft)) {
    if (!DRAFT_KEYS.has(key))
      throw new InvalidEventError(
        key,
        `not present: a draft has only ${[...DRAFT_KEYS].join(', ')} (the log assigns seq and hash)`,
        'it',
        seq,
      );
  }
  checkType(draft.type, seq);
  if (!isPlainObject(draft.data)) throw new InvalidEventError('data', 'an object', describeValue(draft.data), seq);
  const time = draft.time ?? now();
  if (!isIsoUtc(time))
    throw new InvalidEventError('time', 'an ISO-8601 UTC time such as 2026-01-31T12:00:00.000Z', describeValue(time), seq);
  if (draft.ignorable !== undefined && draft.ignorable !== true) {
    throw new InvalidEventError('ignorable', 'true or absent', describeValue(draft.ignorable), seq);
  }
  // A canonical copy: what is hashed is what is stored, and later changes to the caller's
  // objects cannot reach the log.
  const unsealed: { -readonly [K in keyof UnsealedEvent]: UnsealedEvent[K] } = {
    seq,
    type: draft.type,
    time,
    data: JSON.parse(canonicalJson(draft.data)) as JsonObject,
  };
  if (draft.surfaceOp !== undefined) unsealed.surfaceOp = JSON.parse(canonicalJson(draft.surfaceOp)) as UnsealedEvent['surfaceOp'] & {};
  if (draft.sourceEventSeqs !== undefined) unsealed.sourceEventSeqs = JSON.parse(canonicalJson(draft.sourceEventSeqs)) as SessionSeq[];
  if (draft.ignorable === true) unsealed.ignorable = true;
  return { ...unsealed, hash: computeEventHash(prevHash, unsealed) };
}
