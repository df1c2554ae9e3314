// A real full disk: the store on a tmpfs too small for the session. The first failure (the
// append that did not fit) is what the user is told; releasing the session, which fails on the
// same full disk, must not replace it. Needs permission to mount a tmpfs (root); elsewhere it is
// skipped with one line saying so, and in CI a missing permission fails the run.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/log/verify.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { nodeScriptArgs } from '../support/node-script.js';
import { recordFigures } from './support/figures.js';

function tryMount(): string | undefined {
  const point = mkdtempSync(join(tmpdir(), 'shadowlog-full-disk-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', point]);
  if (mounted.status === 0) return point;
  rmSync(point, { recursive: true, force: true });
  const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
  if (inCi) throw new Error(`cannot mount a tmpfs for the full-disk test (${String(mounted.stderr).trim()}); CI must run it`);
  console.log('full-disk tests skipped: mounting a tmpfs needs root');
  return undefined;
}

const mountPoint = tryMount();
const ENTRY = resolve(import.meta.dirname, '../support/cli-entry.ts');

describe.skipIf(mountPoint === undefined)('a full disk under the SQLite store', () => {
  const point = mountPoint as string;
  const workspace = createCliWorkspace();
  afterAll(() => {
    execFileSync('umount', [point]);
    rmSync(point, { recursive: true, force: true });
    workspace.cleanup();
  });

  /** Empties the tmpfs but for `store.db`, then fills it until only `bytes` are free. */
  const leaveFree = (bytes: number) => {
    for (const name of readdirSync(point)) if (name !== 'store.db') rmSync(join(point, name), { force: true });
    const { bavail, bsize } = statfsSync(point);
    if (bavail * bsize > bytes) writeFileSync(join(point, 'filler'), Buffer.alloc(bavail * bsize - bytes));
  };
  const runCli = (args: string[]) =>
    spawnSync(process.execPath, [...nodeScriptArgs(ENTRY), ...args], { cwd: resolve(import.meta.dirname, '../..'), encoding: 'utf8' });

  it('a demo that fills the disk reports the append that did not fit, in one line, and keeps a valid log', async () => {
    leaveFree(300_000);
    const store = `sqlite:${join(point, 'store.db')}`;
    const demo = runCli(['--store', store, 'demo', '--session', 'full']);
    expect(demo.status).toBe(1);
    const lines = demo.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^shadowlog: STORE_FAILURE: .*appending events failed: database or disk is full/);
    // What was acknowledged is there and verifies; a reader needs no space.
    const reader = await openSqliteStore(join(point, 'store.db'), { readOnly: true });
    try {
      expect((await verifyLog(reader.read('full'))).ok).toBe(true);
    } finally {
      await reader.close();
    }
  });

  it('a compaction on a nearly full disk: the first failure is reported, never replaced by the release that fails after it', async () => {
    // A session made on a roomy disk, then compacted on the tmpfs with only so many bytes left.
    const template = join(workspace.cwd, 'template.db');
    expect((await workspace.run(['--store', `sqlite:${template}`, 'demo', '--session', 'd', '--json'])).code).toBe(0);
    const outcomes: Record<string, number> = {};
    for (let left = 30_000; left <= 80_000; left += 2_500) {
      for (const name of readdirSync(point)) rmSync(join(point, name), { force: true });
      copyFileSync(template, join(point, 'store.db'));
      leaveFree(left);
      const result = runCli(['--store', `sqlite:${join(point, 'store.db')}`, 'compact', 'd', '--headroom-tokens', '0']);
      const said = `${result.stdout}${result.stderr}`;
      const label = `${left} bytes left: ${said}`;
      expect(result.stderr, label).not.toMatch(/\n\s+at /); // no stack trace
      expect(
        result.stderr
          .trim()
          .split('\n')
          .filter((line) => line !== '').length,
        label,
      ).toBeLessThanOrEqual(1);
      if (/releasing the session failed/.test(result.stderr)) {
        // The release failed after something else did, or after it worked: that is said first.
        expect(result.stdout, label).toMatch(/^d: compact/);
      }
      const kind = /releasing/.test(result.stderr)
        ? 'release failed after the outcome was printed'
        : result.status === 0
          ? 'compacted'
          : /^d: compaction failed/.test(result.stdout)
            ? 'compaction failed, reported'
            : (/(opening|claiming|appending)[^:]*failed/.exec(result.stderr)?.[0] ?? 'other');
      outcomes[kind] = (outcomes[kind] ?? 0) + 1;
    }
    // The sweep must reach the case this test is about: a failure after the session was claimed.
    expect(outcomes['release failed after the outcome was printed'] ?? 0).toBeGreaterThan(0);
    recordFigures('full-disk', { cases: Object.values(outcomes).reduce((a, b) => a + b, 0), outcomes });
  }, 120_000);
});
