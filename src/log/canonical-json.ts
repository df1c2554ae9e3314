// Canonical JSON (SPEC §2): JSON.stringify with object keys sorted at every depth (by
// UTF-16 code units, the default of Array.prototype.sort) and no whitespace. Values JSON
// cannot carry exactly are refused instead of being turned into null or dropped.

import { InvalidEventError } from './errors.js';

/** Deeper nesting than this is refused: no event needs it, and it would exhaust the stack. */
export const MAX_JSON_DEPTH = 512;

/** Raised inside the writer; the path to the bad value is collected only on the way out. */
class RefusedValue {
  readonly path: string[] = [];
  constructor(
    readonly expected: string,
    readonly found: string,
  ) {}
}

export function canonicalJson(value: unknown): string {
  try {
    return write(value, 0);
  } catch (error) {
    if (!(error instanceof RefusedValue)) throw error;
    throw new InvalidEventError(`$${error.path.reverse().join('')}`, error.expected, error.found);
  }
}

function write(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new RefusedValue('a finite number', String(value));
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_JSON_DEPTH) throw new RefusedValue(`nested at most ${MAX_JSON_DEPTH} levels deep`, 'deeper nesting');
      return Array.isArray(value) ? writeArray(value, depth) : writeObject(value, depth);
    default:
      throw new RefusedValue('a JSON value', typeof value);
  }
}

function writeArray(value: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out += ',';
    const item: unknown = value[i];
    try {
      if (item === undefined) throw new RefusedValue('a JSON value', 'undefined');
      out += write(item, depth + 1);
    } catch (error) {
      if (error instanceof RefusedValue) error.path.push(`[${i}]`);
      throw error;
    }
  }
  return `${out}]`;
}

function writeObject(value: object, depth: number): string {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new RefusedValue('a plain object, array or primitive', `an instance of ${value.constructor?.name ?? 'a class'}`);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    // JSON.stringify leaves out undefined properties; an absent optional field is left out.
    if (item === undefined) continue;
    if (!first) out += ',';
    first = false;
    try {
      out += `${JSON.stringify(key)}:${write(item, depth + 1)}`;
    } catch (error) {
      if (error instanceof RefusedValue) error.path.push(`.${key}`);
      throw error;
    }
  }
  return `${out}}`;
}

/**
 * canonicalJson of a value that stands `depth` levels inside a larger document (a field of an
 * event envelope stands at depth 1): the depth limit counts from the document's top, so the
 * part is refused exactly when the whole document would be. Paths in errors start at the part.
 */
export function canonicalJsonAtDepth(value: unknown, depth: number): string {
  try {
    return write(value, depth);
  } catch (error) {
    if (!(error instanceof RefusedValue)) throw error;
    throw new InvalidEventError(`$${error.path.reverse().join('')}`, error.expected, error.found);
  }
}
