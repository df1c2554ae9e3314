// `shadowlog import --format auto|claude-code|codex|pi|shadowlog`: a file is told by its content,
// never its name, and the import says what it detected; a file of no known format, or not of the
// format named, gets a clear typed error and nothing is written. (Before, `import` of a Claude
// Code file said CORRUPT_LOG on line 1: a valid foreign file called corrupt.)

import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCleanRefusal } from '../chaos/support/cli-checks.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const SAMPLE = join(import.meta.dirname, '../../examples/sample-session.jsonl');

describe('import tells formats apart by content', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  // A failed import into a new store leaves no store file at all: no sessions.
  const sessions = async () =>
    existsSync(join(workspace.cwd, '.shadowlog/shadowlog.db'))
      ? (JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<{ id: string }>)
      : [];

  it('imports a Claude Code transcript without being told its format, and says what it detected', async () => {
    // Named like an export, so that nothing but the content can tell it.
    copyFileSync(corpusFile(CORPUS_FILES.claudeSmall), join(workspace.cwd, 'export.jsonl'));
    const result = await workspace.run(['import', 'export.jsonl']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^export\.jsonl: claude-code \(detected: line 1 is a Claude Code user record \(Claude Code 1\.0\.108\)\)/,
    );
    expect((await sessions()).map((session) => session.id)).toContain('claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7');
  });

  it('detects each source and a shadowlog export, by content', async () => {
    const cases: Array<[string, string]> = [
      [corpusFile(CORPUS_FILES.pi), 'pi'],
      [corpusFile(CORPUS_FILES.codexOld), 'codex'],
      [corpusFile(CORPUS_FILES.claudeSummarizer), 'claude-code'],
      [SAMPLE, 'shadowlog'],
    ];
    for (const [file, format] of cases) {
      const imported = JSON.parse((await workspace.run(['--json', 'import', file])).stdout) as {
        format: string;
        files: Array<{ detected: string }>;
      };
      expect(imported.format, file).toBe(format);
      expect(imported.files[0]?.detected, file).toMatch(/^line 1 is a /);
    }
  });

  it('refuses a file of no known format with what it found and what to do, and writes nothing', async () => {
    writeFileSync(join(workspace.cwd, 'other.jsonl'), '{"kind":"metric","value":1}\n{"kind":"metric","value":2}\n');
    const other = await workspace.run(['import', 'other.jsonl']);
    expect(expectCleanRefusal(other, 'import other.jsonl', [1])).toBe('UNKNOWN_IMPORT_FORMAT');
    expect(other.stderr).toMatch(
      /other\.jsonl is not a format shadowlog imports: expected a shadowlog JSONL export, a Claude Code transcript, a Codex CLI rollout, a pi session, found line 1 is a record with keys kind, value\. .*--format/,
    );
    writeFileSync(join(workspace.cwd, 'notes.txt'), 'These are notes,\nnot a session.\n');
    expect(expectCleanRefusal(await workspace.run(['import', 'notes.txt']), 'import notes.txt', [1])).toBe('UNKNOWN_IMPORT_FORMAT');
    writeFileSync(join(workspace.cwd, 'empty.jsonl'), '');
    expect(expectCleanRefusal(await workspace.run(['import', 'empty.jsonl']), 'import empty.jsonl', [1])).toBe('UNKNOWN_IMPORT_FORMAT');
    expect(await sessions()).toEqual([]);
  });

  it('refuses a file that is not the format named, saying what it looks like', async () => {
    const claude = corpusFile(CORPUS_FILES.claudeSmall);
    const asPi = await workspace.run(['import', claude, '--format', 'pi']);
    expect(expectCleanRefusal(asPi, 'import --format pi', [1])).toBe('IMPORT_FORMAT_MISMATCH');
    expect(asPi.stderr).toMatch(
      /was given as a pi session, but line 1 is a Claude Code user record .*use --format claude-code, or --format auto/,
    );
    const asExport = await workspace.run(['import', claude, '--format', 'shadowlog']);
    expect(expectCleanRefusal(asExport, 'import --format shadowlog', [1])).toBe('IMPORT_FORMAT_MISMATCH');
    expect(asExport.stderr).toMatch(/line 1 is not a shadowlog export header \(line 1 is a Claude Code user record/);
    const exportAsCodex = await workspace.run(['import', SAMPLE, '--format', 'codex']);
    expect(expectCleanRefusal(exportAsCodex, 'import export --format codex', [1])).toBe('IMPORT_FORMAT_MISMATCH');
    expect(await sessions()).toEqual([]);
    const named = await workspace.run(['--json', 'import', claude, '--format', 'claude-code']);
    expect(JSON.parse(named.stdout)).toMatchObject({ format: 'claude-code', files: [{ detected: null }] });
  });

  it('refuses a malformed line of a detected file as CORRUPT_LOG with its line, writing nothing', async () => {
    const lines = readFileSync(corpusFile(CORPUS_FILES.codexOld), 'utf8').split('\n');
    lines[9] = (lines[9] as string).slice(0, 40);
    writeFileSync(join(workspace.cwd, 'damaged.jsonl'), lines.join('\n'));
    const damaged = await workspace.run(['import', 'damaged.jsonl']);
    expect(expectCleanRefusal(damaged, 'import damaged.jsonl', [1])).toBe('CORRUPT_LOG');
    expect(damaged.stderr).toMatch(/^shadowlog: CORRUPT_LOG: line 10: the line is not valid JSON/);
    expect(await sessions()).toEqual([]);
  });
});
