// The journey of a user whose harnesses made branches: a Claude Code transcript rewound once, a
// session forked from it with `claude --resume … --fork-session`, a Codex rollout forked with
// `/fork`, laid out where the harnesses keep them. `import ~/.claude/projects ~/.codex/sessions`
// stores each as a branch of its parent; `sessions --tree` and `--json` show the links; each
// branch's surface holds only its own path; verify passes on every one; a second import writes
// nothing.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeForkSession, claudeRewound, codexFork, jsonl } from '../importers/support/branch-fixtures.js';
import { createHarnessHome, type HarnessHome } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';

let home: HarnessHome;
let imported: JourneyResult;
const rewound = claudeRewound();
const forked = claudeForkSession();
const codex = codexFork();
const mainId = `claude-code-${rewound.sessionId}`;
const rewindId = `${mainId}.branch-abandu00`;
const forkId = `claude-code-${forked.sessionId}`;
const codexParentId = `codex-${codex.parentId}`;
const codexForkId = `codex-${codex.sessionId}`;

beforeAll(async () => {
  home = createHarnessHome(['claude-code', 'codex']);
  const small = home.session('claude-code', '5c0375b4');
  writeFileSync(small.path, jsonl(rewound.records));
  writeFileSync(join(dirname(small.path), `${forked.sessionId}.jsonl`), jsonl(forked.records));
  const rollout = join(home.roots.codex, '2025', '11', '18', `rollout-2025-11-18T09-00-00-${codex.sessionId}.jsonl`);
  mkdirSync(dirname(rollout), { recursive: true });
  writeFileSync(rollout, jsonl(codex.records));
  imported = await shadowlog(home, ['import', home.roots['claude-code'], home.roots.codex]);
});
afterAll(() => home?.cleanup());

describe('a user imports the branches their harnesses made', () => {
  it('stores the rewind, the --fork-session file and the Codex fork as branches, saying after which event of which parent', () => {
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(imported.stdout)).toEqual([]);
    expect(imported.stdout).toContain(
      `imported ${rewindId} (a branch of ${mainId} after #36: linked to it, 6 own events written, events 0–36 read from ${mainId})`,
    );
    expect(imported.stdout).toContain(`imported ${forkId} (a branch of ${mainId} after #36: linked to it, 6 own events written`);
    expect(imported.stdout).toContain(
      `imported ${codexForkId} (a branch of ${codexParentId} after #281: linked to it, 10 own events written, events 0–281 read from ${codexParentId})`,
    );
  });

  it('sessions --tree draws them under their parents; --json names parent and forkSeq', async () => {
    const tree = await shadowlog(home, ['sessions', '--tree']);
    expect(tree.stdout).toContain(`└─ ${codexForkId}  branch after #281 of ${codexParentId}, 10 own events (292 with the prefix)`);
    expect(tree.stdout).toContain(`├─ ${rewindId}  branch after #36 of ${mainId}, 6 own events (43 with the prefix)`);
    const listed = JSON.parse((await shadowlog(home, ['sessions', '--json'])).stdout) as Array<Record<string, unknown>>;
    const entry = (id: string) => listed.find((session) => session.id === id);
    expect(entry(rewindId)).toMatchObject({ parent: { sessionId: mainId }, forkSeq: 36 });
    expect(entry(forkId)).toMatchObject({ parent: { sessionId: mainId }, forkSeq: 36 });
    expect(entry(codexForkId)).toMatchObject({ parent: { sessionId: codexParentId }, forkSeq: 281 });
  });

  it('show --surface: each session ends with its own path only', async () => {
    const main = (await shadowlog(home, ['show', mainId, '--surface'])).stdout;
    const rewind = (await shadowlog(home, ['show', rewindId, '--surface'])).stdout;
    const fork = (await shadowlog(home, ['show', forkId, '--surface'])).stdout;
    expect(main).toContain('Now add a light theme toggle.');
    expect(main).not.toContain('Now add a dark mode.');
    expect(rewind).toContain('Now add a dark mode.');
    expect(rewind).not.toContain('Now add a light theme toggle.');
    expect(fork).toContain('Now add a settings page.');
    expect(fork).not.toContain('Now add a dark mode.');
    expect((await shadowlog(home, ['show', codexForkId, '--surface'])).stdout.trimEnd().split('\n').slice(-4)).toEqual([
      '#287 user',
      '    Now write the tests.',
      '#290 assistant',
      '    Tests written.',
    ]);
  });

  it('verify passes on every branch and parent; a second import writes nothing', async () => {
    for (const id of [mainId, rewindId, forkId, codexParentId, codexForkId]) {
      const verified = await shadowlog(home, ['verify', id]);
      expect(verified.stdout).toMatch(new RegExp(`^${id.replace(/\./g, '\\.')}: ok — `));
    }
    const again = await shadowlog(home, ['import', home.roots['claude-code'], home.roots.codex]);
    expect(again.stdout).not.toMatch(/^ {2}(imported|grew)/m);
  });
});
