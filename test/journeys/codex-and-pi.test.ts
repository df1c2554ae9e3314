// The journeys of a Codex CLI user and a pi user: the corpus's two Codex rollouts laid out under
// ~/.codex/sessions/YYYY/MM/DD and its pi session under ~/.pi/agent/sessions/--<cwd>--/, each
// harness's directory imported as a user would, then read with show --record, diff across the
// Codex compaction and stats. Each step asserts what a person reads.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { countsThatDisagree, numbersWithoutSeparators, unindented, unreadableLines } from './support/reads-like-a-person.js';

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
    expect(codexImport.stdout).toContain(
      '2,566 events, 286 model calls, 1 compaction mapped, 1,418 lines kept as foreign events, 17 parts not mapped',
    );
    expect(codexImport.stdout).toMatch(
      /^ {4}line 1422: content part 2 \(an input_image whose image_url is not a URL\) is not one shadowlog maps; it is left out$/m,
    );
    // Line 1788 held four such images: one line, counted, not the same line four times.
    const leftOut = codexImport.stdout.split('\n').filter((line) => line.startsWith('    line '));
    expect(leftOut).toHaveLength(14);
    expect(new Set(leftOut).size).toBe(14);
    expect(codexImport.stdout).toMatch(
      /^ {4}line 1788: content part 2 \(an input_image whose image_url is not a URL\) is not one shadowlog maps; it is left out \(4 times\)$/m,
    );
  });

  it('show --record: the rollout without its token counts and turn contexts, counted at the end', async () => {
    const record = await shadowlog(home, ['show', codex.storeId, '--record']);
    expectReadable(record, { ownLines: unindented });
    expect(record.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^1,418 source events hidden: 573 codex\/token-count, 286 codex\/turn-context, .*--all shows them, --type TYPE shows one kind$/,
    );
    expect(record.stdout).toContain('#1628 ── compaction bf0b0f84 imported (trigger: pressure, not recorded by the source, turn 19)');
    expect(record.stdout).toContain(
      "#1629 ── compaction bf0b0f84 imported from codex: 507 nodes (21,226 tokens by shadowlog's meter) → 1,066 tokens; summarized by openai/gpt-5.3-codex in that harness (its cost not recorded)",
    );
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
    expect(stats.stdout).toContain(`${codex.storeId}: 2,566 events, 38 turns, 286 model calls (0 failed)`);
    expect(stats.stdout).toContain('window 258,400 (recorded: the source states 258,400 for gpt-5.3-codex)');
    expect(stats.stdout).toContain(
      'prompt cache: 93.5 % of the input read from the cache (31,621,504 of 33,810,485 tokens, in the calls that reported it), 0 written',
    );
    expect(stats.stdout).toContain('reasoning: 42,113 output tokens');
    expect(stats.stdout).toContain("compactions: 1 (0 failed, 0 open, 1 of them the source harness's, mapped on import), prunes: 0");
    expect(stats.stdout).toContain('shadowed 21,226 tokens, replaced by 1,066 (20,160 fewer on the surface)');
    expect(numbersWithoutSeparators(stats.stdout)).toEqual([]);
    expect(countsThatDisagree(stats.stdout)).toEqual([]);
  });

  // The record says Codex's own summarizer call cost is unknown ("its cost not recorded").
  it('does not print an unknown summarizer cost as 0 tokens and 0 ms', () => {
    expect(stats.stdout).not.toContain('summarizing cost 0 input');
    expect(stats.stdout).toContain('summarizing cost: not recorded (the source harness summarized, and did not record what that cost)');
  });
});

describe('a pi user imports ~/.pi/agent/sessions', () => {
  it("imports the session from its project's directory", () => {
    expectReadable(piImport);
    expect(piImport.stdout).toContain(
      `${pi.path}: pi (detected: line 1 is a pi session header (version 1, no version field)), 1,019 lines`,
    );
    expect(piImport.stdout).toContain(`imported ${pi.storeId} into sqlite:`);
    expect(piImport.stdout).toContain('1,648 events, 453 model calls, 0 compactions mapped, 105 lines kept as foreign events');
  });

  it('stats --calls: a dash, not a number, for the calls that failed before any usage', async () => {
    const calls = await shadowlog(home, ['stats', pi.storeId, '--calls']);
    expectReadable(calls);
    expect(calls.stdout).toMatch(/^ {3}1 {5}1 {2}gpt-5\.1-codex +\d+ +– +– +– {2}\(no anchor yet\)$/m);
    expect(calls.stdout).toContain('431 calls reported their input');
    expect(calls.stdout).toMatch(/^cost: \$\d+\.\d\d for 431 priced calls$/m);
  });

  it('stats: 453 calls, 22 of them failed, and no compaction', async () => {
    const stats = await shadowlog(home, ['stats', pi.storeId]);
    expectReadable(stats);
    expect(stats.stdout).toContain(`${pi.storeId}: 1,648 events, 88 turns, 453 model calls (22 failed)`);
    expect(stats.stdout).toContain('compactions: 0 (0 failed, 0 open), prunes: 0');
    expect(stats.stdout).toContain('22 calls reported no usage (failed, or the source kept none)');
    // No compaction, so nothing to say of what summarizing cost.
    expect(stats.stdout).not.toContain('summarizing cost');
    expect(numbersWithoutSeparators(stats.stdout)).toEqual([]);
  });

  it('show: the surface, with every failed call marked and no placeholder', async () => {
    const record = await shadowlog(home, ['show', pi.storeId, '--record', '--type', 'model/error']);
    expectReadable(record, { ownLines: unindented });
    expect(record.stdout).toContain('#5 !! model error, turn 1 step 1: aborted: Request was aborted');
    expect(record.stdout.match(/^#\d+ !! model error/gm)).toHaveLength(22);
  });
});
