// The closing line CI reads: tests stopped by a failed hook count as failed, never as skipped.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

it('counts the tests of a suite whose beforeAll failed as failed', () => {
  const run = spawnSync(
    process.execPath,
    [resolve(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/fixtures/summary-reporter/vitest.config.ts'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(run.status).toBe(1);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
}, 60_000);
