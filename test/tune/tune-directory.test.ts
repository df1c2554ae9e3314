// `shadowlog tune DIR`: a file in the directory that is no session (notes kept beside the
// sessions, an empty file) is skipped and named on stderr; the sessions are tuned.

import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

describe('shadowlog tune over a directory', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  it('skips stray files, naming each with its reason, and tunes the sessions', async () => {
    mkdirSync(join(workspace.cwd, 'project'));
    copyFileSync(corpusFile(CORPUS_FILES.claudeSmall), join(workspace.cwd, 'project/session.jsonl'));
    writeFileSync(join(workspace.cwd, 'project/notes.jsonl'), '{"note":"look at the csv parser"}\n');
    writeFileSync(join(workspace.cwd, 'project/empty.jsonl'), '');
    const result = await workspace.run(['--json', 'tune', 'project', '--grid', 'thresholdRatio=0.8']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^shadowlog: skipped project\/notes\.jsonl: not a session of any format shadowlog imports/m);
    expect(result.stderr).toMatch(/^shadowlog: skipped project\/empty\.jsonl: empty: no records at all$/m);
    expect((JSON.parse(result.stdout) as { sessions: unknown[] }).sessions).toHaveLength(3);
  }, 60_000);
});
