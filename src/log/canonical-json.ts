// Canonical JSON (SPEC §2): JSON.stringify with object keys sorted at every depth (by
// UTF-16 code units, the default of Array.prototype.sort) and no whitespace. Values JSON
// cannot carry exactly are refused instead of being turned into null or dropped.

import { InvalidEventError } from './errors.js';

export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

function write(value: unknown, path: string): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new InvalidEventError(path, 'a finite number', String(value));
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = value[i];
          if (item === undefined) throw new InvalidEventError(`${path}[${i}]`, 'a JSON value', 'undefined');
          out += write(item, `${path}[${i}]`);
        }
        return `${out}]`;
      }
      const prototype = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) {
        throw new InvalidEventError(path, 'a plain object, array or primitive', `an instance of ${value.constructor?.name ?? 'a class'}`);
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
        out += `${JSON.stringify(key)}:${write(item, `${path}.${key}`)}`;
      }
      return `${out}}`;
    }
    default:
      throw new InvalidEventError(path, 'a JSON value', typeof value);
  }
}
