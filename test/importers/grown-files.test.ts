// A session cut short and then completed imports to the same session as a one-shot import of
// the whole file: each corpus file is cut at several points (between turns, inside a turn, in
// the middle of a line), imported while "still being written", then imported whole, and the
// store's session is compared with a one-shot import: the same calls, compactions and surface,
// event for event (the same hashes, so ids and times too).

import { readFileSync } from 'node:fs';
import { MemoryLogStore } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { type ImportInput, importFiles } from 'shadowlog/importers';
import { EventTypeRegistry, type LogEvent, SurfaceFold } from 'shadowlog/log';
import { describe, expect, it } from 'vitest';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const registry = new EventTypeRegistry(COMPACTION_EVENT_TYPES);
const NOW = Date.parse('2026-03-01T00:00:00Z');

/** An input as read from a file last modified at `modifiedMs`. */
const input = (path: string, bytes: Buffer, modifiedMs = NOW - 86_400_000): ImportInput => ({ path, bytes, modifiedMs });

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of store.read(sessionId)) events.push(...page);
  return events;
}

/** What a person compares: each call's surface and answer, the compactions, the final surface. */
function shapeOf(events: readonly LogEvent[]) {
  return {
    calls: events.filter((event) => event.type === 'assistant/message' || event.type === 'model/error').map((event) => event.data),
    requests: events.filter((event) => event.type === 'model/request').length,
    compactions: events.filter((event) => event.type === 'compaction/summary').map((event) => event.data),
    surface: surfaceOf(events),
  };
}

function surfaceOf(events: readonly LogEvent[]): number[] {
  const fold = new SurfaceFold({ registry });
  for (const event of events) fold.apply(event);
  return fold.toArray().map((node) => node.seq);
}

/** The byte offset where line `line` (from 1) starts. */
function offsetOfLine(bytes: Buffer, line: number): number {
  let offset = 0;
  for (let current = 1; current < line; current++) offset = bytes.indexOf(10, offset) + 1;
  return offset;
}

const FILES = [CORPUS_FILES.claudeSmall, CORPUS_FILES.claudeMain, CORPUS_FILES.codexOld, CORPUS_FILES.codexCompacted, CORPUS_FILES.pi];

describe('a file imported while it grows', () => {
  for (const file of FILES) {
    it(`${file}: cut at several points (mid-turn, mid-line), then whole, is the one-shot import`, async () => {
      const path = corpusFile(file);
      const whole = readFileSync(path);
      const lines = whole.toString('utf8').split('\n').length - 1;
      const oneShot = new MemoryLogStore();
      const [report] = (await importFiles(oneShot, [input(path, whole)], { format: 'auto', registry })).files;
      const sessionId = report?.sessions[0]?.sessionId as string;
      const expected = await eventsOf(oneShot, sessionId);
      // Cuts at line boundaries through the file, and two in the middle of a line (a torn last line).
      const cuts = [0.1, 0.35, 0.6, 0.85].map((share) => offsetOfLine(whole, Math.max(2, Math.floor(lines * share))));
      const torn = [Math.floor(lines * 0.5), Math.floor(lines * 0.9)].map((line) => offsetOfLine(whole, line) + 7);
      for (const cut of [...cuts, ...torn]) {
        const store = new MemoryLogStore();
        // Two growing steps while the file is being written (modified just now), then the whole, settled.
        for (const end of [cut, Math.floor((cut + whole.length) / 2)]) {
          const summary = await importFiles(store, [input(path, whole.subarray(0, end), NOW - 100)], {
            format: 'auto',
            registry,
            settleMs: 60_000,
            now: NOW,
          });
          expect(summary.failed).toEqual([]);
        }
        const last = await importFiles(store, [input(path, whole)], { format: 'auto', registry, settleMs: 60_000, now: NOW });
        expect(last.files[0]?.sessions[0]?.status, `cut at byte ${cut}`).toMatch(/grew|already-present/);
        const events = await eventsOf(store, sessionId);
        expect(shapeOf(events), `cut at byte ${cut}`).toEqual(shapeOf(expected));
        expect(events.map((event) => event.hash)).toEqual(expected.map((event) => event.hash));
      }
    });
  }

  it('a session resumed after it ended (a new turn appended) grows by its new turn, even when imported as complete', async () => {
    const path = corpusFile(CORPUS_FILES.claudeMain);
    const whole = readFileSync(path);
    // Line 278 is turn_duration: the first turn ended there, and the file was quiet until the next prompt.
    const end = offsetOfLine(whole, 279);
    const store = new MemoryLogStore();
    const first = await importFiles(store, [input(path, whole.subarray(0, end))], { format: 'auto', registry });
    expect(first.files[0]?.sessions[0]?.pending).toBeUndefined();
    const again = await importFiles(store, [input(path, whole.subarray(0, end))], { format: 'auto', registry });
    expect(again.files[0]?.sessions[0]).toMatchObject({ status: 'already-present', written: 0 });
    const grown = await importFiles(store, [input(path, whole)], { format: 'auto', registry });
    const session = grown.files[0]?.sessions[0];
    expect(session).toMatchObject({ status: 'grew' });
    const oneShot = new MemoryLogStore();
    await importFiles(oneShot, [input(path, whole)], { format: 'auto', registry });
    const sessionId = session?.sessionId as string;
    expect((await eventsOf(store, sessionId)).map((event) => event.hash)).toEqual(
      (await eventsOf(oneShot, sessionId)).map((event) => event.hash),
    );
    expect(session?.written).toBe((await eventsOf(oneShot, sessionId)).length - (first.files[0]?.sessions[0]?.events ?? 0));
  });

  it('holds back an answer still being written, reporting it, and writes it once the file moves past it', async () => {
    const path = corpusFile(CORPUS_FILES.claudeSmall);
    const whole = readFileSync(path);
    // Lines 12-14 are one answer written line by line: cut after its first line.
    const end = offsetOfLine(whole, 13);
    const store = new MemoryLogStore();
    const live = await importFiles(store, [input(path, whole.subarray(0, end), NOW - 100)], {
      format: 'auto',
      registry,
      settleMs: 60_000,
      now: NOW,
    });
    expect(live.files[0]?.sessions[0]?.pending).toEqual({ events: expect.any(Number), fromLine: 12 });
    // Once the file has been quiet for the settle time, the same bytes are complete as they are.
    const settled = await importFiles(store, [input(path, whole.subarray(0, end), NOW - 120_000)], {
      format: 'auto',
      registry,
      settleMs: 60_000,
      now: NOW,
    });
    expect(settled.files[0]?.sessions[0]).toMatchObject({ status: 'grew' });
    expect(settled.files[0]?.sessions[0]?.pending).toBeUndefined();
  });

  it('a file imported as complete in the middle of an answer, whose answer then grew, is a conflict naming the line', async () => {
    const path = corpusFile(CORPUS_FILES.claudeSmall);
    const whole = readFileSync(path);
    const store = new MemoryLogStore();
    await importFiles(store, [input(path, whole.subarray(0, offsetOfLine(whole, 13)))], { format: 'auto', registry });
    await expect(importFiles(store, [input(path, whole)], { format: 'auto', registry })).rejects.toMatchObject({
      code: 'SESSION_CONFLICT',
      conflicts: [{ line: 12, firstDifferentSeq: expect.any(Number), reason: expect.stringMatching(/still being written/) }],
    });
  });
});
