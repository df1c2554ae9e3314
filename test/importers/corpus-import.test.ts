// Issue 12, the importers, on the real sessions of the shared corpus: the whole directory imports
// with --format auto, each file's figures agree with a count made straight from its lines, every
// session verifies, nothing of any source line is lost, and importing again writes nothing.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import type { LogEvent } from '../../src/log/event.js';
import { knownModelLimits } from '../../src/providers/model-limits.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, CORPUS_SESSIONS, corpusFile } from '../support/corpus-sessions.js';
import { claudeCounts, codexCounts, piCounts, type SourceCounts } from './support/source-counts.js';

const workspace = createCliWorkspace();
const databasePath = join(workspace.cwd, 'corpus.db');
const store = ['--store', `sqlite:${databasePath}`];
let files: FileReport[];
let sqlite: SqliteLogStore;

const reportOf = (file: string) => files.find((report) => report.path === corpusFile(file)) as FileReport;

async function eventsOf(sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of sqlite.read(sessionId)) events.push(...page);
  return events;
}

beforeAll(async () => {
  const imported = await workspace.run([...store, '--json', 'import', CORPUS_SESSIONS]);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  files = (JSON.parse(imported.stdout) as { files: FileReport[] }).files;
  sqlite = await openSqliteStore(databasePath, { readOnly: true });
});

afterAll(async () => {
  await sqlite?.close();
  workspace.cleanup();
});

