// Finding a session (issue 26, item 2) as a user of the harnesses meets it: they know the id
// their harness gave it (the Claude Code uuid in the file name, the Codex rollout id, pi's session
// id), or its first characters, and they tell twenty sessions apart by `sessions`: source,
// project, model, first request, calls, compactions, tokens, cost, last activity.
// All three harnesses are imported once, for every journey of this file.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';
import type { ListedSession } from './support/session-store.js';

let home: HarnessHome;
let claude: LaidOutSession;
let codex: LaidOutSession;
let pi: LaidOutSession;
beforeAll(async () => {
  home = createHarnessHome();
  claude = home.session('claude-code', '4d5611e5');
  codex = home.session('codex', '019c8a59');
  pi = home.session('pi');
  for (const root of Object.values(home.roots)) expect((await shadowlog(home, ['import', root])).code).toBe(0);
});
afterAll(() => home?.cleanup());

describe('finding a session by its own id', () => {
  const opensAs = (result: JourneyResult, storeId: string) => {
    expect({ command: result.command, code: result.code, stderr: result.stderr }).toEqual({ command: result.command, code: 0, stderr: '' });
    expect(result.stdout.split('\n')[0]).toContain(storeId);
  };

  it("show takes Claude Code's own session id, whole or its first 8 characters", async () => {
    opensAs(await shadowlog(home, ['show', claude.sourceId]), claude.storeId);
    opensAs(await shadowlog(home, ['show', claude.sourceId.slice(0, 8)]), claude.storeId);
  });

  it("stats takes the Codex rollout's id and pi's session id", async () => {
    opensAs(await shadowlog(home, ['stats', codex.sourceId]), codex.storeId);
    opensAs(await shadowlog(home, ['stats', pi.sourceId.slice(0, 8)]), pi.storeId);
  });

  it("takes a unique prefix of shadowlog's own id too, in every command that takes a session", async () => {
    opensAs(await shadowlog(home, ['stats', 'codex-019c']), codex.storeId);
    const diff = await shadowlog(home, ['diff', 'codex-019c', '19.6', '19.7']);
    opensAs(diff, codex.storeId);
  });

  it('lists the candidates of an ambiguous prefix, and what to type instead', async () => {
    const ambiguous = await shadowlog(home, ['show', 'codex-019']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stdout).toBe('');
    expect(ambiguous.stderr).toMatch(/^shadowlog: AMBIGUOUS_SESSION: expected one session for "codex-019", found 2: /);
    expect(ambiguous.stderr).toContain(`${codex.storeId} (codex, `);
    expect(ambiguous.stderr).toContain(`${home.session('codex', '019a93b9').storeId} (codex, "finish up the users work`);
    expect(ambiguous.stderr).toContain('Give more of the id (`shadowlog sessions` lists them)');
    expect(unreadableLines(ambiguous.stderr)).toEqual([]);
  });

  it('names an id no session has, with the way to list them', async () => {
    const missing = await shadowlog(home, ['show', 'ffffffff']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: SESSION_NOT_FOUND: .*ffffffff.*shadowlog sessions/);
  });
});

describe('telling sessions apart', () => {
  let listed: JourneyResult;
  beforeAll(async () => {
    listed = await shadowlog(home, ['sessions']);
  });

  it("shows each session's source, project, model, first request and figures on its line", () => {
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(listed.stdout)).toEqual([]);
    const line = listed.stdout.split('\n').find((row) => row.startsWith(claude.storeId)) ?? '';
    expect(line).toContain('claude-code');
    expect(line).toContain('spotter-dov');
    expect(line).toContain('claude-opus-4-6');
    expect(line).toContain('Work on bead spotter-dov');
    expect(line).toMatch(/\b139\b/);
    expect(line).toContain('$9.53');
  });

  it('keeps its columns under one another, a sub-session row as wide as the rest', () => {
    const rows = listed.stdout.trimEnd().split('\n');
    const sourceColumn = (row: string) => row.search(/ {2}(SOURCE|claude-code|codex|pi) {2}/);
    expect(new Set(rows.map(sourceColumn)).size).toBe(1);
    expect(rows.some((row) => row.startsWith('  └ '))).toBe(true);
  });

  it('--json: every field the text shows, for each session', async () => {
    const json = await shadowlog(home, ['--json', 'sessions']);
    const sessions = JSON.parse(json.stdout) as ListedSession[];
    const main = sessions.find((session) => session.id === claude.storeId);
    expect(main).toMatchObject({
      source: 'claude-code',
      sourceId: claude.sourceId,
      project: claude.cwd,
      firstRequest: expect.stringMatching(/^Work on bead spotter-dov\./),
      calls: 139,
      compactions: 1,
    });
    expect(main?.models).toEqual(['claude-opus-4-6']);
    expect(main?.lastActivity).toBe('2026-02-12T21:03:34.206Z');
    const piListed = sessions.find((session) => session.id === pi.storeId);
    expect(piListed).toMatchObject({ source: 'pi', calls: 453 });
    expect(piListed?.models).toEqual(expect.arrayContaining(['claude-sonnet-4-5', 'gpt-5.1-codex']));
  });

  it('--source, --project, --since and --sort narrow and order the list', async () => {
    const ids = async (args: string[]) =>
      (JSON.parse((await shadowlog(home, ['--json', 'sessions', ...args])).stdout) as ListedSession[]).map((session) => session.id);
    expect(await ids(['--source', 'codex'])).toEqual(
      expect.arrayContaining(home.sessions.filter((s) => s.harness === 'codex').map((s) => s.storeId)),
    );
    expect((await ids(['--source', 'codex'])).every((id) => id.startsWith('codex-'))).toBe(true);
    expect((await ids(['--project', 'spotter-dov'])).every((id) => id.startsWith(claude.storeId))).toBe(true);
    expect((await ids(['--since', '2026-01-01'])).sort()).toEqual(
      expect.arrayContaining([claude.storeId, home.session('codex', '019c8a59').storeId]),
    );
    expect(await ids(['--since', '2026-01-01'])).not.toContain(pi.storeId);
    const byCalls = await ids(['--sort', 'calls']);
    expect(byCalls.slice(0, 3)).toEqual([pi.storeId, codex.storeId, claude.storeId]);
  });
});
