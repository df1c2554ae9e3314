// Issue 12's "done when" on the real corpus sessions: each source's own compaction shows in
// stats and show, origins of each mapped summary returns exactly the originals it replaced, a
// Codex copy leads back to what it copies, replay says an imported call or compaction is not
// byte-verified, and compact works on every imported session.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileReport } from '../../src/importers/import-report.js';
import { isSurfaceType, type LogEvent } from '../../src/log/event.js';
import { openSqliteStore, type SqliteLogStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, CORPUS_SESSIONS, corpusFile } from '../support/corpus-sessions.js';
import { rowsOf } from './support/source-counts.js';

const workspace = createCliWorkspace();
const databasePath = join(workspace.cwd, 'corpus.db');
const store = ['--store', `sqlite:${databasePath}`];
const ids: Record<keyof typeof CORPUS_FILES, string> = {
  pi: 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617',
  claudeMain: 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569',
  claudeSummarizer: 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569.agent-acompact-e1f845',
  claudeSmall: 'claude-code-5c0375b4-57a5-4f26-b12d-d022ee4e51b7',
  codexOld: 'codex-019a93b9-f380-7600-98ff-940e6b99603c',
  codexCompacted: 'codex-019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
};

async function eventsOf(sqlite: SqliteLogStore, sessionId: string): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of sqlite.read(sessionId)) events.push(...page);
  return events;
}

