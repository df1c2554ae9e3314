// What a refused CLI command must look like (SPEC §12–§13): exit 2 for bad usage or 1 for a
// failed operation, exactly one stderr line `shadowlog: CODE: message`, no stack trace.

import { expect } from 'vitest';
import type { CliResult } from '../../support/cli.js';

export function expectCleanRefusal(result: CliResult, what: string, exitCodes: readonly number[] = [1, 2]): string {
  const where = `${what}\nexit ${result.code}\nstderr: ${result.stderr.slice(0, 400)}`;
  expect(exitCodes, where).toContain(result.code);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines, where).toHaveLength(1);
  const match = /^shadowlog: ([A-Z][A-Z0-9_]*): \S.*$/.exec(lines[0] as string);
  expect(match, where).not.toBeNull();
  const code = (match as RegExpExecArray)[1] as string;
  expect(code, where).not.toBe('INTERNAL');
  expect(result.stderr, where).not.toMatch(/\n\s+at /);
  return code;
}

/** A string without lone UTF-16 surrogates (a split pair). */
export function hasBrokenSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
