// Parsing a stored or imported event envelope, and sealing drafts into events.

import { InvalidEventError } from './errors.js';
import type { LogEvent } from './event.js';
import { isValidTypeName } from './event-types.js';
import { TIME_EXPECTED, timeProblem } from './iso-time.js';
import { describeValue, isSessionSeq } from './seq.js';
import { isPlainObject } from './shape.js';

const ENVELOPE_KEYS = new Set(['seq', 'type', 'time', 'data', 'surfaceOp', 'sourceEventSeqs', 'ignorable', 'hash']);
const HASH = /^[0-9a-f]{64}$/;

/**
 * Checks the envelope of an event read from storage or a file: exactly the known keys, each
 * of the right type. The SurfaceOp rules and the data shapes are checked by the fold.
 */
export function parseEnvelope(value: unknown): LogEvent {
  if (!isPlainObject(value)) throw new InvalidEventError('event', 'an object', describeValue(value));
  const seq = isSessionSeq(value.seq) ? value.seq : undefined;
  if (seq === undefined) throw new InvalidEventError('seq', 'a non-negative safe integer', describeValue(value.seq));
  for (const key of Object.keys(value)) {
    if (!ENVELOPE_KEYS.has(key))
      throw new InvalidEventError(key, `not present (an envelope has only ${[...ENVELOPE_KEYS].join(', ')})`, 'it', seq);
  }
  checkType(value.type, seq);
  const badTime = timeProblem(value.time);
  if (badTime !== undefined) throw new InvalidEventError('time', TIME_EXPECTED, badTime, seq);
  if (!isPlainObject(value.data)) throw new InvalidEventError('data', 'an object', describeValue(value.data), seq);
  if (typeof value.hash !== 'string' || !HASH.test(value.hash))
    throw new InvalidEventError('hash', 'a lowercase hex SHA-256 digest', describeValue(value.hash), seq);
  if ('ignorable' in value && value.ignorable !== true)
    throw new InvalidEventError('ignorable', 'true or absent', describeValue(value.ignorable), seq);
  if ('surfaceOp' in value && value.surfaceOp === undefined)
    throw new InvalidEventError('surfaceOp', 'absent or a SurfaceOp', 'undefined', seq);
  if ('sourceEventSeqs' in value && !Array.isArray(value.sourceEventSeqs)) {
    throw new InvalidEventError('sourceEventSeqs', 'an array of seqs or absent', describeValue(value.sourceEventSeqs), seq);
  }
  return value as unknown as LogEvent;
}

export function checkType(type: unknown, seq: number | undefined): asserts type is string {
  if (typeof type !== 'string' || !isValidTypeName(type)) {
    throw new InvalidEventError('type', 'a namespaced noun/verb name in lower case, such as user/message', describeValue(type), seq);
  }
}
