// The journey of a pi user who went back in a session (/tree with a summary of the path left):
// pi's own SessionManager writes the tree under ~/.pi/agent/sessions/--<cwd>--/, beside the
// corpus session, and the user imports the directory, lists the sessions as a tree and as JSON,
// reads the branch's surface, verifies both and reads the branch's stats. Each step asserts what
// a person reads.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piSession } from '../importers/support/pi-trees.js';
import { createHarnessHome, type HarnessHome, piSessionDirectory } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { countsThatDisagree, unindented, unreadableLines } from './support/reads-like-a-person.js';

let home: HarnessHome;
let mainId: string;
let branchId: string;
let imported: JourneyResult;

beforeAll(async () => {
  home = createHarnessHome(['pi']);
  const cwd = '/home/user/project';
  const pi = piSession(cwd, join(home.roots.pi, piSessionDirectory(cwd)));
  pi.user('What does config.json set the port to?');
  pi.assistant('Let me read it.', [{ id: 'toolu_01', name: 'read', arguments: { path: 'config.json' } }]);
  pi.toolResult('toolu_01', 'read', '{"port": 8080}');
  const answered = pi.assistant('config.json sets the port to 8080.');
  const left = pi.user('Change it to 9090.');
  pi.assistant('Done: the port is 9090.');
  pi.manager.branchWithSummary(answered, 'Changed the port to 9090; the user went back.');
  pi.user('Explain what the port setting does instead.');
  pi.assistant('It is the TCP port the server listens on.');
  mainId = `pi-${pi.manager.getSessionId()}`;
  branchId = `${mainId}.branch-${left}`;
  imported = await shadowlog(home, ['import', home.roots.pi]);
});
afterAll(() => home?.cleanup());

function expectReadable(result: JourneyResult, options: { ownLines?: (line: string) => boolean } = {}): void {
  expect({ command: result.command, code: result.code, stderr: result.stderr }).toEqual({ command: result.command, code: 0, stderr: '' });
  expect(unreadableLines(result.stdout, options)).toEqual([]);
  expect(countsThatDisagree(result.stdout, options)).toEqual([]);
}

describe('a pi user who went back in a session imports ~/.pi/agent/sessions', () => {
  it('imports the tree as the latest path and a branch for the path left, beside the corpus session', () => {
    expectReadable(imported);
    expect(imported.stdout).toContain(`imported ${mainId} into sqlite:`);
    expect(imported.stdout).toContain("    pi's latest path, to line 10");
    expect(imported.stdout).toContain(
      `imported ${branchId} (a branch of ${mainId} after #8: linked to it, 6 own events written, events 0–8 read from ${mainId})`,
    );
    expect(imported.stdout).toContain("    a path pi left: it leaves its parent's at line 6 and ends at line 7");
    expect(imported.stdout).toContain(`imported ${home.session('pi').storeId} into sqlite:`);
  });

  it('lists the branch under its parent, in the tree and in the JSON', async () => {
    const tree = await shadowlog(home, ['sessions', '--tree']);
    expectReadable(tree);
    expect(tree.stdout).toContain(`└─ ${branchId}  branch after #8 of ${mainId}, 6 own events (15 with the prefix)`);
    const json = await shadowlog(home, ['sessions', '--json']);
    const sessions = JSON.parse(json.stdout) as Array<{ id: string; parent?: { sessionId: string }; forkSeq?: number }>;
    expect(sessions.find((session) => session.id === branchId)).toMatchObject({ parent: { sessionId: mainId }, forkSeq: 8 });
    expect(sessions.find((session) => session.id === mainId)?.parent).toBeUndefined();
  });

  it("shows on the branch's surface its own path only, and on the main session's the summary pi sent", async () => {
    const branch = await shadowlog(home, ['show', branchId, '--surface']);
    expectReadable(branch, { ownLines: unindented });
    expect(branch.stdout).toContain('Change it to 9090.');
    expect(branch.stdout).not.toContain('Explain what the port setting does instead.');
    const main = await shadowlog(home, ['show', mainId, '--surface']);
    expect(main.stdout).toContain('Changed the port to 9090; the user went back.');
    expect(main.stdout).not.toContain('Change it to 9090.');
  });

  it('verifies both, and reads the branch with its prefix counted in its parent', async () => {
    for (const id of [branchId, mainId]) {
      const verified = await shadowlog(home, ['verify', id]);
      expectReadable(verified);
      expect(verified.stdout).toContain(`${id}: ok`);
    }
    const stats = await shadowlog(home, ['stats', branchId]);
    expectReadable(stats);
    expect(stats.stdout).toContain(`a branch of ${mainId} after #8: its events 0–8, with 2 model calls, are its prefix`);
  });
});
