// Importing from a program, through the public API: the same transaction the command line runs,
// into any store.

import { MemoryLogStore, origins } from 'shadowlog';
import { COMPACTION_EVENT_TYPES } from 'shadowlog/compaction';
import { importFiles, readImportInputs } from 'shadowlog/importers';
import { asSessionSeq, EventTypeRegistry } from 'shadowlog/log';
import { describe, expect, it } from 'vitest';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

describe('importFiles', () => {
  it('imports a session of another harness into a store and reports it', async () => {
    const store = new MemoryLogStore();
    const inputs = await readImportInputs([corpusFile(CORPUS_FILES.claudeMain), corpusFile(CORPUS_FILES.claudeSummarizer)], '/');
    const summary = await importFiles(store, inputs, { format: 'auto', registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
    expect(summary.files.map((file) => [file.format, file.sessions.map((session) => session.status)])).toEqual([
      ['claude-code', ['imported']],
      ['claude-code', ['imported']],
    ]);
    const sessionId = summary.files[0]?.sessions[0]?.sessionId as string;
    let summarySeq = -1;
    for await (const page of store.read(sessionId))
      for (const event of page) if (event.type === 'compaction/summary') summarySeq = event.seq;
    const replaced = await origins(asSessionSeq(summarySeq + 1), (seq) => store.readEvent(sessionId, seq));
    expect(replaced.length).toBeGreaterThan(100);
    const again = await importFiles(store, inputs, { format: 'auto', registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
    expect(again.files.flatMap((file) => file.sessions.map((session) => session.status))).toEqual(['already-present', 'already-present']);
  });
});
