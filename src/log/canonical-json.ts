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
  return canonicalJsonAtDepth(value, 0);
}

// The fast path. JSON.stringify writes an object's properties in the order they were added
// (integer-like keys first), and natively, several times faster than the writer below builds the
// string in JavaScript. So one walk copies the value with every object's keys added in canonical
// order, checking on the way that JSON.stringify would write the copy exactly as the writer
// writes the value (plain objects and arrays, finite numbers, no undefined array items, no
// functions, symbols or bigints, within the depth limit, no integer-like or "__proto__" key);
// JSON.stringify then writes the copy. Anything else goes to the writer, which writes it or
// refuses it with the path to the bad value. Sealing keeps the copy as the event's data.

/**
 * A copy of `value` whose objects hold their keys in canonical order, as JSON.parse of its
 * canonical JSON would give it (-0 becomes 0, undefined properties are left out), or undefined
 * when the copy cannot stand for that: a value the fast path refuses, an integer-like key
 * (JavaScript puts those first, whatever the order of insertion), or a "__proto__" key.
 */
function sortedCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : NOT_COPIED;
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_JSON_DEPTH) return NOT_COPIED;
      if (Array.isArray(value)) {
        const items: unknown[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (typeof item === 'string') {
            items[i] = item;
            continue;
          }
          if (item === undefined) return NOT_COPIED;
          const copied = sortedCopy(item, depth + 1);
          if (copied === NOT_COPIED) return NOT_COPIED;
          items[i] = copied;
        }
        return items;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return NOT_COPIED;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      // Objects often hold their keys in order already; sort only those that do not.
      for (let i = 1; i < keys.length; i++) {
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          keys.sort();
          break;
        }
      }
      const copy: Record<string, unknown> = {};
      for (const key of keys) {
        const item = record[key];
        if (item === undefined) continue;
        if (key === '__proto__' || isIndexLike(key)) return NOT_COPIED;
        if (typeof item === 'string') {
          copy[key] = item;
          continue;
        }
        const copied = sortedCopy(item, depth + 1);
        if (copied === NOT_COPIED) return NOT_COPIED;
        copy[key] = copied;
      }
      return copy;
    }
    default:
      return NOT_COPIED;
  }
}

const NOT_COPIED = Symbol('not copied');

/** Keys JavaScript orders before all others in an object: array indices ("0", "17", not "01"). */
function isIndexLike(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 48 || first > 57) return false;
  return String(Number(key) >>> 0) === key && key !== '4294967295';
}

/**
 * The canonical JSON of `value` (standing `depth` levels inside a document) and a canonical
 * copy of it, equal to JSON.parse of that JSON: what sealing stores. One walk builds the copy
 * with its keys in canonical order, and JSON.stringify writes the copy natively in that order.
 */
export function canonicalJsonAndCopy(value: unknown, depth: number): { readonly json: string; readonly copy: unknown } {
  // A toJSON on a changed Object.prototype would be called by JSON.stringify, not by the writer.
  if (!('toJSON' in Object.prototype)) {
    const copy = sortedCopy(value, depth);
    if (copy !== NOT_COPIED) return { json: JSON.stringify(copy), copy };
  }
  const json = canonicalJsonByWriter(value, depth);
  return { json, copy: JSON.parse(json) };
}

/** The canonical JSON of `value` as the JavaScript writer builds it (the reference for the fast path). */
export function canonicalJsonByWriter(value: unknown, depth = 0): string {
  try {
    return write(value, depth);
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
  return canonicalJsonAndCopy(value, depth).json;
}
