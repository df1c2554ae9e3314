// Golden files: the exact expected text, checked in. `SHADOWLOG_UPDATE_GOLDEN=1 npx vitest run
// <test file>` rewrites them from what the code produces now; review the diff before committing.

import { readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

export function expectGolden(file: URL, actual: string): void {
  if (process.env.SHADOWLOG_UPDATE_GOLDEN === '1') writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}
