// The files of `export -o`, `import` and `verify --file` (issue 9, items 2 and 12): each file
// system problem is one typed line with no stack, and the trailer's verdict is in the output
// (`trailer: 'ok' | 'missing'` in --json; a warning for a version-1 export without one).

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRefusal } from '../chaos/support/cli-checks.js';
import { createCliWorkspace } from '../support/cli.js';

const SAMPLE = join(import.meta.dirname, '../../examples/sample-session.jsonl');
const ID = 'sample-fix-parser';

describe('export, import and verify --file on the file system', () => {
  const workspace = createCliWorkspace();
  const store = ['--store', `sqlite:${join(workspace.cwd, 'store.db')}`];

  beforeAll(async () => {
    const imported = await workspace.run([...store, 'import', SAMPLE]);
    expect(imported.code, imported.stderr).toBe(0);
  });
  afterAll(() => workspace.cleanup());

  it('export -o refuses an existing file with FILE_EXISTS, leaving it as it was', async () => {
    writeFileSync(join(workspace.cwd, 'taken.jsonl'), 'not yours');
    for (const json of [false, true]) {
      const result = await workspace.run([...store, ...(json ? ['--json'] : []), 'export', ID, '-o', 'taken.jsonl']);
      if (json) {
        expect(result.code).toBe(1);
        expect(JSON.parse(result.stderr.trim())).toMatchObject({ error: { code: 'FILE_EXISTS' } });
      } else {
        expect(expectCleanRefusal(result, 'export -o taken.jsonl', [1])).toBe('FILE_EXISTS');
      }
      expect(result.stdout).toBe('');
    }
    expect(readFileSync(join(workspace.cwd, 'taken.jsonl'), 'utf8')).toBe('not yours');
  });

  it('export -o into a directory that does not exist is FILE_NOT_FOUND, creating nothing', async () => {
    const before = readdirSync(workspace.cwd).sort();
    const result = await workspace.run([...store, 'export', ID, '-o', '/no/such/dir/f']);
    expect(expectCleanRefusal(result, 'export -o /no/such/dir/f', [1])).toBe('FILE_NOT_FOUND');
    expect(result.stderr).toMatch(/the directory \/no\/such\/dir does not exist/);
    expect(readdirSync(workspace.cwd).sort()).toEqual(before);
  });

  it('export -o writes the whole file, trailer last, and says what it wrote', async () => {
    const result = await workspace.run([...store, '--json', 'export', ID, '-o', 'copy.jsonl']);
    expect(result.code, result.stderr).toBe(0);
    const written = JSON.parse(result.stdout) as { events: number; file: string; headHash: string };
    expect(written).toMatchObject({ sessionId: ID, events: 32, file: join(workspace.cwd, 'copy.jsonl') });
    const lines = readFileSync(join(workspace.cwd, 'copy.jsonl'), 'utf8').trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1) as string)).toEqual({ format: 'shadowlog', end: true, events: 32, headHash: written.headHash });
    expect(readdirSync(workspace.cwd).filter((name) => name.includes('.partial'))).toEqual([]);
  });

  it('import and verify --file of a directory are NOT_A_FILE; of a missing file, USAGE', async () => {
    mkdirSync(join(workspace.cwd, 'a-directory'), { recursive: true });
    expect(expectCleanRefusal(await workspace.run([...store, 'import', 'a-directory']), 'import a-directory', [1])).toBe('NOT_A_FILE');
    expect(expectCleanRefusal(await workspace.run([...store, 'verify', '--file', 'a-directory']), 'verify --file a-directory', [1])).toBe(
      'NOT_A_FILE',
    );
    expect(expectCleanRefusal(await workspace.run([...store, 'import', 'missing.jsonl']), 'import missing.jsonl', [2])).toBe('USAGE');
    expect(expectCleanRefusal(await workspace.run([...store, 'verify', '--file', 'missing.jsonl']), 'verify --file missing', [2])).toBe(
      'USAGE',
    );
  });

  it('reports the trailer: ok for a version-2 export, missing (with a warning) for a version-1 one', async () => {
    const current = readFileSync(SAMPLE, 'utf8');
    const lines = current.trimEnd().split('\n');
    const versionOne = `${[lines[0]?.replace('"version":2', '"version":1'), ...lines.slice(1, -1)].join('\n')}\n`;
    writeFileSync(join(workspace.cwd, 'v1.jsonl'), versionOne);

    const ok = JSON.parse((await workspace.run([...store, '--json', 'import', SAMPLE, '--as', 'v2-copy'])).stdout);
    expect(ok).toMatchObject({ sessionId: 'v2-copy', events: 32, trailer: 'ok', tornFinalLine: false });
    const missing = JSON.parse((await workspace.run([...store, '--json', 'import', 'v1.jsonl', '--as', 'v1-copy'])).stdout);
    expect(missing).toMatchObject({ sessionId: 'v1-copy', events: 32, trailer: 'missing' });
    const human = await workspace.run([...store, 'import', 'v1.jsonl', '--as', 'v1-again']);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe(
      'shadowlog: warning: no trailer: completeness cannot be checked (a version 1 export, written before exports counted their events)\n',
    );

    expect(JSON.parse((await workspace.run(['--json', 'verify', '--file', SAMPLE])).stdout)).toMatchObject({ ok: true, trailer: 'ok' });
    const unchecked = await workspace.run(['verify', '--file', 'v1.jsonl']);
    expect(unchecked.code).toBe(0);
    expect(unchecked.stdout).toContain('no trailer: completeness cannot be checked');
  });

  it('refuses to import an export cut before its trailer, and verify --file fails it', async () => {
    const lines = readFileSync(SAMPLE, 'utf8').trimEnd().split('\n');
    writeFileSync(join(workspace.cwd, 'cut.jsonl'), `${lines.slice(0, -3).join('\n')}\n`);
    const result = await workspace.run([...store, 'import', 'cut.jsonl', '--as', 'cut']);
    expect(expectCleanRefusal(result, 'import cut.jsonl', [1])).toBe('CORRUPT_LOG');
    expect(result.stderr).toMatch(/the export ends before its trailer: the file ends after event 29/);
    const sessions = JSON.parse((await workspace.run([...store, '--json', 'sessions'])).stdout) as Array<{ id: string }>;
    expect(sessions.map((session) => session.id)).not.toContain('cut');
    const verify = await workspace.run(['--json', 'verify', '--file', 'cut.jsonl']);
    expect(verify.code).toBe(1);
    expect(JSON.parse(verify.stdout)).toMatchObject({
      ok: false,
      firstBadSeq: 30,
      trailer: 'missing',
      problems: [{ code: 'missing-trailer' }],
    });
  });
});
