// Import as a transaction: every file is read and checked before anything is written, so a bad
// file named alone or a session the store holds differently stops the import with nothing
// written (under a directory, the damaged file is reported and the others imported); a
// torn last line and records joined on one line are reported, not lost; --as names one file's
// sessions, --window the window of calls whose source states none.

import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import { expectCleanRefusal } from '../chaos/support/cli-checks.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const SMALL = 'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7';
const PI = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

describe('import as a transaction', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  // A failed import into a new store leaves no store file at all: no sessions.
  const sessions = async () =>
    existsSync(join(workspace.cwd, '.shadowlog/shadowlog.db'))
      ? (JSON.parse((await workspace.run(['--json', 'sessions'])).stdout) as Array<{ id: string; events: number }>).map(
          (session) => `${session.id} ${session.events}`,
        )
      : [];
  const write = (name: string, text: string) => writeFileSync(join(workspace.cwd, name), text);
  const corpusLines = (file: string) => readFileSync(corpusFile(file), 'utf8').split('\n').slice(0, -1);

  it('imports the good files of a directory and names the damaged one by file and line, exiting 1', async () => {
    mkdirSync(join(workspace.cwd, 'sessions'));
    copyFileSync(corpusFile(CORPUS_FILES.claudeSmall), join(workspace.cwd, 'sessions/a.jsonl'));
    copyFileSync(corpusFile(CORPUS_FILES.codexOld), join(workspace.cwd, 'sessions/b.jsonl'));
    const pi = corpusLines(CORPUS_FILES.pi);
    pi[500] = (pi[500] as string).slice(0, 100);
    write('sessions/c.jsonl', `${pi.join('\n')}\n`);
    const result = await workspace.run(['import', 'sessions']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^shadowlog: failed: sessions\/c\.jsonl line 501: CORRUPT_LOG: line 501: the line is not valid JSON/m);
    expect(result.stderr).toMatch(/1 file failed \(listed above\); the other 2 files were imported/);
    expect((await sessions()).map((line) => line.split(' ')[0]).sort()).toEqual(
      [
        'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
        `${SMALL}.sidechain-6340ddef`,
        `${SMALL}.sidechain-83e2917c`,
        'codex-019a93b9-f380-7600-98ff-940e6b99603c',
      ].sort(),
    );
  });

  it('appends what a grown file adds; a file whose imported part changed is refused, naming the line, with nothing written', async () => {
    const lines = corpusLines(CORPUS_FILES.claudeSmall);
    write('short.jsonl', `${lines.slice(0, 20).join('\n')}\n`);
    expect((await workspace.run(['import', 'short.jsonl'])).code).toBe(0);
    const grown = await workspace.run(['import', corpusFile(CORPUS_FILES.pi), corpusFile(CORPUS_FILES.claudeSmall)]);
    expect(grown.code).toBe(0);
    expect(grown.stdout).toMatch(new RegExp(`grew: appended [\\d,]+ events to ${SMALL} `));
    const before = await sessions();
    const changed = [...lines];
    changed[10] = (changed[10] as string).replace('"type":"user"', '"type":"user","edited":true');
    write('changed.jsonl', `${changed.join('\n')}\n`);
    const result = await workspace.run(['import', 'changed.jsonl']);
    expect(expectCleanRefusal(result, 'import changed', [1])).toBe('SESSION_CONFLICT');
    expect(result.stderr).toMatch(
      new RegExp(
        `already holds a session of the same id with different events: ${SMALL} from changed\\.jsonl .*line 11 is not what was imported from it.*nothing was imported\\. .*--as ID`,
      ),
    );
    expect(await sessions()).toEqual(before);
  });

  it('splits two records joined on one line, says so, and imports what the separate lines give', async () => {
    const lines = corpusLines(CORPUS_FILES.claudeSmall);
    const joined = [...lines.slice(0, 4), `${lines[4]}${lines[5]}`, ...lines.slice(6)];
    write('joined.jsonl', `${joined.join('\n')}\n`);
    const human = await workspace.run(['--store', 'sqlite:human.db', 'import', 'joined.jsonl']);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe(
      'shadowlog: warning: joined.jsonl line 5 held 2 records written onto one line (a defect of the program that wrote it); each was imported on its own\n',
    );
    const report = (JSON.parse((await workspace.run(['--json', 'import', 'joined.jsonl'])).stdout) as { files: FileReport[] }).files[0];
    expect(report?.joinedLines).toEqual([{ line: 5, records: 2 }]);
    const whole = (
      JSON.parse(
        (await workspace.run(['--store', 'sqlite:whole.db', '--json', 'import', corpusFile(CORPUS_FILES.claudeSmall)])).stdout,
      ) as { files: FileReport[] }
    ).files[0];
    const figures = (file: FileReport | undefined) =>
      file?.sessions.map(({ events, modelCalls, compactions, foreignLines }) => ({ events, modelCalls, compactions, foreignLines }));
    expect(figures(report)).toEqual(figures(whole));
  });

  it('reports a torn last line, skips it, and imports every record before it', async () => {
    const lines = corpusLines(CORPUS_FILES.pi);
    const last = lines[lines.length - 1] as string;
    write('torn.jsonl', `${lines.slice(0, -1).join('\n')}\n${last.slice(0, 60)}`);
    const human = await workspace.run(['--store', 'sqlite:human.db', 'import', 'torn.jsonl']);
    expect(human.code).toBe(0);
    expect(human.stderr).toBe(
      `shadowlog: warning: torn.jsonl line ${lines.length} (the last, 60 bytes) was cut short and was skipped; every record before it was imported\n`,
    );
    const imported = JSON.parse((await workspace.run(['--json', 'import', 'torn.jsonl'])).stdout) as {
      tornFinalLine: boolean;
      tornLine: unknown;
      files: FileReport[];
    };
    expect(imported).toMatchObject({ tornFinalLine: true, tornLine: { line: lines.length, bytes: 60 } });
    expect(imported.files[0]?.sessions[0]?.modelCalls).toBe(452);
  });

  it('stores one file under the id --as gives, its sub-sessions named after it; --as with several files is bad usage', async () => {
    const imported = JSON.parse(
      (await workspace.run(['--json', 'import', corpusFile(CORPUS_FILES.claudeSmall), '--as', 'my-session'])).stdout,
    ) as { sessionId: string; files: FileReport[] };
    expect(imported.sessionId).toBe('my-session');
    expect(imported.files[0]?.sessions.map((session) => [session.sessionId, session.parent?.sessionId])).toEqual([
      ['my-session', undefined],
      ['my-session.sidechain-6340ddef', 'my-session'],
      ['my-session.sidechain-83e2917c', 'my-session'],
    ]);
    const both = await workspace.run(['import', corpusFile(CORPUS_FILES.pi), corpusFile(CORPUS_FILES.codexOld), '--as', 'x']);
    expect(expectCleanRefusal(both, 'import two --as', [2])).toBe('USAGE');
  });

  it('reads a session of another harness from standard input', async () => {
    const result = await workspace.run(['--json', 'import', '-'], readFileSync(corpusFile(CORPUS_FILES.codexOld), 'utf8'));
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      sessionId: 'codex-019a93b9-f380-7600-98ff-940e6b99603c',
      format: 'codex',
      files: [{ path: '-' }],
    });
  });

  it('records --window on calls of a model the table does not know, so that compact can run without it', async () => {
    const lines = corpusLines(CORPUS_FILES.pi).map((line) => line.replaceAll('"claude-sonnet-4-5"', '"a-local-model"'));
    write('local.jsonl', `${lines.join('\n')}\n`);
    expect((await workspace.run(['--store', 'sqlite:plain.db', 'import', 'local.jsonl'])).code).toBe(0);
    const unknown = await workspace.run(['--store', 'sqlite:plain.db', 'compact', PI]);
    expect(expectCleanRefusal(unknown, 'compact without a window', [2])).toBe('USAGE');
    expect(unknown.stderr).toMatch(/does not record the context window of anthropic\/a-local-model; pass --window TOKENS/);
    const given = await workspace.run(['--store', 'sqlite:plain.db', '--json', 'compact', PI, '--window', '200000']);
    expect(JSON.parse(given.stdout)).toMatchObject({ status: 'compacted' });

    expect((await workspace.run(['--store', 'sqlite:window.db', 'import', 'local.jsonl', '--window', '200000'])).code).toBe(0);
    const recorded = await workspace.run(['--store', 'sqlite:window.db', '--json', 'compact', PI]);
    expect(JSON.parse(recorded.stdout)).toMatchObject({ status: 'compacted' });
  });

  it('refuses a line whose mapping the log cannot hold, naming the file and line, and writes nothing', async () => {
    const lines = corpusLines(CORPUS_FILES.claudeSmall);
    // A number JSON reads as Infinity in a tool call's input: canonical JSON cannot hold it.
    lines[3] = (lines[3] as string).replace('"input":{', '"input":{"limit":1e400,');
    write('huge-number.jsonl', `${lines.join('\n')}\n`);
    const result = await workspace.run(['import', 'huge-number.jsonl']);
    expect(expectCleanRefusal(result, 'import huge-number.jsonl', [1])).toBe('IMPORT_REFUSED');
    expect(result.stderr).toMatch(
      /^shadowlog: IMPORT_REFUSED: huge-number\.jsonl lines 3, 4 \(one answer\): what it maps to breaks a rule of the log \(.*a finite number.*\); nothing was imported/,
    );
    expect(await sessions()).toEqual([]);
  });

  it('keeps the whole input and output of a count whose parts do not fit in them, and reports the line', async () => {
    const lines = corpusLines(CORPUS_FILES.codexOld);
    const count = JSON.parse(lines[8] as string) as { payload: { info: { last_token_usage: Record<string, number> } } };
    count.payload.info.last_token_usage.cached_input_tokens = 99_999;
    lines[8] = JSON.stringify(count);
    write('glitch.jsonl', `${lines.join('\n')}\n`);
    const imported = JSON.parse((await workspace.run(['--json', 'import', 'glitch.jsonl'])).stdout) as { files: FileReport[] };
    expect(imported.files[0]?.sessions[0]?.unmapped).toEqual([
      {
        line: 11,
        reason: expect.stringMatching(
          /^the usage's parts do not fit in its wholes \(.*"cacheReadTokens":99999.*\); only its input and output counts are kept$/,
        ),
      },
    ]);
    expect((await workspace.run(['verify', 'codex-019a93b9-f380-7600-98ff-940e6b99603c'])).code).toBe(0);
  });

  it('prints, per file, what it detected and each session it wrote with its figures', async () => {
    const result = await workspace.run(['import', corpusFile(CORPUS_FILES.codexOld)]);
    expect(result.stdout).toBe(
      `${corpusFile(CORPUS_FILES.codexOld)}: codex (detected: line 1 is a Codex session_meta record (Codex 0.58.0)), 279 lines, 341,713 bytes\n` +
        `  imported codex-019a93b9-f380-7600-98ff-940e6b99603c into sqlite:${join(workspace.cwd, '.shadowlog/shadowlog.db')}: 282 events, 39 model calls, 0 compactions mapped, 161 lines kept as foreign events, 0 parts not mapped; hash chain and surface verified\n`,
    );
  });
});
