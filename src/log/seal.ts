// Turning drafts into sealed events: each is copied into canonical form, given its seq, time
// and hash, and checked against the fold. A batch is all or nothing.

import { canonicalJsonAndCopy } from './canonical-json.js';
import { checkType } from './envelope.js';
import { FoldStateError, InvalidEventError } from './errors.js';
import type { EventDraft, JsonObject, LogEvent } from './event.js';
import { sealEvent } from './event-json.js';
import type { Hasher, UnsealedEvent } from './hash.js';
import { TIME_EXPECTED, timeProblem } from './iso-time.js';
import type { SessionSeq } from './seq.js';
import { describeValue } from './seq.js';
import { sha256Hex } from './sha256.js';
import { isPlainObject } from './shape.js';
import type { SurfaceFold } from './surface-fold.js';

export interface PreparedAppend {
  readonly events: readonly LogEvent[];
  /** Takes the batch back out of the fold (when the store refused it). */
  readonly rollback: () => void;
}

/**
 * Seals `drafts` as the next events after the fold's head and applies them to the fold.
 * Throws a typed error, leaving the fold as it was, if any draft is refused. `hasher` computes
 * the SHA-256 (on Node, pass a node:crypto one: it is several times faster).
 */
export function prepareAppend(
  fold: SurfaceFold,
  drafts: readonly EventDraft[],
  now: () => string = () => new Date().toISOString(),
  hasher: Hasher = sha256Hex,
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
      const seq = fold.nextSeq as SessionSeq;
      const event = sealDraft(draft, seq, fold.lastHash, now, hasher);
      undos.push(fold.apply(event));
      // The rules only new events are held to (a token count once written wrong): a stored event that breaks them still reads.
      fold.registry.validateNewData(event.type, event.data, seq);
      events.push(event);
    }
  } catch (error) {
    rollback();
    throw error;
  }
  return { events, rollback };
}

/** The latest time sealDraft found valid. */
let lastCheckedTime: unknown;

const DRAFT_KEYS: readonly string[] = ['type', 'data', 'surfaceOp', 'sourceEventSeqs', 'ignorable', 'time'];

/** The canonical JSON of the surfaceOp nearly every surface event has. */
const APPEND_JSON = '"append"';

export function sealDraft(draft: EventDraft, seq: SessionSeq, prevHash: string, now: () => string, hasher: Hasher = sha256Hex): LogEvent {
  if (!isPlainObject(draft)) throw new InvalidEventError('event', 'an object', describeValue(draft), seq);
  for (const key of Object.keys(draft)) {
    if (!DRAFT_KEYS.includes(key))
      throw new InvalidEventError(key, `not present: a draft has only ${DRAFT_KEYS.join(', ')} (the log assigns seq and hash)`, 'it', seq);
  }
  checkType(draft.type, seq);
  if (!isPlainObject(draft.data)) throw new InvalidEventError('data', 'an object', describeValue(draft.data), seq);
  const time = draft.time ?? now();
  // Drafts of one batch mostly share their time (to the millisecond): a time checked already
  // is not parsed again.
  if (time !== lastCheckedTime) {
    const badTime = timeProblem(time);
    if (badTime !== undefined) throw new InvalidEventError('time', TIME_EXPECTED, badTime, seq);
    lastCheckedTime = time;
  }
  if (draft.ignorable !== undefined && draft.ignorable !== true) {
    throw new InvalidEventError('ignorable', 'true or absent', describeValue(draft.ignorable), seq);
  }
  // A canonical copy: what is hashed is what is stored, and later changes to the caller's
  // objects cannot reach the log. Each part is written once, at the depth it has inside the
  // envelope (so the depth limit applies as to the whole), together with a copy equal to
  // JSON.parse of what was written; the hashed envelope and the stored body are assembled from it.
  const data = canonicalJsonAndCopy(draft.data, 1);
  const unsealed: { -readonly [K in keyof UnsealedEvent]: UnsealedEvent[K] } = {
    seq,
    type: draft.type,
    time,
    data: data.copy as JsonObject,
  };
  let surfaceOp: string | undefined;
  let sourceEventSeqs: string | undefined;
  if (draft.surfaceOp === 'append') {
    surfaceOp = APPEND_JSON;
    unsealed.surfaceOp = 'append';
  } else if (draft.surfaceOp !== undefined) {
    const written = canonicalJsonAndCopy(draft.surfaceOp, 1);
    surfaceOp = written.json;
    unsealed.surfaceOp = written.copy as UnsealedEvent['surfaceOp'] & {};
  }
  if (draft.sourceEventSeqs !== undefined) {
    const written = canonicalJsonAndCopy(draft.sourceEventSeqs, 1);
    sourceEventSeqs = written.json;
    unsealed.sourceEventSeqs = written.copy as SessionSeq[];
  }
  if (draft.ignorable === true) unsealed.ignorable = true;
  return sealEvent(unsealed, { data: data.json, surfaceOp, sourceEventSeqs }, prevHash, hasher);
}
