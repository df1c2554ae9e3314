// pi's compaction entries, on variations of the corpus pi session made in a temporary copy (the
// corpus session has none): each becomes a compaction/summary and a replacing message whose
// sourceEventSeqs list every node it shadows, a nested one shadowing the earlier summary too;
// the version-1 form (firstKeptEntryIndex) maps the same; entries on a path the session left
// become a branch.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import { isSurfaceType, type LogEvent } from '../../src/log/event.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const SESSION = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';
const PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';

/** The corpus pi session's first `count` lines, as pi version 3 writes them: ids and parent ids. */
function versionThree(count: number): Record<string, unknown>[] {
  const lines = readFileSync(corpusFile(CORPUS_FILES.pi), 'utf8').split('\n').slice(0, count);
  return lines.map((line, index) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (index === 0) return { ...entry, version: 3 };
    return { ...entry, id: `e${index + 1}`, parentId: index === 1 ? null : `e${index}` };
  });
}

/** A compaction entry keeping the entries from line `keptLine` on, written after line `afterLine`. */
function compaction(afterLine: number, keptLine: number, summary: string, tokensBefore: number): Record<string, unknown> {
  return {
    type: 'compaction',
    id: `c${afterLine}`,
    parentId: `e${afterLine}`,
    timestamp: '2025-11-21T00:30:00.000Z',
    summary,
    firstKeptEntryId: `e${keptLine}`,
    tokensBefore,
  };
}

const lineOf = (event: LogEvent) => (event.data as { sourceLines?: Array<{ line: number }> }).sourceLines?.[0]?.line as number;

