// Files a user names for output (issue 25, items 7 and 8): `view --out`, `tune --out`,
// `tune --policy-file` and `export -o` follow one rule. An existing file (or a symbolic link,
// dangling or not) is refused unless --force; with --force the target itself is replaced, never
// written through a link; a directory or a device (/dev/full) is refused, --force or not; /proc
// and a read-only file system are typed one-line errors, never a hang; nothing is left behind.

import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';
import { expectCleanRefusal } from './support/cli-checks.js';
import { runCliChild } from './support/cli-child.js';

const SAMPLE = join(import.meta.dirname, '../../examples/sample-session.jsonl');
const ID = 'sample-fix-parser';
const hasProc = existsSync('/proc/self');
const hasDevFull = existsSync('/dev/full');

/** Files a failed write could have left: temporary `.partial` files. */
const partials = (directory: string) => readdirSync(directory).filter((name) => name.endsWith('.partial'));

/** A read-only tmpfs, where every write is EROFS; undefined (and the tests skipped) without the right to mount. */
function mountReadOnly(): string | undefined {
  const point = mkdtempSync(join(tmpdir(), 'shadowlog-read-only-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,ro', 'tmpfs', point]);
  if (mounted.status === 0) return point;
  rmSync(point, { recursive: true, force: true });
  console.log('read-only file system cases skipped: mounting a tmpfs needs root');
  return undefined;
}

