// Small checkers for the data shapes of events. Each throws InvalidEventError naming the
// field, what it expected and what it found.

import { InvalidEventError } from './errors.js';
import { describeValue, isSessionSeq } from './seq.js';

export type Checker = (value: unknown, field: string, seq: number | undefined) => void;

export function fail(field: string, expected: string, value: unknown, seq: number | undefined): never {
  throw new InvalidEventError(field, expected, describeValue(value), seq);
}

export const isString: Checker = (value, field, seq) => {
  if (typeof value !== 'string') fail(field, 'a string', value, seq);
};
export const isNonEmptyString: Checker = (value, field, seq) => {
  if (typeof value !== 'string' || value.length === 0) fail(field, 'a non-empty string', value, seq);
};
export const isBoolean: Checker = (value, field, seq) => {
  if (typeof value !== 'boolean') fail(field, 'true or false', value, seq);
};
export const isPositiveInteger: Checker = (value, field, seq) => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) fail(field, 'a positive integer', value, seq);
};
export const isCount: Checker = (value, field, seq) => {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(field, 'a non-negative integer', value, seq);
};
export const isSeq: Checker = (value, field, seq) => {
  if (!isSessionSeq(value)) fail(field, 'a seq (a non-negative safe integer)', value, seq);
};
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const isObject: Checker = (value, field, seq) => {
  if (!isPlainObject(value)) fail(field, 'an object', value, seq);
};
export const isAnything: Checker = () => {};

export function oneOf(values: readonly string[]): Checker {
  return (value, field, seq) => {
    if (typeof value !== 'string' || !values.includes(value)) fail(field, `one of ${values.join(', ')}`, value, seq);
  };
}

// The checkers below check each part under a placeholder name and build the part's own name
// (`field[3]`, `field.key`) only when the check fails, checking it again under that name: a
// valid event, the common case, costs no string per item. Checkers are pure, so the second check
// fails as the first did; should it not, the first error is thrown.

/** Runs `check` on the part `part` of `field` (an index or a key), naming it only to report a failure. */
function checkPart(check: Checker, value: unknown, field: string, part: number | string, seq: number | undefined): void {
  try {
    check(value, field, seq);
  } catch (error) {
    check(value, typeof part === 'number' ? `${field}[${part}]` : `${field}.${part}`, seq);
    throw error;
  }
}

export function arrayOf(item: Checker): Checker {
  return (value, field, seq) => {
    if (!Array.isArray(value)) fail(field, 'an array', value, seq);
    for (let index = 0; index < value.length; index++) checkPart(item, value[index], field, index, seq);
  };
}

/** Required and optional fields; fields not named are kept and ignored (SPEC §2). */
export function objectWith(required: Record<string, Checker>, optional: Record<string, Checker> = {}): Checker {
  const requiredFields = Object.entries(required);
  const optionalFields = Object.entries(optional);
  return (value, field, seq) => {
    if (!isPlainObject(value)) fail(field, 'an object', value, seq);
    for (const [key, check] of requiredFields) {
      if (!(key in value)) fail(`${field}.${key}`, 'present', undefined, seq);
      checkPart(check, value[key], field, key, seq);
    }
    for (const [key, check] of optionalFields) {
      if (value[key] !== undefined) checkPart(check, value[key], field, key, seq);
    }
  };
}
