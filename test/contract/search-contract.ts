// The search suite every store runs (SearchableStore): the same events appended to each store
// give the same hits, in append order, with the same session, seq, turn and step, kind, place
// (on the surface, shadowed, log-only) and snippet; and the same refusals of a bad query.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import type { LogStore } from '../../src/store/log-store.js';
import { scanSearch } from '../../src/store/search/scan-search.js';
import { type SearchableStore, SearchQueryError } from '../../src/store/search/search-query.js';
import { drafts, sealLog, text } from '../support/events.js';

export interface SearchHarness {
  readonly store: LogStore & SearchableStore;
  cleanup(): Promise<void>;
}

const DIGEST = 'a'.repeat(64);

function modelRequest(turn: number, step: number, surfaceSeqs: number[]): EventDraft {
  return {
    type: 'model/request',
    data: {
      turn,
      step,
      provider: 'scripted',
      model: 'scripted',
      params: {},
      surfaceSeqs,
      requestDigest: DIGEST,
      estimatedTokens: 1,
      rendererVersion: '1',
    },
  };
}

function assistantCall(value: string, callId: string, path: string): EventDraft {
  return {
    type: 'assistant/message',
    data: { content: text(value), toolCalls: [{ callId, name: 'read_file', arguments: { path, lines: 40 } }], model: 'scripted' },
    surfaceOp: 'append',
  };
}

/** A session that reads src/csv.ts, fails on it, then compacts the first turn into a summary. */
export function compactedSession(): LogEvent[] {
  return sealLog([
    drafts.start(), // 0
    drafts.system(), // 1
    drafts.turnStart(1), // 2
    drafts.user('Fix the CSV parser.'), // 3
    modelRequest(1, 1, [1, 3]), // 4
    assistantCall('Reading the parser.', 'call-1', 'src/csv.ts'), // 5
    drafts.toolResult('call-1', 'Error: ENOENT: no such file\x1b[31m, open src/csv.ts\nline two'), // 6
    modelRequest(1, 2, [1, 3, 5, 6]), // 7
    drafts.assistant('The file src/csv.ts is missing.'), // 8
    drafts.summary(
      'Earlier context was compacted. <compacted-summary>Looked for src/csv.ts; it was missing.</compacted-summary>',
      3,
      8,
      [3, 5, 6, 8],
    ), // 9
    drafts.turnStart(2), // 10
    drafts.user('Now create it.'), // 11
  ]);
}

/** A short second session that mentions the same path. */
function otherSession(): LogEvent[] {
  return sealLog([drafts.start(), drafts.system(), drafts.turnStart(1), drafts.user('Where is SRC/CSV.TS used?')]);
}

/** A format-2 session holding another harness's line. */
function foreignSession(): LogEvent[] {
  const line = JSON.stringify({ type: 'progress', uuid: 'u-1', data: { type: 'bash_progress', output: 'grep src/csv.ts: 3 matches' } });
  return sealLog([drafts.startV2(), { type: 'claude-code/progress', data: { text: line, line: 7 }, ignorable: true }]);
}

async function* batchesOf(events: readonly LogEvent[], size: number): AsyncIterable<readonly LogEvent[]> {
  for (let at = 0; at < events.length; at += size) yield events.slice(at, at + size);
}

