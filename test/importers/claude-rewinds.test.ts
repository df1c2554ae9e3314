// Claude Code rewinds imported as branches (SPEC §14): the latest path is the session, each
// abandoned path a branch of the path it left, linked after the last record both share; each
// session's surface holds only its own path; every session verifies; importing again writes
// nothing; the corpus transcripts (no rewinds, but compactions, parallel tool results and
// progress lines beside the path) stay one session each.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryLogStore } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { importFiles } from 'shadowlog/importers';
import { EventTypeRegistry, verifyLog } from 'shadowlog/log';
import { openSqliteStore, type SqliteLogStore } from 'shadowlog/store/sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';
import { claudeExchange, claudeNestedRewinds, claudeRewound, claudeRewoundToStart, jsonl } from './support/branch-fixtures.js';
import { eventsOf, surfaceTexts } from './support/branch-logs.js';

const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
const directory = mkdtempSync(join(tmpdir(), 'shadowlog-rewinds-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function importText(store: MemoryLogStore | SqliteLogStore, name: string, text: string) {
  const path = join(directory, name);
  writeFileSync(path, text);
  return importFiles(store, [{ path, bytes: Buffer.from(text) }], { format: 'auto', registry });
}

describe('a rewound Claude Code transcript', () => {
  it('imports as its latest path and a branch of it, each with only its own path on its surface', async () => {
    const { sessionId, records } = claudeRewound();
    const store = await openSqliteStore(join(directory, 'rewound.db'));
    const summary = await importText(store, `${sessionId}.jsonl`, jsonl(records));
    const [main, branch] = summary.files[0]?.sessions ?? [];
    const mainId = `claude-code-${sessionId}`;
    expect(main?.sessionId).toBe(mainId);
    expect(branch?.sessionId).toBe(`${mainId}.branch-abandu00`);
    expect(branch?.fork).toMatchObject({ parentSessionId: mainId, stored: 'linked' });
    const forkSeq = branch?.fork?.forkSeq as number;
    // The branch's own events: its session/fork, the abandoned prompt's turn and answer.
    expect(branch?.written).toBe((branch?.events ?? 0) - forkSeq - 1);
    const listed = await store.listSessions();
    expect(listed.find((each) => each.id === branch?.sessionId)?.parent).toEqual({ sessionId: mainId, forkSeq });
    const mainEvents = await eventsOf(store, mainId);
    const branchEvents = await eventsOf(store, branch?.sessionId as string);
    expect(branchEvents.slice(0, forkSeq + 1)).toEqual(mainEvents.slice(0, forkSeq + 1));
    expect(branchEvents[forkSeq + 1]?.type).toBe('session/fork');
    // It leaves after the corpus file's last answer, the last record both paths share.
    expect(mainEvents[forkSeq]?.type).toBe('assistant/message');
    const mainSurface = surfaceTexts(mainEvents);
    const branchSurface = surfaceTexts(branchEvents);
    expect(mainSurface.slice(-2)).toEqual(['Now add a light theme toggle.', 'Toggle added.']);
    expect(branchSurface.slice(-2)).toEqual(['Now add a dark mode.', 'Dark mode added.']);
    expect(mainSurface.slice(0, -2)).toEqual(branchSurface.slice(0, -2));
    for (const events of [mainEvents, branchEvents]) expect((await verifyLog([events], { registry })).ok).toBe(true);
    // Importing the same file again writes nothing.
    const again = await importText(store, `${sessionId}.jsonl`, jsonl(records));
    expect(again.files[0]?.sessions.map((session) => session.status)).toEqual(again.files[0]?.sessions.map(() => 'already-present'));
    await store.close();
  });

  it('keeps a stored session its path when the transcript is rewound after the import (the rewind is a branch of it)', async () => {
    const { sessionId, records, corpusLines } = claudeRewound();
    const store = new MemoryLogStore();
    const name = `grown-${sessionId}.jsonl`;
    // Imported while the second exchange was the latest; then the user rewound it and asked again.
    const before = await importText(store, name, jsonl(records.slice(0, corpusLines + 2)));
    const mainId = `claude-code-${sessionId}`;
    const stored = await eventsOf(store, mainId);
    expect(surfaceTexts(stored).slice(-2)).toEqual(['Now add a dark mode.', 'Dark mode added.']);
    const after = await importText(store, name, jsonl(records));
    const [main, branch] = after.files[0]?.sessions ?? [];
    expect(before.files[0]?.sessions[0]?.status).toBe('imported');
    expect(main).toMatchObject({ sessionId: mainId, status: 'already-present' });
    expect(branch?.fork).toMatchObject({ parentSessionId: mainId, stored: 'linked' });
    expect(surfaceTexts(await eventsOf(store, branch?.sessionId as string)).slice(-2)).toEqual([
      'Now add a light theme toggle.',
      'Toggle added.',
    ]);
    expect(await eventsOf(store, mainId)).toEqual(stored);
  });

  it('nests a rewind inside an abandoned path as a branch of that branch', async () => {
    const { sessionId, records } = claudeNestedRewinds();
    const store = new MemoryLogStore();
    const summary = await importText(store, `nested-${sessionId}.jsonl`, jsonl(records));
    const [main, branch, nested] = summary.files[0]?.sessions ?? [];
    expect(branch?.fork).toMatchObject({ parentSessionId: main?.sessionId, stored: 'linked' });
    expect(nested?.fork).toMatchObject({ parentSessionId: branch?.sessionId, stored: 'linked' });
    expect(surfaceTexts(await eventsOf(store, main?.sessionId as string)).slice(-2)).toEqual([
      'Now add a light theme toggle.',
      'Toggle added.',
    ]);
    expect(surfaceTexts(await eventsOf(store, branch?.sessionId as string)).slice(-4)).toEqual([
      'Now add a dark mode.',
      'Dark mode added.',
      'Make it green.',
      'Green it is.',
    ]);
    const nestedEvents = await eventsOf(store, nested?.sessionId as string);
    expect(surfaceTexts(nestedEvents).slice(-4)).toEqual(['Now add a dark mode.', 'Dark mode added.', 'Make it blue.', 'Blue it is.']);
    expect((await verifyLog([nestedEvents], { registry })).ok).toBe(true);
  });

  it('makes the old conversation a branch after session/start when the first prompt is rewound (a new root)', async () => {
    const { sessionId, records } = claudeRewoundToStart();
    const store = new MemoryLogStore();
    const summary = await importText(store, `restart-${sessionId}.jsonl`, jsonl(records));
    const [main, branch] = summary.files[0]?.sessions ?? [];
    expect(surfaceTexts(await eventsOf(store, main?.sessionId as string))).toEqual(['Just say hello.', 'Hello.']);
    expect(branch?.fork).toEqual({ parentSessionId: main?.sessionId, forkSeq: 0, stored: 'linked' });
    expect(surfaceTexts(await eventsOf(store, branch?.sessionId as string))).not.toContain('Just say hello.');
    // The sub-sessions of the old conversation's Task calls name the branch that made the calls.
    const subs = (summary.files[0]?.sessions ?? []).filter((session) => session.parent !== undefined);
    expect(subs.length).toBeGreaterThan(0);
    for (const sub of subs) expect(sub.parent?.sessionId).toBe(branch?.sessionId);
  });

  it('rewinds the large corpus transcript to its second prompt: the compaction after it goes with the abandoned path', async () => {
    const { readFileSync } = await import('node:fs');
    const records = readFileSync(corpusFile(CORPUS_FILES.claudeMain), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const second = records.findIndex((record) => (record.message as { content?: unknown } | undefined)?.content === 'continue');
    const prompt = records[second] as Record<string, unknown>;
    const again = claudeExchange(
      String(prompt.sessionId),
      String(prompt.parentUuid),
      'continue, differently',
      'Done.',
      '2026-02-20T00:00:00.000Z',
      'bigrew',
    );
    const store = new MemoryLogStore();
    const summary = await importText(store, 'large-rewound.jsonl', jsonl([...records, ...again]));
    const [main, branch] = summary.files[0]?.sessions ?? [];
    expect(main).toMatchObject({ compactions: 0, unmapped: [] });
    expect(branch).toMatchObject({ compactions: 1, unmapped: [], fork: { parentSessionId: main?.sessionId, stored: 'linked' } });
    const mainEvents = await eventsOf(store, main?.sessionId as string);
    expect(surfaceTexts(mainEvents).slice(-2)).toEqual(['continue, differently', 'Done.']);
    for (const id of [main?.sessionId, branch?.sessionId])
      expect((await verifyLog([await eventsOf(store, id as string)], { registry })).ok).toBe(true);
  });

  it('leaves the corpus transcripts one session each (compactions, parallel tool results, progress lines are no rewinds)', async () => {
    for (const file of [CORPUS_FILES.claudeMain, CORPUS_FILES.claudeSmall]) {
      const store = new MemoryLogStore();
      const path = corpusFile(file);
      const { readFileSync } = await import('node:fs');
      const summary = await importFiles(store, [{ path, bytes: readFileSync(path) }], { format: 'auto', registry });
      expect(summary.files[0]?.sessions.filter((session) => session.fork !== undefined)).toEqual([]);
    }
  });
});