describe('pi compaction entries', () => {
  let workspace: ReturnType<typeof createCliWorkspace>;
  beforeEach(() => {
    workspace = createCliWorkspace();
  });
  afterEach(() => workspace.cleanup());

  async function importEntries(entries: readonly Record<string, unknown>[]): Promise<{ report: FileReport; events: LogEvent[] }> {
    writeFileSync(join(workspace.cwd, 'session.jsonl'), `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
    const imported = await workspace.run(['--store', 'sqlite:pi.db', '--json', 'import', 'session.jsonl']);
    expect(imported.code, imported.stderr).toBe(0);
    const store = await openSqliteStore(join(workspace.cwd, 'pi.db'), { readOnly: true });
    const events: LogEvent[] = [];
    for await (const page of store.read(SESSION)) events.push(...page);
    await store.close();
    return { report: (JSON.parse(imported.stdout) as { files: FileReport[] }).files[0] as FileReport, events };
  }

  it('maps a compaction and a nested one over its summary, each replacing every node before the first kept entry', async () => {
    const entries = versionThree(91);
    // The first compaction, after entry e40, keeps from e34 (a user message); the second, after
    // the last entry, keeps from e70 (a user message), so it shadows the first summary too.
    entries.splice(40, 0, compaction(40, 34, 'first summary', 61_000));
    for (const entry of entries.slice(41)) if (entry.parentId === 'e40') entry.parentId = 'c40';
    entries.push(compaction(91, 70, 'second summary, over the first', 83_000));
    const fileLine = (id: string) => entries.findIndex((entry) => entry.id === id) + 1;
    const [firstKept, secondKept] = [fileLine('e34'), fileLine('e70')];
    expect([firstKept, secondKept]).toEqual([34, 71]);
    const { report, events } = await importEntries(entries);
    expect(report.sessions[0]).toMatchObject({ compactions: 2, unmapped: [] });

    const summaries = events.filter((event) => event.type === 'compaction/summary');
    const replacements = summaries.map((summary) => events.find((event) => event.sourceEventSeqs?.includes(summary.seq)) as LogEvent);
    const messageLines = (before: number) =>
      events
        .filter((event) => isSurfaceType(event.type) && event.surfaceOp === 'append' && lineOf(event) < before)
        .map((event) => event.seq);
    // The first replaces every message before e34; the second, the first summary and every message from e34 up to e70.
    expect(summaries[0]?.data.shadowedSeqs).toEqual(messageLines(firstKept));
    expect(replacements[0]?.sourceEventSeqs).toEqual([...messageLines(firstKept), summaries[0]?.seq]);
    expect(summaries[1]?.data.shadowedSeqs).toEqual([
      replacements[0]?.seq,
      ...messageLines(secondKept).filter((seq) => !messageLines(firstKept).includes(seq)),
    ]);
    expect(replacements[1]?.sourceEventSeqs).toEqual([...((summaries[1]?.data.shadowedSeqs ?? []) as number[]), summaries[1]?.seq]);
    expect(replacements.map((replacement) => replacement.data.content)).toEqual([
      [{ type: 'text', text: `${PREFIX}first summary\n</summary>` }],
      [{ type: 'text', text: `${PREFIX}second summary, over the first\n</summary>` }],
    ]);
    expect(summaries.map((summary) => [summary.data.sourceTokensBefore, summary.data.provider, summary.data.model])).toEqual([
      [61_000, 'anthropic', 'claude-sonnet-4-5'],
      [83_000, 'anthropic', 'claude-sonnet-4-5'],
    ]);

    // As pi shows the model: the latest summary, then the kept entries from e70 on.
    const surface = JSON.parse((await workspace.run(['--store', 'sqlite:pi.db', '--json', 'show', SESSION, '--surface'])).stdout) as {
      nodes: Array<{ seq: number }>;
    };
    expect(surface.nodes[0]?.seq).toBe(replacements[1]?.seq);
    expect(lineOf(events[surface.nodes[1]?.seq as number] as LogEvent)).toBe(secondKept);
    const origins = JSON.parse(
      (await workspace.run(['--store', 'sqlite:pi.db', '--json', 'origins', SESSION, String(replacements[1]?.seq)])).stdout,
    ) as { origins: number[] };
    expect(origins.origins).toEqual(messageLines(secondKept));
    expect((await workspace.run(['--store', 'sqlite:pi.db', 'verify', SESSION])).code).toBe(0);
    const stats = JSON.parse((await workspace.run(['--store', 'sqlite:pi.db', '--json', 'stats', SESSION])).stdout) as {
      compactions: number;
    };
    expect(stats.compactions).toBe(2);
  });

  it('maps the version-1 form, firstKeptEntryIndex, the same way', async () => {
    const lines = readFileSync(corpusFile(CORPUS_FILES.pi), 'utf8').split('\n').slice(0, 41);
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    // Index 33 of the file's entries (the header is index 0) is line 34.
    entries.push({
      type: 'compaction',
      timestamp: '2025-11-21T00:30:00.000Z',
      summary: 'a summary',
      firstKeptEntryIndex: 33,
      tokensBefore: 61_000,
    });
    const { report, events } = await importEntries(entries);
    expect(report.sessions[0]).toMatchObject({ compactions: 1, unmapped: [] });
    const summary = events.find((event) => event.type === 'compaction/summary') as LogEvent;
    const before = events.filter((event) => isSurfaceType(event.type) && event.surfaceOp === 'append' && lineOf(event) < 34);
    expect(summary.data.shadowedSeqs).toEqual(before.map((event) => event.seq));
  });

  it('keeps a compaction it cannot place as a foreign line, and reports it', async () => {
    const entries = versionThree(41);
    entries.push({ ...compaction(41, 999, 'a summary', 61_000), firstKeptEntryId: 'not-in-the-file' });
    const { report, events } = await importEntries(entries);
    expect(report.sessions[0]?.compactions).toBe(0);
    expect(report.sessions[0]?.unmapped).toEqual([
      {
        line: 42,
        reason: 'a compaction entry naming first kept entry not-in-the-file, which is not in the file: what it kept cannot be told',
      },
    ]);
    expect(events.find((event) => event.type === 'pi/compaction')?.data).toMatchObject({ line: 42 });
  });

  it('imports the entries of a path the session left as a branch, forking where it left, not as foreign lines', async () => {
    const entries = versionThree(80);
    // Line 70 (a user message) goes back to line 50: lines 51 to 69 are a path the session left.
    (entries[69] as Record<string, unknown>).parentId = 'e50';
    const { report, events } = await importEntries(entries);
    expect(report.sessions.map((session) => session.sessionId)).toEqual([SESSION, `${SESSION}.branch-e51`]);
    expect(report.sessions[0]?.unmapped).toEqual([]);
    expect(events.some((event) => event.type === 'pi/message')).toBe(false);
    const surfaceLines = events.filter((event) => isSurfaceType(event.type)).map(lineOf);
    expect(surfaceLines.some((line) => line > 50 && line < 70)).toBe(false);
    const branch = report.sessions[1];
    expect(branch?.fork).toMatchObject({ parentSessionId: SESSION, stored: 'linked', leavesAtLine: 51 });
    const store = await openSqliteStore(join(workspace.cwd, 'pi.db'), { readOnly: true });
    const branchEvents: LogEvent[] = [];
    for await (const page of store.read(`${SESSION}.branch-e51`)) branchEvents.push(...page);
    await store.close();
    // Its events up to the fork are the main session's, and its own hold lines 51 to 69.
    const forkSeq = branch?.fork?.forkSeq as number;
    expect(branchEvents.slice(0, forkSeq + 1).map((event) => event.hash)).toEqual(events.slice(0, forkSeq + 1).map((event) => event.hash));
    const ownLines = branchEvents
      .slice(forkSeq + 2)
      .filter((event) => isSurfaceType(event.type))
      .map(lineOf)
      .filter((line) => line > 50);
    expect(ownLines.length).toBeGreaterThan(0);
    expect(ownLines.every((line) => line < 70)).toBe(true);
  });
});
