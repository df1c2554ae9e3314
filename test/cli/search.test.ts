// `shadowlog search` on the real sessions of the corpus imported into one SQLite store (issue 26,
// item 3): a path is found with its session and seq, a hit before the Claude Code session's
// compaction is a shadowed original (and the surface agrees), the summary that shadows it is on
// the surface; --type, --session, --regex and --json; a bad regex or kind is a usage error.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const CLAUDE = 'claude-code-4d5611e5-241a-462a-8d15-5122611a9569';
const PI = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

interface JsonHit {
  sessionId: string;
  seq: number;
  type: string;
  kind: string;
  turn?: number;
  step?: number;
  place: string;
  shadowedBy?: number;
  snippet: string;
}

describe('shadowlog search on the imported corpus', () => {
  const workspace = createCliWorkspace();
  const store = ['--store', `sqlite:${workspace.cwd}/store.db`];
  const search = (...args: string[]) => workspace.run([...store, 'search', ...args]);
  const searchJson = async (...args: string[]) => {
    const result = await workspace.run([...store, '--json', 'search', ...args]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { hits: JsonHit[]; truncated: boolean; method: string };
  };

  beforeAll(async () => {
    const files = [CORPUS_FILES.claudeMain, CORPUS_FILES.pi, CORPUS_FILES.codexCompacted].map(corpusFile);
    const imported = await workspace.run([...store, 'import', ...files]);
    expect(imported.code, imported.stderr).toBe(0);
  }, 120_000);
  afterAll(() => workspace.cleanup());

  it('finds a path the pi session read and edited, with its session, seq, turn and step, from the index', async () => {
    const found = await searchJson('packages/coding-agent/src/main.ts', '--type', 'tool-call,tool-result');
    expect(found.method).toBe('index');
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.hits.every((hit) => hit.sessionId === PI)).toBe(true);
    const edit = found.hits.find((hit) => hit.kind === 'tool-result' && hit.snippet.startsWith('Successfully replaced text in'));
    expect(edit).toMatchObject({ sessionId: PI, seq: 1234, type: 'tool/result', turn: 63, step: 6, place: 'surface' });
    const text = await search('packages/coding-agent/src/main.ts', '--session', PI, '--limit', '3');
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(PI);
    expect(lines[1]).toMatch(
      /^ {2}#\d+ {2}turn \d+ step \d+ {2}(tool-call|tool-result) \((assistant\/message|tool\/result)\) {2}on the surface$/,
    );
    expect(lines.at(-1)).toMatch(/^3 hits in 1 session; more exist: --limit 12 shows more/);
  }, 30_000);

  it('marks a hit before the Claude Code compaction as a shadowed original, as the surface has it, and the summary as on the surface', async () => {
    const found = await searchJson('bd show spotter-dov', '--session', CLAUDE, '--limit', '200');
    const first = found.hits[0];
    expect(first).toMatchObject({ sessionId: CLAUDE, seq: 8, type: 'user/message', kind: 'message', turn: 1, place: 'shadowed' });
    const summarySeq = first?.shadowedBy as number;
    const surface = await workspace.run([...store, '--json', 'show', CLAUDE, '--surface']);
    const nodes = (JSON.parse(surface.stdout) as { nodes: { seq: number }[] }).nodes.map((node) => node.seq);
    expect(nodes).toContain(summarySeq);
    for (const hit of found.hits) {
      if (hit.place === 'shadowed') expect(nodes).not.toContain(hit.seq);
      if (hit.place === 'surface') expect(nodes).toContain(hit.seq);
    }
    const summaries = await searchJson('summary', '--type', 'summary', '--session', CLAUDE);
    expect(summaries.hits.map((hit) => [hit.seq, hit.place])).toEqual([[summarySeq, 'surface']]);
  }, 30_000);

  it('finds an error by a regular expression (a scan), and lines the import kept whole as log-only hits', async () => {
    const found = await searchJson('Error: Invalid hex color: #[0-9a-f]+', '--regex');
    expect(found.method).toBe('scan');
    expect(found.hits[0]).toMatchObject({ sessionId: PI, kind: 'message', place: 'surface' });
    const foreign = await searchJson('File does not exist', '--type', 'other', '--session', CLAUDE, '--limit', '1');
    expect(foreign.hits[0]).toMatchObject({ type: 'claude-code/progress', place: 'log-only' });
  }, 30_000);

  it('says so when nothing matches, and refuses a bad regex or kind as usage errors', async () => {
    const none = await search('no such text anywhere 7f3a');
    expect(none).toMatchObject({ code: 0, stdout: 'no hits for "no such text anywhere 7f3a"\n' });
    const regex = await search('[unclosed', '--regex');
    expect(regex.code).toBe(2);
    expect(regex.stderr).toMatch(/^shadowlog: INVALID_SEARCH_QUERY: search regex: expected a JavaScript regular expression/);
    const kind = await search('x', '--type', 'tool-calls');
    expect(kind.code).toBe(2);
    expect(kind.stderr).toMatch(
      /--type: expected one or more of message, reasoning, tool-call, tool-result, summary, error, other, found tool-calls/,
    );
  }, 30_000);
});
