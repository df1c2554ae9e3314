// Session ids name database rows and files, so anything but a plain, short name is refused
// before it reaches a query or a path.

import { InvalidSessionIdError } from './errors.js';

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

export function assertSessionId(value: unknown): string {
  if (!isSessionId(value)) throw new InvalidSessionIdError(value);
  return value;
}
