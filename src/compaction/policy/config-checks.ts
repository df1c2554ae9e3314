// Checks shared by the compaction and pruner configurations. Each failure is a ConfigError
// whose key is the dotted path of the value (modelPolicies[1].retainRatio) and whose message
// says what was expected, what was found, and how to fix it.

import { ConfigError } from '../../log/errors.js';
import { formatCount } from './format-count.js';

/** The path of `key` inside `parent` ('' is the root). */
export function childPath(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** A value as a message shows it: the string "0.8", 1.5, NaN, null, an array, an object. */
export function describeFound(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Throws the standard "must be …, found …; fix" error. */
export function invalid(path: string, expected: string, found: unknown, fix: string): never {
  throw new ConfigError(path, `${path} must be ${expected}, found ${describeFound(found)}; ${fix}`);
}

/**
 * An object with only `allowed` keys. `what` names it in messages ("a model policy"); at the
 * root, `path` is '' and `what` stands for it.
 */
export function readRecord(value: unknown, path: string, what: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const subject = path === '' ? what : path;
    throw new ConfigError(path, `${subject} must be an object, found ${describeFound(value)}; write it as { key: value, … }`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (allowed.includes(key)) continue;
    const suggestion = closestKey(key, allowed);
    throw new ConfigError(
      childPath(path, key),
      `${childPath(path, key)} is not a key of ${what}: expected one of ${allowed.join(', ')}, found ${JSON.stringify(key)}; ` +
        (suggestion === undefined ? 'remove it' : `did you mean ${suggestion}? Rename or remove it`),
    );
  }
  return record;
}

/** A number in (0, 1] (`upToOne`) or (0, 1) (`belowOne`). */
export function readRatio(value: unknown, path: string, range: 'upToOne' | 'belowOne', fix: string): number {
  const expected = range === 'upToOne' ? 'a number above 0 and at most 1' : 'a number above 0 and below 1';
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1 || (range === 'belowOne' && value === 1)) {
    return invalid(path, expected, value, fix);
  }
  return value;
}

/** A safe integer of at least `minimum`. */
export function readInteger(value: unknown, path: string, minimum: 0 | 1, fix: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum) {
    const expected = `a whole number from ${minimum} to ${formatCount(Number.MAX_SAFE_INTEGER)}`;
    return invalid(path, expected, value, fix);
  }
  return value;
}

export function readBoolean(value: unknown, path: string, fix: string): boolean {
  if (typeof value !== 'boolean') return invalid(path, 'true or false', value, fix);
  return value;
}

export function readNonEmptyString(value: unknown, path: string, fix: string): string {
  if (typeof value !== 'string' || value === '') return invalid(path, 'a non-empty string', value, fix);
  return value;
}

export function readChoice<Choice extends string>(value: unknown, path: string, choices: readonly Choice[]): Choice {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    const suggestion = typeof value === 'string' ? closestKey(value, choices) : undefined;
    return invalid(
      path,
      `one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}`,
      value,
      suggestion === undefined ? 'choose one of those' : `did you mean ${JSON.stringify(suggestion)}?`,
    );
  }
  return value as Choice;
}

/** The allowed key a typo most likely meant: same letters in another case, or at most two edits away. */
function closestKey(key: string, allowed: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of allowed) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = (previous[column - 1] ?? 0) + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min((previous[column] ?? 0) + 1, (current[column - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}
