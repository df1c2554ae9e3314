// `shadowlog sync` (issue 26, item 1) as a user of all three harnesses meets it: one command, no
// path, imports the default location of every harness found under HOME (~/.claude/projects,
// ~/.codex/sessions, ~/.pi/agent/sessions); a second run adds nothing; a session that grows
// between runs gets its new calls appended; `sync --watch` follows a session as it grows.
// (The store's contents are read with `sessions --json` and `stats --json`.)

import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome } from './support/harness-home.js';
import { type JourneyResult, shadowlog, startShadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';
import { listedSessions, sessionFigures } from './support/session-store.js';

/** Every session of the corpus, by the id import gives it, sub-sessions included. */
const ALL_SESSIONS = [
  'claude-code-4d5611e5-241a-462a-8d15-5122611a9569',
  'claude-code-4d5611e5-241a-462a-8d15-5122611a9569.agent-acompact-e1f845',
  'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
  'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain-6340ddef',
  'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7.sidechain-83e2917c',
  'codex-019a93b9-f380-7600-98ff-940e6b99603c',
  'codex-019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
  'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617',
];

function cutShort(path: string, lines: number): string {
  const all = readFileSync(path, 'utf8').split(/(?<=\n)/);
  writeFileSync(path, all.slice(0, lines).join(''));
  return all.slice(lines).join('');
}

/** Polls `check` until it holds, at most `attempts` times a `pauseMs` apart (a deadline, not a measure of speed). */
async function eventually(check: () => Promise<boolean>, attempts = 30, pauseMs = 1_000): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return true;
    await new Promise((done) => setTimeout(done, pauseMs));
  }
  return false;
}

describe('shadowlog sync', () => {
  let home: HarnessHome;
  let first: JourneyResult;
  beforeAll(async () => {
    home = createHarnessHome();
    first = await shadowlog(home, ['sync']);
  });
  afterAll(() => home?.cleanup());

  it('imports every session of every harness it finds under HOME, and names each location', async () => {
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(first.stdout)).toEqual([]);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => !line.startsWith('  '))).toEqual([
      'claude-code: ~/.claude/projects: 3 files; sessions: 5 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed',
      'codex: ~/.codex/sessions: 2 files; sessions: 2 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed',
      'pi: ~/.pi/agent/sessions: 1 file; sessions: 1 imported, 0 grew, 0 unchanged; 0 files skipped, 0 failed',
      expect.stringMatching(/^\d+ events written into sqlite:/),
    ]);
    expect((await listedSessions(home)).map((session) => session.id).sort()).toEqual([...ALL_SESSIONS].sort());
  });

  it('adds nothing the second time, and says so', async () => {
    const before = await listedSessions(home);
    const again = await shadowlog(home, ['sync']);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(again.stdout)).toEqual([]);
    expect(again.stdout).toContain('claude-code: ~/.claude/projects: 3 files; sessions: 0 imported, 0 grew, 5 unchanged;');
    expect(again.stdout).toMatch(/^0 events written into sqlite:/m);
    expect(await listedSessions(home)).toEqual(before);
  });

  it('finds nothing to do, and says where it looked, under a HOME with no harness', async () => {
    const empty = createHarnessHome([]);
    try {
      const sync = await shadowlog(empty, ['sync']);
      expect(sync.code).toBe(0);
      expect(`${sync.stdout}${sync.stderr}`).toContain('~/.claude/projects');
      expect(await listedSessions(empty).catch(() => [])).toEqual([]);
    } finally {
      empty.cleanup();
    }
  });

  it('appends what a session wrote since the last sync: the same calls and compactions as a one-shot import', async () => {
    const grown = createHarnessHome(['claude-code']);
    try {
      const main = grown.session('claude-code', '4d5611e5');
      const rest = cutShort(main.path, 700);
      expect((await shadowlog(grown, ['sync'])).code).toBe(0);
      const short = await sessionFigures(grown, main.storeId);
      appendFileSync(main.path, rest);
      const second = await shadowlog(grown, ['sync']);
      expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
      const oneShot = `sqlite:${join(grown.cwd, 'one-shot.db')}`;
      expect((await shadowlog(grown, ['--store', oneShot, 'import', main.path])).code).toBe(0);
      const completed = await sessionFigures(grown, main.storeId);
      expect(completed).toEqual(await sessionFigures(grown, main.storeId, oneShot));
      expect(completed.modelCalls).toBeGreaterThan(short.modelCalls as number);
      expect((await shadowlog(grown, ['verify', main.storeId])).code).toBe(0);
    } finally {
      grown.cleanup();
    }
  });

  it('sync --watch: each call a harness appends lands in the store while it runs, and Ctrl-C stops it cleanly', async () => {
    const watched = createHarnessHome(['pi']);
    const pi = watched.session('pi');
    const rest = cutShort(pi.path, 500).split(/(?<=\n)/);
    const watch = startShadowlog(watched, ['sync', '--watch']);
    try {
      expect(await eventually(async () => (await listedSessions(watched).catch(() => [])).length === 1)).toBe(true);
      const before = (await sessionFigures(watched, pi.storeId)).modelCalls as number;
      // The session grows the way pi writes it: whole lines appended to the same file.
      appendFileSync(pi.path, rest.slice(0, 200).join(''));
      expect(await eventually(async () => ((await sessionFigures(watched, pi.storeId)).modelCalls as number) > before)).toBe(true);
      appendFileSync(pi.path, rest.slice(200).join(''));
      const oneShot = `sqlite:${join(watched.cwd, 'one-shot.db')}`;
      expect((await shadowlog(watched, ['--store', oneShot, 'import', pi.path])).code).toBe(0);
      const whole = await sessionFigures(watched, pi.storeId, oneShot);
      expect(await eventually(async () => (await sessionFigures(watched, pi.storeId)).modelCalls === whole.modelCalls)).toBe(true);
    } finally {
      const stopped = await watch.stop();
      watched.cleanup();
      expect(stopped.code).toBe(0);
      expect(unreadableLines(stopped.stdout)).toEqual([]);
      expect(stopped.stderr).toBe('');
    }
  });
});
