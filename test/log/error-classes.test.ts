// isInstance per error class: a subclass's check accepts that class and its subclasses only, and
// holds for errors from a second copy of the module, where instanceof fails; and messageOf, the
// message of a caught value.

import { describe, expect, it } from 'vitest';
import {
  ConcurrencyError,
  CorruptLogError,
  HashChainError,
  messageOf,
  SessionExistsError,
  SessionNotFoundError,
  ShadowlogError,
} from '../../src/log/errors.js';

type ErrorsModule = typeof import('../../src/log/errors.js');

describe('isInstance', () => {
  const concurrency = new ConcurrencyError('s', 3, 5);
  const missing = new SessionNotFoundError('s');

  it('accepts every shadowlog error on the base class', () => {
    expect(ShadowlogError.isInstance(concurrency)).toBe(true);
    expect(ShadowlogError.isInstance(missing)).toBe(true);
  });

  it('accepts only its own class on a subclass', () => {
    expect(ConcurrencyError.isInstance(concurrency)).toBe(true);
    expect(ConcurrencyError.isInstance(missing)).toBe(false);
    expect(SessionNotFoundError.isInstance(missing)).toBe(true);
    expect(SessionExistsError.isInstance(missing)).toBe(false);
  });

  it('accepts a subclass of the class it is called on, not a parent', () => {
    const chain = new HashChainError(4, 'a'.repeat(64), 'b'.repeat(64));
    expect(HashChainError.isInstance(chain)).toBe(true);
    expect(CorruptLogError.isInstance(chain)).toBe(true);
    expect(HashChainError.isInstance(new CorruptLogError('line 3 is not JSON', { line: 3 }))).toBe(false);
  });

  it('refuses what is not a shadowlog error', () => {
    for (const value of [new Error('plain'), { code: 'CONCURRENCY' }, null, undefined, 'ConcurrencyError', 3])
      expect(ConcurrencyError.isInstance(value)).toBe(false);
  });

  it('holds for an error thrown by a second copy of the module', async () => {
    const specifier = '../../src/log/errors.ts?second-copy';
    const second = (await import(/* @vite-ignore */ specifier)) as ErrorsModule;
    expect(second.ConcurrencyError).not.toBe(ConcurrencyError);
    const foreign = new second.ConcurrencyError('s', 1, 2);
    expect(foreign instanceof ConcurrencyError).toBe(false);
    expect(ConcurrencyError.isInstance(foreign)).toBe(true);
    expect(ShadowlogError.isInstance(foreign)).toBe(true);
    expect(SessionNotFoundError.isInstance(foreign)).toBe(false);
    expect(second.ConcurrencyError.isInstance(concurrency)).toBe(true);
  });
});

describe('messageOf', () => {
  it("gives an error's message, and any other value as a string", () => {
    expect(messageOf(new Error('plain'))).toBe('plain');
    expect(messageOf(new ShadowlogError('SOME_CODE', 'a typed failure'))).toBe('a typed failure');
    expect(messageOf('not an error')).toBe('not an error');
    expect(messageOf({ code: 'X' })).toBe('[object Object]');
  });
});
