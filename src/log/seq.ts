// SessionSeq: the position of an event in its session's log. Branded so that a count, a
// turn number or an array index cannot be passed where a seq is meant.

import { InvalidEventError } from './errors.js';

export type SessionSeq = number & { readonly __brand: 'SessionSeq' };

export function isSessionSeq(value: unknown): value is SessionSeq {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Checks that `value` is a non-negative safe integer and brands it. */
export function asSessionSeq(value: unknown, field = 'seq'): SessionSeq {
  if (!isSessionSeq(value)) {
    throw new InvalidEventError(field, 'a non-negative safe integer', describeValue(value));
  }
  return value;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