async function json<T>(args: string[]): Promise<T> {
  const result = await workspace.run([...store, '--json', ...args]);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** The compaction/summary events of a session, each with the replacement that lists it. */
function compactionsOf(events: readonly LogEvent[]) {
  return events
    .filter((event) => event.type === 'compaction/summary')
    .map((summary) => ({ summary, replacement: events.find((event) => event.sourceEventSeqs?.includes(summary.seq)) as LogEvent }));
}

let sqlite: SqliteLogStore;

beforeAll(async () => {
  const imported = await json<{ files: FileReport[] }>(['import', CORPUS_SESSIONS]);
  expect(imported.files.flatMap((file) => file.sessions.map((session) => session.sessionId)).sort()).toEqual(
    [...Object.values(ids), `${ids.claudeSmall}.sidechain-6340ddef`, `${ids.claudeSmall}.sidechain-83e2917c`].sort(),
  );
  sqlite = await openSqliteStore(databasePath, { readOnly: true });
});

afterAll(async () => {
  await sqlite?.close();
  workspace.cleanup();
});

describe('the compactions of the corpus sessions, mapped', () => {
  it('counts them in stats: one in the long Claude Code session and one in the compacted Codex session, none elsewhere', async () => {
    const counts: Record<string, number> = {};
    for (const [name, id] of Object.entries(ids)) counts[name] = (await json<{ compactions: number }>(['stats', id])).compactions;
    expect(counts).toEqual({ pi: 0, claudeMain: 1, claudeSummarizer: 0, claudeSmall: 0, codexOld: 0, codexCompacted: 1 });
    const stats = await json<{ compactionRuns: Array<{ trigger: string; outcome: string }>; summarizerInputTokens: number }>([
      'stats',
      ids.claudeMain,
    ]);
    expect(stats.compactionRuns).toEqual([expect.objectContaining({ trigger: 'pressure', outcome: 'compacted' })]);
    // The summarizer's own call, from its sidechain transcript: 3 + 8,681 + 164,830 input tokens.
    expect(stats.summarizerInputTokens).toBe(173_514);
  });

  it('shows the Claude Code compaction: what the source counted, who summarized, the summarizer transcript, not byte-verifiable', async () => {
    const record = await workspace.run([...store, 'show', ids.claudeMain, '--record']);
    const summaryLine = record.stdout.split('\n').find((line) => line.includes('imported from claude-code')) as string;
    expect(summaryLine).toMatch(/the source counted 170,251 tokens before it/);
    expect(summaryLine).toMatch(/summarized by anthropic\/claude-opus-4-6 in that harness \(173,514 in \/ 8 out tokens\)/);
    expect(summaryLine).toContain(`its transcript is sub-session ${ids.claudeSummarizer}`);
    expect(summaryLine).toContain('not byte-verifiable');
    expect(record.stdout).toMatch(/══ COMPACTED: replaces #\d+–#\d+/);
    const surface = await json<{ nodes: Array<{ seq: number; sourceEventSeqs: number[] }> }>(['show', ids.claudeMain, '--surface']);
    const [first] = surface.nodes;
    expect(first?.sourceEventSeqs.length).toBeGreaterThan(100);
  });

  it('replaces with the source summary: the Claude Code compact summary, as Claude Code sent it', async () => {
    const events = await eventsOf(sqlite, ids.claudeMain);
    const [{ replacement } = { replacement: undefined }] = compactionsOf(events);
    const source = rowsOf(corpusFile(CORPUS_FILES.claudeMain)).find((row) => row.isCompactSummary === true);
    expect(replacement?.data.content).toEqual([{ type: 'text', text: (source?.message as { content: string } | undefined)?.content }]);
  });

  it('origins of each mapped summary returns exactly the originals it replaced', async () => {
    for (const id of [ids.claudeMain, ids.codexCompacted]) {
      const events = await eventsOf(sqlite, id);
      const [compaction] = compactionsOf(events);
      expect(compaction, id).toBeDefined();
      const { summary, replacement } = compaction as { summary: LogEvent; replacement: LogEvent };
      // Every message appended before the compaction, less what it left on the surface (Codex's instructions).
      const left = await json<{ nodes: Array<{ seq: number }> }>(['show', id, '--surface', '--at', String(replacement.seq)]);
      const kept = new Set(left.nodes.map((node) => node.seq).filter((seq) => seq < summary.seq));
      const expected = events
        .filter((event) => event.seq < summary.seq && isSurfaceType(event.type) && event.surfaceOp === 'append' && !kept.has(event.seq))
        .map((event) => event.seq);
      const found = await json<{ seq: number; origins: number[] }>(['origins', id, String(replacement.seq)]);
      expect(found.origins, id).toEqual(expected);
      expect(expected.length, id).toBeGreaterThan(100);
    }
  });

  it('maps the Codex replacement history: the whole surface but the instructions replaced, then each item, copies naming their originals', async () => {
    const events = await eventsOf(sqlite, ids.codexCompacted);
    const [compaction] = compactionsOf(events);
    const { summary, replacement } = compaction as { summary: LogEvent; replacement: LogEvent };
    const source = rowsOf(corpusFile(CORPUS_FILES.codexCompacted)).find((row) => row.type === 'compacted');
    const history =
      (source?.payload as { replacement_history: Array<{ type: string; role?: string }> } | undefined)?.replacement_history ?? [];
    const surface = await json<{ nodes: Array<{ seq: number; type: string; copyOf?: number }> }>([
      'show',
      ids.codexCompacted,
      '--surface',
      '--at',
      String(summary.seq + history.length),
    ]);
    // The instructions, then one node per item of the replacement history, in its order.
    expect(surface.nodes[0]).toMatchObject({ seq: 1, type: 'system/message' });
    expect(surface.nodes.slice(1).map((node) => node.type)).toEqual(
      history.map((item) =>
        item.type === 'compaction'
          ? 'user/message'
          : item.role === 'assistant'
            ? 'assistant/message'
            : item.role === 'developer'
              ? 'system/message'
              : 'user/message',
      ),
    );
    expect(surface.nodes[1]?.seq).toBe(replacement.seq);
    const last = events.find((event) => event.seq === surface.nodes.at(-1)?.seq);
    expect(last?.data.content).toEqual([
      { type: 'reasoning', provider: 'openai', data: expect.stringMatching(/^\[REDACTED_ENCRYPTED_CONTENT/) },
    ]);
    const copies = surface.nodes.filter((node) => node.copyOf !== undefined);
    expect(copies.length).toBeGreaterThan(30);
    for (const copy of copies) {
      const original = events[copy.copyOf as number] as LogEvent;
      const copied = events[copy.seq] as LogEvent;
      const text = (event: LogEvent) =>
        (event.data.content as Array<{ type: string; text?: string }>).filter((block) => block.type === 'text');
      expect(text(copied), `#${copy.seq}`).toEqual(text(original));
      if (copy.seq !== replacement.seq)
        expect((await json<{ origins: number[] }>(['origins', ids.codexCompacted, String(copy.seq)])).origins).toEqual([copy.copyOf]);
    }
    const shown = await workspace.run([...store, 'show', ids.codexCompacted, '--surface']);
    expect(shown.stdout).toMatch(/#\d+ assistant {2}\[copy of #\d+\]/);
  });

  it('links sub-sessions in show: the parent names them, and the Task call that spawned one says so', async () => {
    const shown = await workspace.run([...store, 'show', ids.claudeSmall, '--record']);
    expect(shown.stdout).toContain(
      `sub-sessions: ${ids.claudeSmall}.sidechain-6340ddef (spawned by call toolu_014YF9TXhDRR7BnpasNJ7gjC), ${ids.claudeSmall}.sidechain-83e2917c (spawned by call toolu_01LKfUwrsnof18CpWZQcJH44)`,
    );
    expect(shown.stdout).toMatch(/→ calls Task\(.*\) \[toolu_014YF9TXhDRR7BnpasNJ7gjC\], which ran as sub-session .*\.sidechain-6340ddef/);
    const sub = await workspace.run([...store, 'show', `${ids.claudeSmall}.sidechain-6340ddef`]);
    expect(sub.stdout).toContain(`a sub-session of ${ids.claudeSmall}, spawned by its tool call toolu_014YF9TXhDRR7BnpasNJ7gjC`);
    const main = await json<{ subSessions: Array<{ sessionId: string }> }>(['show', ids.claudeMain, '--surface']);
    expect(main.subSessions).toEqual([{ sessionId: ids.claudeSummarizer }]);
  });

  it('replays an imported call as reconstructed, and refuses to call an imported compaction verified', async () => {
    const call = await json<{ verified: boolean; provenance: string; requestDigest: null }>(['replay', ids.claudeMain, '--turn', '1']);
    expect(call).toMatchObject({ verified: false, provenance: 'imported', requestDigest: null });
    const summary = await workspace.run([...store, 'replay', ids.claudeMain, '--compaction', 'dd3cc2e6']);
    expect(summary.code).toBe(1);
    expect(summary.stderr).toMatch(
      /^shadowlog: NO_SUCH_CALL: compaction dd3cc2e6-a191-4331-a0f0-2473e6d7692d \(event #\d+\) was imported from claude-code: .*cannot be byte-verified/,
    );
    expect(summary.stderr).toContain(`sub-session ${ids.claudeSummarizer} holds the summarizer's transcript`);
  });
});

describe('compact on the imported sessions', () => {
  // Each in a store of its own, so that compacting one does not change what the others test.
  const cases = Object.entries(ids).filter(([name]) => name !== 'claudeSummarizer');
  it.each(cases)('compacts %s with the window its calls recorded, and the result verifies', async (name, id) => {
    const own = createCliWorkspace();
    try {
      const file = corpusFile(CORPUS_FILES[name as keyof typeof CORPUS_FILES]);
      expect((await own.run(['import', file])).code).toBe(0);
      const compacted = await own.run(['--json', 'compact', id, '--retain-tokens', '2000']);
      expect(compacted.code, compacted.stderr).toBe(0);
      const outcome = JSON.parse(compacted.stdout) as { status: string; shadowedSeqs: number[] };
      expect(outcome.status).toBe('compacted');
      expect(outcome.shadowedSeqs.length).toBeGreaterThan(0);
      expect((await own.run(['verify', id])).code).toBe(0);
    } finally {
      own.cleanup();
    }
  });
});
