// The journeys of a Codex CLI user and a pi user: the corpus's two Codex rollouts laid out under
// ~/.codex/sessions/YYYY/MM/DD and its pi session under ~/.pi/agent/sessions/--<cwd>--/, each
// harness's directory imported as a user would, then read with show --record, diff across the
// Codex compaction and stats. Each step asserts what a person reads.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { unindented, unreadableLines } from './support/reads-like-a-person.js';

let home: HarnessHome;
let codexOld: LaidOutSession;
let codex: LaidOutSession;
let pi: LaidOutSession;
let codexImport: JourneyResult;
let piImport: JourneyResult;

beforeAll(async () => {
  home = createHarnessHome(['codex', 'pi']);
  codexOld = home.session('codex', '019a93b9');
  codex = home.session('codex', '019c8a59');
  pi = home.session('pi');
  [codexImport, piImport] = await Promise.all([shadowlog(home, ['import', home.roots.codex]), shadowlog(home, ['import', home.roots.pi])]);
});
afterAll(() => home?.cleanup());

function expectReadable(result: JourneyResult, options: { ownLines?: (line: string) => boolean } = {}): void {
  expect({ command: result.command, code: result.code, stderr: result.stderr }).toEqual({ command: result.command, code: 0, stderr: '' });
  expect(unreadableLines(result.stdout, options)).toEqual([]);
}

describe('a Codex CLI user imports ~/.codex/sessions', () => {
  it('imports both rollouts found under the dated directories, and names what it left out by line', () => {
    expectReadable(codexImport);
    expect(codexImport.stdout).toContain(
      `${codexOld.path}: codex (detected: line 1 is a Codex session_meta record (Codex 0.58.0)), 279 lines`,
    );
    expect(codexImport.stdout).toContain(`imported ${codexOld.storeId} into sqlite:`);
    expect(codexImport.stdout).toContain(`imported ${codex.storeId} into sqlite:`);
    expect(codexImport.stdout).toContain('2567 events, 286 model calls');
    expect(codexImport.stdout).toMatch(
      /^ {4}line 1422: content part 2 \(an input_image whose image_url is not a URL\) is not one shadowlog maps; it is left out$/m,
    );
  });

  it('show --record: the rollout without its token counts and turn contexts, counted at the end', async () => {
    const record = await shadowlog(home, ['show', codex.storeId, '--record']);
    expectReadable(record, { ownLines: unindented });
    expect(record.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^1,418 source events hidden: 573 codex\/token-count, 286 codex\/turn-context, .*--all shows them, --type TYPE shows one kind$/,
    );
    expect(record.stdout).toContain('#1628 ── compaction bf0b0f84 imported');
  });

  it('diff across the compaction Codex made mid-turn', async () => {
    const diff = await shadowlog(home, ['diff', codex.storeId, '19.6', '19.7']);
    expectReadable(diff);
    expect(diff.stdout).toContain('call 19.6 (event #1623, imported, openai/gpt-5.3-codex): 506 nodes');
    expect(diff.stdout).toContain('209,950 tokens reported');
    expect(diff.stdout).toContain('48,297 tokens reported');
    expect(diff.stdout).toMatch(/^▤ compacted: #2 … #1619: 505 nodes \(21,162 tokens\) .* by compaction bf0b0f84 \(imported from codex\)/m);
  });

  let stats: JourneyResult;
  it('stats: turns, calls, the cache and the reasoning tokens the rollout reported', async () => {
    stats = await shadowlog(home, ['stats', codex.storeId]);
    expectReadable(stats);
    expect(stats.stdout).toContain(`${codex.storeId}: 2567 events, 38 turns, 286 model calls (0 failed)`);
    expect(stats.stdout).toContain('reasoning: 42113 output tokens');
    expect(stats.stdout).toContain('compactions: 1 (0 failed, 0 open)');
  });

  // Defect, open: the record says what Codex's own summarizer call cost is unknown ("summarized by
  // openai/gpt-5.3-codex in that harness (its cost not recorded)"), and stats prints it as zero:
  // "summarizing cost 0 input and 0 output tokens, 0 ms". Remove `.fails` when stats says it is
  // not recorded.
  it.fails('does not print an unknown summarizer cost as 0 tokens and 0 ms', () => {
    expect(stats.stdout).not.toContain('summarizing cost 0 input and 0 output tokens, 0 ms');
  });
});

describe('a pi user imports ~/.pi/agent/sessions', () => {
  it("imports the session from its project's directory", () => {
    expectReadable(piImport);
    expect(piImport.stdout).toContain(`${pi.path}: pi (detected: line 1 is a pi session header (version 1, no version field)), 1019 lines`);
    expect(piImport.stdout).toContain(`imported ${pi.storeId} into sqlite:`);
    expect(piImport.stdout).toContain('1649 events, 453 model calls');
  });

  it('stats --calls: a dash, not a number, for the calls that failed before any usage', async () => {
    const calls = await shadowlog(home, ['stats', pi.storeId, '--calls']);
    expectReadable(calls);
    expect(calls.stdout).toMatch(/^ {3}1 {5}1 {2}gpt-5\.1-codex +\d+ +– +– {2}\(no anchor yet\)$/m);
    expect(calls.stdout).toContain('431 calls reported their input');
  });

  it('stats: 453 calls, 22 of them failed, and no compaction', async () => {
    const stats = await shadowlog(home, ['stats', pi.storeId]);
    expectReadable(stats);
    expect(stats.stdout).toContain(`${pi.storeId}: 1649 events, 88 turns, 453 model calls (22 failed)`);
    expect(stats.stdout).toContain('compactions: 0 (0 failed, 0 open)');
  });

  it('show: the surface, with every failed call marked and no placeholder', async () => {
    const record = await shadowlog(home, ['show', pi.storeId, '--record', '--type', 'model/error']);
    expectReadable(record, { ownLines: unindented });
    expect(record.stdout).toContain('#5 !! model error, turn 1 step 1: aborted: Request was aborted');
    expect(record.stdout.match(/^#\d+ !! model error/gm)).toHaveLength(22);
  });
});
