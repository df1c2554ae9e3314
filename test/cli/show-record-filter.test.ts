// `show --record` of a real Claude Code session (issue 26, item 5): the text leaves out the lines
// the import kept whole from the harness's file (1,083 claude-code/progress of them, once 1,103
// lines of JSON in 2,969), names what it left out at the end, per type; --all prints them,
// --type prints only the kinds named; --json still lists every event unless --type narrows it;
// a type the session does not hold is a USAGE error that lists the types it does; --at and
// --follow keep to the same rule.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const ID = 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569';
const HIDDEN_LINE =
  "1,103 source events hidden: 1,083 claude-code/progress, 14 claude-code/file-history-snapshot, 3 claude-code/system-stop-hook-summary, 2 claude-code/system-turn-duration, 1 claude-code/queue-operation (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind";

/** The lines of a record's text that start an event (`#12 …`). */
const eventLines = (stdout: string) => stdout.split('\n').filter((line) => /^#\d+ /.test(line));
const foreignLines = (stdout: string) => eventLines(stdout).filter((line) => /^#\d+ ·· claude-code\//.test(line));

describe('show --record of an imported Claude Code session', () => {
  const workspace = createCliWorkspace();
  const store = ['--store', `sqlite:${workspace.cwd}/store.db`];
  const show = (...args: string[]) => workspace.run([...store, 'show', ID, ...args]);

  beforeAll(async () => {
    const imported = await workspace.run([...store, 'import', corpusFile(CORPUS_FILES.claudeMain)]);
    expect(imported.code, imported.stderr).toBe(0);
  }, 60_000);
  afterAll(() => workspace.cleanup());

  it('hides the lines kept from the source by default and says how many of each type at the end', async () => {
    const result = await show('--record');
    expect(result.code, result.stderr).toBe(0);
    expect(foreignLines(result.stdout)).toEqual([]);
    // Every other event is there: 1,545 events, 1,103 of them hidden.
    expect(new Set(eventLines(result.stdout).map((line) => line.split(' ')[0])).size).toBe(1544 - 1103);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(HIDDEN_LINE);
  }, 30_000);

  it('prints every event with --all, and nothing about hidden ones', async () => {
    const result = await show('--record', '--all');
    expect(result.code, result.stderr).toBe(0);
    expect(foreignLines(result.stdout)).toHaveLength(1103);
    expect(new Set(eventLines(result.stdout).map((line) => line.split(' ')[0])).size).toBe(1544);
    expect(result.stdout).not.toContain('source events hidden');
  }, 30_000);

  it('prints only the types --type names: repeated, comma-separated, or a namespace', async () => {
    const progress = await show('--record', '--type', 'claude-code/progress');
    expect(progress.code, progress.stderr).toBe(0);
    expect(eventLines(progress.stdout)).toHaveLength(1083);
    expect(eventLines(progress.stdout).every((line) => / ·· claude-code\/progress \(line \d+, /.test(line))).toBe(true);
    expect(progress.stdout.trimEnd().split('\n').at(-1)).toBe(
      'only claude-code/progress shown; 461 events of other types left out; --all shows every event',
    );

    const several = await show('--record', '--type', 'turn/start,turn/end', '--type', 'compaction/*');
    expect(several.code, several.stderr).toBe(0);
    expect(eventLines(several.stdout).map((line) => line.replace(/^#\d+ ── /, '').slice(0, 22))).toEqual([
      'turn 1 starts',
      'turn 1 ends: completed',
      'turn 2 starts',
      'compaction dd3cc2e6 im',
      'compaction dd3cc2e6 im',
      'compaction dd3cc2e6 en',
      'turn 2 ends: completed',
      'turn 3 starts',
    ]);
  }, 30_000);

  it('keeps --json listing every event, and narrows it with --type', async () => {
    const all = JSON.parse((await show('--record', '--json')).stdout) as { events: Array<{ type: string }> };
    expect(all.events).toHaveLength(1544);
    const requests = await show('--record', '--json', '--type', 'model/request');
    const narrowed = JSON.parse(requests.stdout) as { types: string[]; events: Array<{ type: string }> };
    expect(narrowed.types).toEqual(['model/request']);
    expect(narrowed.events).toHaveLength(139);
    expect(narrowed.events.every((event) => event.type === 'model/request')).toBe(true);
  }, 30_000);

  it('refuses a type the session does not hold, listing the ones it does, and --type or --all without the record', async () => {
    const typo = await show('--record', '--type', 'progress');
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe(
      `shadowlog: USAGE: --type progress: no event of that type in the record of ${ID} up to event #1543 (did you mean claude-code/progress?); its types are 1,083 claude-code/progress, 150 tool/result, 139 assistant/message, 139 model/request, 14 claude-code/file-history-snapshot, 4 user/message, 3 claude-code/system-stop-hook-summary, 3 turn/start, 2 claude-code/system-turn-duration, 2 turn/end, 1 claude-code/queue-operation, 1 compaction/end, 1 compaction/start, 1 compaction/summary, 1 session/start\n`,
    );
    const json = await show('--record', '--json', '--type', 'pi/*');
    expect(json.code).toBe(2);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr).error.message).toMatch(/^--type pi\/\*: no event of that type in the record of /);
    for (const args of [['--type', 'model/request'], ['--all'], ['--surface', '--all']]) {
      const refused = await show(...args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toBe(
        'shadowlog: USAGE: --type and --all choose which events of the record are shown: they go with --record or --follow\n',
      );
    }
    const both = await show('--record', '--all', '--type', 'model/request');
    expect(both.code).toBe(2);
  });

  it('counts only what it hid up to --at', async () => {
    const result = await show('--record', '--at', '10');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe(
      "6 source events hidden: 4 claude-code/progress, 2 claude-code/file-history-snapshot (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind",
    );
    const typeAfter = await show('--record', '--at', '10', '--type', 'compaction/start');
    expect(typeAfter.code).toBe(2);
    expect(typeAfter.stderr).toContain(`no event of that type in the record of ${ID} up to event #10;`);
  });

  it('hides them in --follow too: says so when it first hides one, stops at a hidden --until-seq, and counts them when it stops', async () => {
    const result = await show('--follow', '--until-seq', '3', '--poll-ms', '20');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      `following ${ID} from event #0: each event as it lands (Ctrl-C stops)`,
      expect.stringMatching(/^#0 ── session started /),
      "(claude-code/file-history-snapshot and the other lines kept whole from another harness's files are hidden as they land; --all shows them)",
      "3 source events hidden: 2 claude-code/file-history-snapshot, 1 claude-code/progress (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind",
      '',
    ]);
    const all = await show('--follow', '--until-seq', '3', '--all', '--poll-ms', '20');
    expect(eventLines(all.stdout)).toHaveLength(4);
    const json = await show('--follow', '--json', '--type', 'claude-code/progress', '--max-events', '2', '--poll-ms', '20');
    expect(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number; type: string }).type),
    ).toEqual(['claude-code/progress', 'claude-code/progress']);
    const malformed = await show('--follow', '--type', 'progress', '--max-events', '1');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe(
      'shadowlog: USAGE: --type progress: an event type is noun/verb, such as model/request or claude-code/progress, or a namespace such as compaction/*\n',
    );
  }, 30_000);
});