describe('output files named on the command line', () => {
  const workspace = createCliWorkspace();
  const storeArgs = ['--store', `sqlite:${join(workspace.cwd, 'store.db')}`];
  const at = (name: string) => join(workspace.cwd, name);
  const readOnly = mountReadOnly();

  beforeAll(async () => {
    const imported = await workspace.run([...storeArgs, 'import', SAMPLE]);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => {
    if (readOnly !== undefined) {
      spawnSync('umount', [readOnly]);
      rmSync(readOnly, { recursive: true, force: true });
    }
    workspace.cleanup();
  });

  const view = (out: string, ...more: string[]) => workspace.run([...storeArgs, 'view', ID, '--out', out, ...more]);

  it('view --out into a missing directory, a directory, /proc or /dev/full is one typed line, writing nothing', async () => {
    const cases: Array<[string, string, string | RegExp]> = [
      [at('no/such/page.html'), 'FILE_NOT_FOUND', /the directory .*no\/such does not exist/],
      [workspace.cwd, 'NOT_A_FILE', 'is a directory'],
    ];
    if (hasProc) cases.push(['/proc/shadowlog-page.html', 'FILE_ACCESS', 'the file system of /proc takes no new files']);
    if (hasDevFull) cases.push(['/dev/full', 'NOT_A_FILE', '/dev/full is a character device, not a regular file']);
    for (const [out, code, message] of cases) {
      const result = await view(out);
      expect(expectCleanRefusal(result, `view --out ${out}`, [1]), out).toBe(code);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(partials(workspace.cwd)).toEqual([]);
  });

  it('view --out refuses an existing file and a symbolic link (dangling or not) without --force, touching neither', async () => {
    writeFileSync(at('taken.html'), 'mine');
    writeFileSync(at('pointed-to.txt'), 'not to be written through');
    symlinkSync(at('pointed-to.txt'), at('link.html'));
    symlinkSync(at('nowhere.txt'), at('dangling.html'));
    for (const name of ['taken.html', 'link.html', 'dangling.html']) {
      const result = await view(at(name));
      expect(expectCleanRefusal(result, `view --out ${name}`, [1]), name).toBe('FILE_EXISTS');
      expect(result.stderr).toMatch(/add --force to replace it/);
    }
    expect(readFileSync(at('taken.html'), 'utf8')).toBe('mine');
    expect(readFileSync(at('pointed-to.txt'), 'utf8')).toBe('not to be written through');
    expect(readlinkSync(at('link.html'))).toBe(at('pointed-to.txt'));
    expect(existsSync(at('nowhere.txt'))).toBe(false);
  });

  it('view --out --force replaces the file, and a link itself rather than what it points to', async () => {
    writeFileSync(at('old.html'), 'old');
    writeFileSync(at('kept.txt'), 'kept');
    symlinkSync(at('kept.txt'), at('forced-link.html'));
    symlinkSync(at('never-made.txt'), at('forced-dangling.html'));
    for (const name of ['old.html', 'forced-link.html', 'forced-dangling.html']) {
      const result = await view(at(name), '--force');
      expect(result.stderr, name).toBe('');
      expect(result.code, name).toBe(0);
      expect(lstatSync(at(name)).isFile(), name).toBe(true);
      expect(readFileSync(at(name), 'utf8'), name).toMatch(/^<!doctype html>/i);
      // The page holds the session: readable by its owner only, as an export is.
      expect(statSync(at(name)).mode & 0o777, name).toBe(0o600);
    }
    expect(readFileSync(at('kept.txt'), 'utf8')).toBe('kept');
    expect(existsSync(at('never-made.txt'))).toBe(false);
    // --force is refused where it cannot mean anything.
    if (hasDevFull) expect(expectCleanRefusal(await view('/dev/full', '--force'), 'view --out /dev/full --force', [1])).toBe('NOT_A_FILE');
    expect(expectCleanRefusal(await view(workspace.cwd, '--force'), 'view --out DIR --force', [1])).toBe('NOT_A_FILE');
    expect(expectCleanRefusal(await workspace.run([...storeArgs, 'view', ID, '--force']), 'view --force alone', [2])).toBe('USAGE');
    expect(partials(workspace.cwd)).toEqual([]);
  });

  const tune = (...more: string[]) => workspace.run(['tune', SAMPLE, ...more]);
  const tuneWithPolicy = (...more: string[]) =>
    workspace.run([
      'tune',
      corpusFile(CORPUS_FILES.codexOld),
      '--window',
      '64000',
      '--grid',
      'headroomTokens=0',
      '--baselines',
      'none',
      ...more,
    ]);

  it('tune --out onto a file, or into a directory holding a report, is refused before the replay; --force replaces the report', async () => {
    writeFileSync(at('report-file'), 'a file, not a directory');
    const onFile = await tune('--out', at('report-file'));
    expect(expectCleanRefusal(onFile, 'tune --out FILE', [1])).toBe('NOT_A_FILE');
    expect(onFile.stderr).toMatch(/is a file, not a directory/);
    expect(readFileSync(at('report-file'), 'utf8')).toBe('a file, not a directory');

    mkdirSync(at('report'));
    writeFileSync(at('report/report.json'), 'an earlier report');
    const taken = await tune('--out', at('report'));
    expect(expectCleanRefusal(taken, 'tune --out DIR with a report', [1])).toBe('FILE_EXISTS');
    expect(taken.stderr).toMatch(/report\.json already exists/);
    expect(readdirSync(at('report'))).toEqual(['report.json']);

    const forced = await tune('--out', at('report'), '--force');
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(readFileSync(at('report/report.json'), 'utf8')).toMatch(/^\{/);
    expect(readdirSync(at('report')).sort()).toEqual(expect.arrayContaining(['cost-retention.svg', 'report.json', 'report.md']));
    expect(partials(at('report'))).toEqual([]);

    const missingParent = await tune('--out', at('no/such/report'));
    expect(expectCleanRefusal(missingParent, 'tune --out in a missing directory', [1])).toBe('FILE_NOT_FOUND');
    expect(existsSync(at('no'))).toBe(false);
  }, 60_000);

  it('tune --out /proc/x is a typed line at once, not a hang', async () => {
    if (!hasProc) return;
    const result = await runCliChild(['tune', SAMPLE, '--out', '/proc/shadowlog-report'], 30_000);
    expect(result.timedOut, `tune --out /proc/x still running after ${result.milliseconds} ms`).toBe(false);
    expect(expectCleanRefusal(result, 'tune --out /proc/x', [1])).toBe('FILE_ACCESS');
    expect(result.stderr).toMatch(/the file system of \/proc takes no new files/);
  }, 40_000);

  it('tune --policy-file refuses an existing file, a link, a directory and /dev/full before the replay; --force replaces', async () => {
    writeFileSync(at('policy.json'), '{"mine": true}');
    writeFileSync(at('elsewhere.json'), '{"elsewhere": true}');
    symlinkSync(at('elsewhere.json'), at('policy-link.json'));
    const refusals: Array<[string, string]> = [
      [at('policy.json'), 'FILE_EXISTS'],
      [at('policy-link.json'), 'FILE_EXISTS'],
      [workspace.cwd, 'NOT_A_FILE'],
    ];
    if (hasDevFull) refusals.push(['/dev/full', 'NOT_A_FILE']);
    for (const [file, code] of refusals) {
      expect(expectCleanRefusal(await tuneWithPolicy('--policy-file', file), `tune --policy-file ${file}`, [1]), file).toBe(code);
    }
    expect(readFileSync(at('policy.json'), 'utf8')).toBe('{"mine": true}');
    expect(readFileSync(at('elsewhere.json'), 'utf8')).toBe('{"elsewhere": true}');

    const forced = await tuneWithPolicy('--policy-file', at('policy-link.json'), '--force');
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(lstatSync(at('policy-link.json')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(at('policy-link.json'), 'utf8'))).toEqual(expect.any(Object));
    expect(readFileSync(at('elsewhere.json'), 'utf8')).toBe('{"elsewhere": true}');
    expect(partials(workspace.cwd)).toEqual([]);
  }, 60_000);

  it('tune --policy-file under /proc is a typed line after the replay, and nothing is left', async () => {
    if (!hasProc) return;
    const result = await tuneWithPolicy('--policy-file', '/proc/shadowlog-policy.json');
    expect(expectCleanRefusal(result, 'tune --policy-file /proc/x', [1])).toBe('FILE_ACCESS');
  }, 60_000);

  it.skipIf(readOnly === undefined)(
    'a read-only file system is FILE_ACCESS for view --out, tune --out and --policy-file',
    async () => {
      const point = readOnly as string;
      const page = await view(join(point, 'page.html'));
      expect(expectCleanRefusal(page, 'view --out on a read-only disk', [1])).toBe('FILE_ACCESS');
      expect(page.stderr).toMatch(/the file system is read-only/);
      const report = await tune('--out', join(point, 'report'));
      expect(expectCleanRefusal(report, 'tune --out on a read-only disk', [1])).toBe('FILE_ACCESS');
      const policy = await tuneWithPolicy('--policy-file', join(point, 'policy.json'));
      expect(expectCleanRefusal(policy, 'tune --policy-file on a read-only disk', [1])).toBe('FILE_ACCESS');
      expect(readdirSync(point)).toEqual([]);
    },
    60_000,
  );

  it('export -o takes --force to replace a file; --force without -o is bad usage', async () => {
    writeFileSync(at('taken.jsonl'), 'mine');
    expect(expectCleanRefusal(await workspace.run([...storeArgs, 'export', ID, '-o', at('taken.jsonl')]), 'export -o taken', [1])).toBe(
      'FILE_EXISTS',
    );
    const forced = await workspace.run([...storeArgs, 'export', ID, '-o', at('taken.jsonl'), '--force']);
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(readFileSync(at('taken.jsonl'), 'utf8')).toMatch(/^\{"format":"shadowlog"/);
    expect(statSync(at('taken.jsonl')).mode & 0o777).toBe(0o600);
    expect(expectCleanRefusal(await workspace.run([...storeArgs, 'export', ID, '--force']), 'export --force to stdout', [2])).toBe('USAGE');
  });
});