export function describeSearchContract(name: string, createHarness: () => Promise<SearchHarness>): void {
  describe(`search contract: ${name}`, () => {
    let harness: SearchHarness;
    let store: LogStore & SearchableStore;

    beforeEach(async () => {
      harness = await createHarness();
      store = harness.store;
      const compacted = compactedSession();
      // Appended as a writer does, a batch at a time (one event and several), then the others by appendAll as an import does.
      let seq = 0;
      for (const size of [1, 1, 3, 1, 2, 2, 2]) {
        await store.append('s-compacted', compacted.slice(seq, seq + size), { expectedSeq: seq });
        seq += size;
      }
      await store.appendAll('s-other', batchesOf(otherSession(), 3), { expectedSeq: 0 });
      await store.appendAll('s-foreign', batchesOf(foreignSession(), 1), { expectedSeq: 0 });
    });
    afterEach(async () => {
      await harness.cleanup();
    });

    it('finds a path in every kind of text, case-insensitively, in append order, each hit placed and with its turn and step', async () => {
      const result = await store.search({ text: 'src/csv.ts' });
      expect(result.truncated).toBe(false);
      const brief = result.hits.map(({ sessionId, seq, type, kind, turn, step, place, shadowedBy }) => ({
        sessionId,
        seq,
        type,
        kind,
        turn,
        step,
        place,
        shadowedBy,
      }));
      expect(brief).toEqual([
        {
          sessionId: 's-compacted',
          seq: 5,
          type: 'assistant/message',
          kind: 'tool-call',
          turn: 1,
          step: 1,
          place: 'shadowed',
          shadowedBy: 9,
        },
        { sessionId: 's-compacted', seq: 6, type: 'tool/result', kind: 'tool-result', turn: 1, step: 1, place: 'shadowed', shadowedBy: 9 },
        {
          sessionId: 's-compacted',
          seq: 8,
          type: 'assistant/message',
          kind: 'message',
          turn: 1,
          step: 2,
          place: 'shadowed',
          shadowedBy: 9,
        },
        {
          sessionId: 's-compacted',
          seq: 9,
          type: 'user/message',
          kind: 'summary',
          turn: 1,
          step: 2,
          place: 'surface',
          shadowedBy: undefined,
        },
        {
          sessionId: 's-other',
          seq: 3,
          type: 'user/message',
          kind: 'message',
          turn: 1,
          step: undefined,
          place: 'surface',
          shadowedBy: undefined,
        },
        {
          sessionId: 's-foreign',
          seq: 1,
          type: 'claude-code/progress',
          kind: 'other',
          turn: undefined,
          step: undefined,
          place: 'log-only',
          shadowedBy: undefined,
        },
      ]);
      expect(result.hits[0]?.snippet).toBe('read_file lines=40 path=src/csv.ts');
      expect(result.hits[4]?.snippet).toBe('Where is SRC/CSV.TS used?');
      const other = result.hits[4];
      expect(other?.snippet.slice(other.matchStart, other.matchStart + other.matchLength)).toBe('SRC/CSV.TS');
    });

    it('makes control characters and line breaks spaces in a snippet, and cuts a long text around the match', async () => {
      const [hit] = (await store.search({ text: 'ENOENT' })).hits;
      expect(hit?.snippet).toBe('Error: ENOENT: no such file [31m, open src/csv.ts line two');
      const long = sealLog([drafts.start(), drafts.user(`${'a '.repeat(100)}needle${' b'.repeat(100)}`)]);
      await store.append('s-long', long, { expectedSeq: 0 });
      const [cut] = (await store.search({ text: 'needle' })).hits;
      expect(cut?.snippet).toMatch(/^… ?(a ){25,}needle( b){25,} ?…$/);
      expect(cut?.snippet.slice(cut.matchStart, cut.matchStart + cut.matchLength)).toBe('needle');
    });

    it('narrows to one session, to kinds, and to a limit, saying when more hits exist', async () => {
      const one = await store.search({ text: 'src/csv.ts', sessionId: 's-other' });
      expect(one.hits.map((hit) => [hit.sessionId, hit.seq])).toEqual([['s-other', 3]]);
      const kinds = await store.search({ text: 'csv.ts', kinds: ['tool-result', 'summary'] });
      expect(kinds.hits.map((hit) => [hit.seq, hit.kind])).toEqual([
        [6, 'tool-result'],
        [9, 'summary'],
      ]);
      const limited = await store.search({ text: 'csv', limit: 2 });
      expect(limited.hits.map((hit) => hit.seq)).toEqual([3, 5]);
      expect(limited.truncated).toBe(true);
      const exact = await store.search({ text: 'csv', limit: 7 });
      expect(exact.hits).toHaveLength(7);
      expect(exact.truncated).toBe(false);
      expect(await store.search({ text: 'nothing like this' })).toMatchObject({ hits: [], truncated: false });
      expect((await store.search({ text: 'csv', sessionId: 'no-such-session' })).hits).toEqual([]);
    });

    it('finds the same hits by a regular expression and by text under three characters (both by a scan), and by the generic scan', async () => {
      const regex = await store.search({ text: 'ENOENT|missing\\.', regex: true });
      expect(regex.method).toBe('scan');
      expect(regex.hits.map((hit) => [hit.sessionId, hit.seq, hit.kind])).toEqual([
        ['s-compacted', 6, 'tool-result'],
        ['s-compacted', 8, 'message'],
        ['s-compacted', 9, 'summary'],
      ]);
      // Case-sensitive as written: SRC/CSV.TS is not src/csv\.ts.
      expect((await store.search({ text: 'src/csv\\.ts', regex: true, sessionId: 's-other' })).hits).toEqual([]);
      const short = await store.search({ text: 'ts', kinds: ['tool-call'] });
      expect(short.method).toBe('scan');
      expect(short.hits.map((hit) => hit.seq)).toEqual([5]);
      // A session's own hits are the same whichever way they are found.
      const scanned = await scanSearch(store, { text: 'src/csv.ts', sessionId: 's-compacted' });
      expect(scanned.hits).toEqual((await store.search({ text: 'src/csv.ts', sessionId: 's-compacted' })).hits);
    });

    it('refuses a bad query with a typed error that says what was expected', async () => {
      const bad = await store.search({ text: '(unclosed', regex: true }).catch((error: unknown) => error);
      expect(SearchQueryError.isInstance(bad)).toBe(true);
      expect(bad).toMatchObject({ code: 'INVALID_SEARCH_QUERY', field: 'regex' });
      expect((bad as Error).message).toMatch(/expected a JavaScript regular expression.*\(unclosed/);
      await expect(store.search({ text: '' })).rejects.toMatchObject({ code: 'INVALID_SEARCH_QUERY', field: 'text' });
      await expect(store.search({ text: 'csv', limit: 0 })).rejects.toMatchObject({ code: 'INVALID_SEARCH_QUERY', field: 'limit' });
      await expect(store.search({ text: 'csv', kinds: ['tool-calls' as 'tool-call'] })).rejects.toMatchObject({ field: 'type' });
      await expect(store.search({ text: 'csv', sessionId: '../etc' })).rejects.toMatchObject({ code: 'INVALID_SESSION_ID' });
    });
  });
}
