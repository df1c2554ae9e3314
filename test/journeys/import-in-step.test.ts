// Import that keeps a store in step with the harnesses' directories (issue 26, item 1), as a
// user meets it: a notes file kept in a Claude Code project directory, a session resumed after it
// was imported, a file whose imported part was changed, a damaged file among good ones.
// Each journey that changes the files lays out a HOME of its own.

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { shadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';
import { listedSessions, sessionFigures } from './support/session-store.js';

/** Cuts the file to its first `lines` lines and returns the rest, as a harness would append it. */
function cutShort(path: string, lines: number): string {
  const all = readFileSync(path, 'utf8').split(/(?<=\n)/);
  writeFileSync(path, all.slice(0, lines).join(''));
  return all.slice(lines).join('');
}

describe('import keeps a store in step', () => {
  let home: HarnessHome;
  let main: LaidOutSession;
  let project: string;
  beforeAll(() => {
    home = createHarnessHome(['claude-code']);
    main = home.session('claude-code', '4d5611e5');
    project = dirname(main.path);
  });
  afterAll(() => home?.cleanup());

  it('a notes file in a project directory is skipped with its reason, and every session is imported', async () => {
    const notes = join(project, 'notes.jsonl');
    writeFileSync(notes, '{"note":"check the csv parser"}\n{"note":"ask about the release"}\n');
    const imported = await shadowlog(home, ['import', project]);
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(imported.stdout)).toEqual([]);
    expect(imported.stdout).toContain(`imported ${main.storeId}`);
    expect(imported.stdout).toContain(`imported ${main.storeId} into sqlite:`);
    expect(imported.stdout).toContain('1,544 events, 139 model calls, 1 compaction mapped');
    expect(imported.stdout).toContain(`imported ${main.storeId}.agent-acompact-e1f845 (a sub-session of ${main.storeId})`);
    expect(imported.stdout.split('\n').filter((line) => line.includes('notes.jsonl'))).toEqual([
      `skipped ${notes}: not a session of any format shadowlog imports (line 1 is a record with keys note)`,
    ]);
    expect((await listedSessions(home)).map((session) => session.id)).toContain(main.storeId);
  });

  it('importing the directory again writes nothing and exits 0', async () => {
    const before = await listedSessions(home);
    const again = await shadowlog(home, ['import', project]);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(again.stdout).toContain(
      `  unchanged: ${main.storeId} is already in sqlite:${join(home.cwd, '.shadowlog', 'shadowlog.db')} with the same events (1,544 events, 139 model calls, 1 compaction mapped,`,
    );
    expect(again.stdout.match(/; nothing written$/gm)).toHaveLength(2);
    expect(again.stdout).not.toMatch(/^ {2}(imported|grew)/m);
    expect(await listedSessions(home)).toEqual(before);
  });

  it('a session cut short, imported, then completed, ends with the calls and compactions of a one-shot import', async () => {
    const grown = createHarnessHome(['claude-code']);
    try {
      const file = grown.session('claude-code', '4d5611e5').path;
      const rest = cutShort(file, 700);
      const first = await shadowlog(grown, ['import', file]);
      expect(first.code).toBe(0);
      // Cut before its compaction: the first import holds part of the calls and none of it.
      expect(first.stdout).toContain('709 events, 57 model calls, 0 compactions mapped');
      appendFileSync(file, rest);
      const second = await shadowlog(grown, ['import', file]);
      expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
      expect(second.stdout).toMatch(
        new RegExp(
          `^ {2}grew: appended [\\d,]+ events to ${main.storeId} in sqlite:.*, which now has 1,544 events, 139 model calls, 1 compaction mapped, `,
          'm',
        ),
      );
      const oneShot = `sqlite:${join(grown.cwd, 'one-shot.db')}`;
      expect((await shadowlog(grown, ['--store', oneShot, 'import', file])).code).toBe(0);
      expect(await sessionFigures(grown, main.storeId)).toEqual(await sessionFigures(grown, main.storeId, oneShot));
      const verify = await shadowlog(grown, ['verify', main.storeId]);
      expect(verify.code).toBe(0);
    } finally {
      grown.cleanup();
    }
  });

  it('a file whose imported part changed is a conflict naming the first line that differs, and nothing is written', async () => {
    const changed = createHarnessHome(['claude-code']);
    try {
      const file = changed.session('claude-code', '5c0375b4').path;
      expect((await shadowlog(changed, ['import', file])).code).toBe(0);
      const before = await listedSessions(changed);
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[4] = (lines[4] as string).replace('"timestamp":"2025-', '"timestamp":"2024-');
      writeFileSync(file, lines.join('\n'));
      const again = await shadowlog(changed, ['import', file]);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^shadowlog: SESSION_CONFLICT: /);
      expect(again.stderr).toContain('line 5');
      expect(await listedSessions(changed)).toEqual(before);
    } finally {
      changed.cleanup();
    }
  });

  it('a damaged session file among good ones: the good ones imported, exit 1 with the damaged one named', async () => {
    const damaged = createHarnessHome(['codex']);
    try {
      const [good, bad] = damaged.sessions as [LaidOutSession, LaidOutSession];
      const lines = readFileSync(bad.path, 'utf8').split('\n');
      lines[10] = (lines[10] as string).slice(0, 40);
      writeFileSync(bad.path, lines.join('\n'));
      const imported = await shadowlog(damaged, ['import', damaged.roots.codex]);
      expect(imported.code).toBe(1);
      expect(imported.stdout).toContain(`imported ${good.storeId}`);
      expect(`${imported.stdout}${imported.stderr}`).toContain(`${bad.path}`);
      expect(`${imported.stdout}${imported.stderr}`).toContain('line 11');
      expect((await listedSessions(damaged)).map((session) => session.id)).toEqual([good.storeId]);
    } finally {
      damaged.cleanup();
    }
  });
});