describe('importing the shared corpus directory with --format auto', () => {
  it('reads every file of the directory, each in the format its content shows', () => {
    expect(files.map((file) => [file.path.slice(CORPUS_SESSIONS.length + 1), file.format])).toEqual([
      [CORPUS_FILES.claudeMain, 'claude-code'],
      [CORPUS_FILES.claudeSmall, 'claude-code'],
      [CORPUS_FILES.claudeSummarizer, 'claude-code'],
      [CORPUS_FILES.codexOld, 'codex'],
      [CORPUS_FILES.codexCompacted, 'codex'],
      [CORPUS_FILES.pi, 'pi'],
    ]);
    for (const file of files) {
      expect(file.detected, file.path).toMatch(/^line \d+ is a /);
      expect(file.tornLine, file.path).toBeNull();
      expect(file.joinedLines, file.path).toEqual([]);
      expect(
        file.sessions.every((session) => session.status === 'imported'),
        file.path,
      ).toBe(true);
    }
  });

  const cases: ReadonlyArray<[string, (path: string) => SourceCounts]> = [
    [CORPUS_FILES.claudeMain, claudeCounts],
    [CORPUS_FILES.claudeSmall, claudeCounts],
    [CORPUS_FILES.codexOld, codexCounts],
    [CORPUS_FILES.codexCompacted, codexCounts],
    [CORPUS_FILES.pi, piCounts],
  ];
  it.each(cases)('maps %s: its model calls, compactions and foreign lines as counted from its lines', (file, count) => {
    const expected = count(corpusFile(file));
    const [main, ...subSessions] = reportOf(file).sessions;
    const sub = subSessions.reduce((sum, session) => sum + session.modelCalls, 0);
    expect({ modelCalls: (main?.modelCalls ?? 0) + sub, compactions: main?.compactions, foreignLines: main?.foreignLines }).toEqual({
      modelCalls: expected.modelCalls + claudeSidechainCalls(file),
      compactions: expected.compactions,
      foreignLines: expected.foreignLines,
    });
  });

  it('names the facts of the corpus README: 139 calls and one compaction in the long Claude Code session, one in the Codex one', () => {
    expect(reportOf(CORPUS_FILES.claudeMain).sessions[0]).toMatchObject({ modelCalls: 139, compactions: 1, unmapped: [] });
    expect(reportOf(CORPUS_FILES.codexCompacted).sessions[0]).toMatchObject({ modelCalls: 286, compactions: 1 });
    expect(reportOf(CORPUS_FILES.pi).sessions[0]).toMatchObject({ compactions: 0, unmapped: [] });
  });

  it('links sub-sessions: the summarizer transcript to the session it compacted, inline sidechains to the Task call that spawned them', () => {
    const [summarizer] = reportOf(CORPUS_FILES.claudeSummarizer).sessions;
    const main = reportOf(CORPUS_FILES.claudeMain).sessions[0];
    expect(summarizer?.parent).toEqual({ sessionId: main?.sessionId });
    const [small, ...sidechains] = reportOf(CORPUS_FILES.claudeSmall).sessions;
    expect(sidechains.map((session) => session.parent)).toEqual([
      { sessionId: small?.sessionId, callId: 'toolu_014YF9TXhDRR7BnpasNJ7gjC' },
      { sessionId: small?.sessionId, callId: 'toolu_01LKfUwrsnof18CpWZQcJH44' },
    ]);
  });

  it('reports what it could not map by line: the redacted image URLs of the Codex session, nothing else', () => {
    const unmapped = files.flatMap((file) =>
      file.sessions.flatMap((session) => session.unmapped.map((part) => ({ file: file.path, ...part }))),
    );
    expect(unmapped.length).toBe(17);
    for (const part of unmapped) {
      expect(part.file).toBe(corpusFile(CORPUS_FILES.codexCompacted));
      expect(part.reason).toMatch(/input_image whose image_url is not a URL/);
      expect(readFileSync(part.file, 'utf8').split('\n')[part.line - 1]).toContain('[REDACTED_IMAGE_URL');
    }
  });

  it('verifies every session it wrote', async () => {
    const verified = await workspace.run([...store, '--json', 'verify', '--all']);
    expect(verified.code, verified.stdout).toBe(0);
    const sessions = (JSON.parse(verified.stdout) as { sessions: Array<{ ok: boolean }> }).sessions;
    expect(sessions).toHaveLength(8);
    expect(sessions.every((session) => session.ok)).toBe(true);
  });

  it('keeps every line of every file, exactly once: the file can be rebuilt from the log', async () => {
    for (const file of files) {
      const kept = new Map<number, string[]>();
      for (const session of file.sessions) {
        for (const event of await eventsOf(session.sessionId)) {
          const data = event.data as { text?: unknown; line?: unknown; sourceLines?: Array<{ line: number; text?: string }> };
          const refs =
            typeof data.text === 'string' && typeof data.line === 'number'
              ? [{ line: data.line, text: data.text }]
              : (data.sourceLines ?? []);
          for (const ref of refs) if (ref.text !== undefined) kept.set(ref.line, [...(kept.get(ref.line) ?? []), ref.text]);
        }
      }
      const lines = readFileSync(file.path, 'utf8').split('\n').slice(0, -1);
      expect(kept.size, file.path).toBe(lines.length);
      lines.forEach((line, index) => {
        expect((kept.get(index + 1) ?? []).join(''), `${file.path} line ${index + 1}`).toBe(line);
      });
    }
  });

  it('keeps every call the provider counted with its usage, the whole input counted', async () => {
    const events = await eventsOf(reportOf(CORPUS_FILES.claudeMain).sessions[0]?.sessionId as string);
    const first = events.find((event) => event.type === 'assistant/message');
    // The first answer of the transcript: input 3, cache_creation 15,005, cache_read 11,442, output 9 (its last line).
    expect((first?.data as { usage?: unknown } | undefined)?.usage).toEqual({
      inputTokens: 26_450,
      outputTokens: 9,
      cacheReadTokens: 11_442,
      cacheWriteTokens: 15_005,
    });
    const requests = events.filter((event) => event.type === 'model/request');
    expect(requests.every((event) => event.data.provenance === 'imported' && event.data.model === 'claude-opus-4-6')).toBe(true);
    // The transcript does not state its window: the model table's is recorded.
    const window = knownModelLimits('claude-opus-4-6')?.contextWindow;
    expect(window).toBeGreaterThan(0);
    expect(requests.every((event) => event.data.contextWindow === window)).toBe(true);
  });

  it('imports the same directory again as a no-op: every session already present, nothing written', async () => {
    const before = await sqlite.listSessions();
    const again = await workspace.run([...store, '--json', 'import', CORPUS_SESSIONS]);
    expect(again.code, again.stderr).toBe(0);
    const reports = (JSON.parse(again.stdout) as { files: FileReport[] }).files;
    expect(reports.flatMap((file) => file.sessions.map((session) => session.status)).every((status) => status === 'already-present')).toBe(
      true,
    );
    expect(await sqlite.listSessions()).toEqual(before);
    const human = await workspace.run([...store, 'import', corpusFile(CORPUS_FILES.pi)]);
    expect(human.stdout).toMatch(/is already in .* with the same events .*; nothing written/);
  });
});

/** Calls of the sidechains a Claude Code transcript holds inline (old versions), which become sub-sessions. */
function claudeSidechainCalls(file: string): number {
  if (!file.startsWith('claude-code/')) return 0;
  const ids = new Set<unknown>();
  for (const line of readFileSync(corpusFile(file), 'utf8').split('\n')) {
    if (line === '') continue;
    const row = JSON.parse(line) as { isSidechain?: boolean; type?: string; message?: { id?: string } };
    if (row.isSidechain === true && row.type === 'assistant') ids.add(row.message?.id);
  }
  return ids.size;
}
