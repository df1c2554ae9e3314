// A Codex sub-agent's rollout names the thread that spawned it (session_meta.source.subagent.
// thread_spawn.parent_thread_id): it becomes a sub-session of that thread's session, listed
// under it when both are imported.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const PARENT = '019a93b9-f380-7600-98ff-940e6b99603c';
const CHILD = '019a93c0-0000-7000-8000-000000000001';

describe('Codex sub-agents', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('imports a sub-agent rollout as a sub-session of the thread that spawned it', async () => {
    const lines = readFileSync(corpusFile(CORPUS_FILES.codexOld), 'utf8').split('\n').slice(0, 40);
    const meta = JSON.parse(lines[0] as string) as { payload: Record<string, unknown> };
    meta.payload.id = CHILD;
    meta.payload.source = { subagent: { thread_spawn: { parent_thread_id: PARENT, depth: 1, agent_nickname: 'Dalton' } } };
    mkdirSync(join(workspace.cwd, 'sessions'));
    writeFileSync(join(workspace.cwd, 'sessions/child.jsonl'), `${[JSON.stringify(meta), ...lines.slice(1)].join('\n')}\n`);
    writeFileSync(join(workspace.cwd, 'sessions/parent.jsonl'), readFileSync(corpusFile(CORPUS_FILES.codexOld)));
    const imported = JSON.parse((await workspace.run(['--json', 'import', 'sessions'])).stdout) as { files: FileReport[] };
    expect(imported.files.map((file) => file.sessions[0]?.parent)).toEqual([{ sessionId: `codex-${PARENT}` }, undefined]);
    const listed = await workspace.run(['sessions']);
    expect(listed.stdout).toMatch(new RegExp(`codex-${PARENT} .*\\n {2}└ codex-${CHILD} `));
    const shown = await workspace.run(['show', `codex-${CHILD}`]);
    expect(shown.stdout).toContain(`a sub-session of codex-${PARENT}`);
  });
});
