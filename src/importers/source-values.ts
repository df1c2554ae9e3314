// Small readers of untyped source values, shared by the mappers.

import { isPlainObject } from '../log/shape.js';

export type SourceObject = Readonly<Record<string, unknown>>;

export function objectOf(value: unknown): SourceObject | undefined {
  return isPlainObject(value) ? value : undefined;
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A count: a non-negative safe integer. */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export function arrayOf(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}
