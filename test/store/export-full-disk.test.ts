// `shadowlog export -o` on a disk that fills up (issue 9, item 2), for real: the command runs in
// a child process with a 64 KiB tmpfs mounted in a mount namespace of its own (`unshare
// --mount --map-root-user`, which needs no privileges where user namespaces are enabled), so the
// kernel itself answers ENOSPC part-way through the export. The command must fail with one
// typed line and leave the directory empty. Where namespaces are not available the test says
// so and is skipped; test/store/export-file.test.ts injects the same failures everywhere.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import { nodeScriptArgs } from '../support/node-script.js';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = resolve(import.meta.dirname, 'fixtures/cli-in-directory.ts');
const MOUNT = ['--mount', '--map-root-user', 'sh', '-c', 'mount -t tmpfs -o size=64k shadowlog-full "$0" && exec "$@"'];

const workspace = mkdtempSync(join(tmpdir(), 'shadowlog-full-disk-'));
const full = join(workspace, 'full');
mkdirSync(full);
const probe = spawnSync('unshare', [...MOUNT, full, 'true'], { encoding: 'utf8' });
const available = probe.status === 0;
if (!available)
  console.log(`skipping the full-disk export: cannot mount a tmpfs in a namespace here (${probe.error?.message ?? probe.stderr.trim()})`);

afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/** Runs `shadowlog …args` with a 64 KiB tmpfs mounted at `full`, for that process only. */
function inFullNamespace(args: string[]): { code: number; stdout: string; stderr: string; files: string[] } {
  const child = spawnSync('unshare', [...MOUNT, full, process.execPath, ...nodeScriptArgs(FIXTURE), full, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) as string);
}

describe.skipIf(!available)('export -o onto a full disk', () => {
  const store = join(workspace, 'store.db');

  beforeAll(async () => {
    const opened = await openSqliteStore(store);
    const log = await SessionLog.create(opened, 'big', { now: fixedNow });
    await log.append(sampleDrafts().slice(1));
    // About 200 KB of events: three times what the tmpfs holds.
    for (let index = 0; index < 100; index++) await log.append([drafts.user(`message ${index} ${'x'.repeat(2_000)}`)]);
    await opened.close();
  });

  it('fails with one typed NO_SPACE line and leaves no file, partial or temporary', () => {
    const result = inFullNamespace(['--store', `sqlite:${store}`, 'export', 'big', '-o', join(full, 'big.jsonl')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^shadowlog: NO_SPACE: the disk is full \(ENOSPC\) writing .*big\.jsonl; free some space and run it again; nothing was left behind\n$/,
    );
    expect(result.files).toEqual([]);
  });

  it('writes a small export whole on the same file system', async () => {
    const opened = await openSqliteStore(store);
    await (await SessionLog.create(opened, 'small', { now: fixedNow })).append(sampleDrafts().slice(1));
    await opened.close();
    const result = inFullNamespace(['--store', `sqlite:${store}`, '--json', 'export', 'small', '-o', join(full, 'small.jsonl')]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sessionId: 'small', events: 7 });
    expect(result.files).toEqual(['small.jsonl']);
  });
});
