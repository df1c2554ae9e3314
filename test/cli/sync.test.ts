// `shadowlog sync` on a temporary HOME holding the corpus as each harness lays it out: Claude
// Code under ~/.claude/projects/<cwd>/<uuid>.jsonl (subagents under <uuid>/subagents/), Codex
// under ~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl, pi under ~/.pi/agent/sessions/<cwd>/.
// Syncing twice writes nothing; a session that grew gets its new records; stray files are
// skipped with their reason; --watch follows a file as lines are appended to it.

import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { harnessLocations } from 'shadowlog/importers';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const CLAUDE_MAIN = '.claude/projects/-home-user-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl';
const CLAUDE_SMALL = '.claude/projects/-path-to-Demo/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl';
const SMALL_ID = 'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
const PI_FILE = '.pi/agent/sessions/--home-user-project--/2026-01-20T10-00-00-000Z_d703a1a9.jsonl';
const PI_ID = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

describe('shadowlog sync', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  let home: string;
  const place = (from: string, to: string) => {
    mkdirSync(dirname(join(home, to)), { recursive: true });
    copyFileSync(corpusFile(from), join(home, to));
    // As old as a finished session's file: nothing at its end is still being written.
    utimesSync(join(home, to), new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
  };
  const sessions = async () =>
    (JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<{ id: string; events: number }>).map(
      (session) => `${session.id} ${session.events}`,
    );
  beforeEach(() => {
    workspace = createCliWorkspace();
    home = mkdtempSync(join(tmpdir(), 'shadowlog-home-'));
    vi.stubEnv('HOME', home);
    for (const name of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'PI_CODING_AGENT_DIR', 'PI_CODING_AGENT_SESSION_DIR']) vi.stubEnv(name, '');
    place(CORPUS_FILES.claudeMain, CLAUDE_MAIN);
    place(CORPUS_FILES.claudeSummarizer, `${CLAUDE_MAIN.replace(/\.jsonl$/, '')}/subagents/agent-acompact-4d5611e5.jsonl`);
    place(CORPUS_FILES.claudeSmall, CLAUDE_SMALL);
    place(CORPUS_FILES.codexOld, '.codex/sessions/2025/11/17/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl');
    place(CORPUS_FILES.codexCompacted, '.codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-redacted.jsonl');
    place(CORPUS_FILES.pi, PI_FILE);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    workspace.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('finds each harness where it keeps its sessions, and where its variables say', () => {
    expect(harnessLocations({ env: {}, home: '/h' }).map((location) => location.directory)).toEqual([
      '/h/.claude/projects',
      '/h/.codex/sessions',
      '/h/.pi/agent/sessions',
    ]);
    const env = { CLAUDE_CONFIG_DIR: '/c', CODEX_HOME: '~/cx', PI_CODING_AGENT_DIR: '/p' };
    expect(harnessLocations({ env, home: '/h' }).map((location) => location.directory)).toEqual([
      '/c/projects',
      '/h/cx/sessions',
      '/p/sessions',
    ]);
    expect(harnessLocations({ env: { PI_CODING_AGENT_SESSION_DIR: '/s', PI_CODING_AGENT_DIR: '/p' }, home: '/h' })[2]?.directory).toBe(
      '/s',
    );
  });

  it('imports every harness, writes nothing the second time, appends what grew, and skips stray files', async () => {
    const small = readFileSync(corpusFile(CORPUS_FILES.claudeSmall), 'utf8').split('\n').slice(0, -1);
    writeFileSync(join(home, CLAUDE_SMALL), `${small.slice(0, 30).join('\n')}\n`);
    utimesSync(join(home, CLAUDE_SMALL), new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    const first = await workspace.run(['sync']);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(
      /^claude-code: ~\/\.claude\/projects: 3 files; sessions: 5 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed$/m,
    );
    expect(first.stdout).toMatch(
      /^codex: ~\/\.codex\/sessions: 2 files; sessions: 2 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed$/m,
    );
    expect(first.stdout).toMatch(
      /^pi: ~\/\.pi\/agent\/sessions: 1 file; sessions: 1 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed$/m,
    );
    const stored = await sessions();
    expect(stored.map((line) => line.split(' ')[0])).toContain(PI_ID);

    const second = await workspace.run(['sync']);
    expect(second.stdout).toMatch(/^claude-code: .*sessions: 0 imported, 0 grew, 5 unchanged;/m);
    expect(second.stdout).toMatch(/^0 events written into /m);
    expect(await sessions()).toEqual(stored);

    appendFileSync(join(home, CLAUDE_SMALL), `${small.slice(30).join('\n')}\n`);
    writeFileSync(join(home, '.claude/projects/-path-to-Demo/notes.jsonl'), '{"note":"check the csv parser"}\n');
    writeFileSync(join(home, '.codex/sessions/empty.jsonl'), '');
    const grown = await workspace.run(['sync', '--settle', '0']);
    expect(grown.code).toBe(0);
    expect(grown.stdout).toMatch(
      /^claude-code: .*: 4 files; sessions: 0 imported, [1-9]\d* grew, \d+ unchanged; 1 file skipped, 0 failed$/m,
    );
    expect(grown.stdout).toMatch(
      /^ {2}skipped ~\/\.claude\/projects\/-path-to-Demo\/notes\.jsonl: not a session of any format shadowlog imports/m,
    );
    expect(grown.stdout).toMatch(/^ {2}skipped ~\/\.codex\/sessions\/empty\.jsonl: empty: no records at all$/m);
    // The same session as a one-shot import of the whole file.
    const oneShot = createCliWorkspace();
    try {
      await oneShot.run(['import', corpusFile(CORPUS_FILES.claudeSmall)]);
      const whole = JSON.parse((await oneShot.run(['--json', 'sessions'])).stdout) as Array<{ id: string; events: number }>;
      const expected = whole.map((session) => `${session.id} ${session.events}`).filter((line) => line.startsWith(SMALL_ID));
      expect((await sessions()).filter((line) => line.startsWith(SMALL_ID))).toEqual(expected);
    } finally {
      oneShot.cleanup();
    }
  });

  it('imports the rest of a directory and exits 1 naming a damaged session file by line', async () => {
    const pi = readFileSync(corpusFile(CORPUS_FILES.pi), 'utf8').split('\n');
    pi[40] = (pi[40] as string).slice(0, 50);
    writeFileSync(join(home, PI_FILE), pi.join('\n'));
    const result = await workspace.run(['sync']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^shadowlog: failed: ~\/\.pi\/agent\/sessions\/.*\.jsonl line 41: CORRUPT_LOG: /m);
    expect(result.stdout).toMatch(/^codex: .*sessions: 2 imported/m);
  });

  it('--watch: a call appended to a session shows in the store, and it stops cleanly', async () => {
    const small = readFileSync(corpusFile(CORPUS_FILES.claudeSmall), 'utf8').split('\n').slice(0, -1);
    writeFileSync(join(home, CLAUDE_SMALL), `${small.slice(0, 20).join('\n')}\n`);
    const stop = new AbortController();
    const watching = workspace.run(['sync', '--watch', '--interval', '200'], '', { signal: stop.signal });
    const stored = async () => (await workspace.run(['--json', 'show', '--record', SMALL_ID])).code === 0;
    const until = async (check: () => Promise<boolean>) => {
      const deadline = Date.now() + 60_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error('the store did not catch up within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await until(stored);
    const before = await workspace.run(['--json', 'show', '--record', SMALL_ID]);
    const requests = (text: string) =>
      (JSON.parse(text) as { events: Array<{ type: string }> }).events.filter((event) => event.type === 'model/request').length;
    const startCount = requests(before.stdout);
    // The rest of the session, a line at a time, as Claude Code writes it.
    for (const line of small.slice(20)) appendFileSync(join(home, CLAUDE_SMALL), `${line}\n`);
    await until(async () => requests((await workspace.run(['--json', 'show', '--record', SMALL_ID])).stdout) > startCount);
    stop.abort();
    const result = await watching;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^watching ~\/\.claude\/projects, ~\/\.codex\/sessions, ~\/\.pi\/agent\/sessions into /m);
    expect(result.stdout).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${SMALL_ID}: grew by \\d+ events`, 'm'));
    expect(result.stdout).toMatch(/^stopped after \d+ passes; \d+ events written in all$/m);
    const verified = await workspace.run(['verify', '--all']);
    expect(verified.code).toBe(0);
  });
});
