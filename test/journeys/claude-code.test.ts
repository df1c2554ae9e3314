// A Claude Code user's journey, end to end through the command as they run it: the corpus's two
// Claude Code sessions (one with a sub-agent that wrote its automatic compaction) laid out under
// ~/.claude/projects, imported by directory, then read with sessions, show, show --record, diff,
// stats, replay, view and tune. Each step asserts what a person reads: the figures the source
// holds, no placeholder where a number exists, no negative count, no stack trace.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallRow, type CallSummary, decodeCallRow } from '../../src/view/client/page-blocks.js';
import { HAS_CHROMIUM, launchChromium, watchedPage } from '../view/browser.js';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { countsThatDisagree, numbersWithoutSeparators, unindented, unreadableLines } from './support/reads-like-a-person.js';

let home: HarnessHome;
let main: LaidOutSession;
let small: LaidOutSession;
let imported: JourneyResult;
// Outputs kept for the checks that read several of them (the counts' nouns, at the end).
const seen = new Map<string, JourneyResult>();

beforeAll(async () => {
  home = createHarnessHome(['claude-code']);
  main = home.session('claude-code', '4d5611e5');
  small = home.session('claude-code', '5c0375b4');
  imported = await shadowlog(home, ['import', home.roots['claude-code']]);
});
afterAll(() => home?.cleanup());

/** The page's text as rendered in chromium, and what went wrong while it rendered. */
async function pageAsSeen(file: string): Promise<{ text: string; errors: string[] }> {
  const browser = await launchChromium();
  try {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(`file://${file}`);
    await page.locator('text=call 1.1').first().waitFor();
    // innerText, not textContent: the lines as laid out, which is what the checks read.
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered lines are the point
    const text = await page.evaluate(() => document.body.innerText);
    return { text, errors: incidents.errors };
  } finally {
    await browser.close();
  }
}

/** A command that should succeed: exit 0, nothing on stderr, and output a person can read. */
function expectReadable(result: JourneyResult, options: { ownLines?: (line: string) => boolean } = {}): void {
  expect({ command: result.command, code: result.code, stderr: result.stderr }).toEqual({ command: result.command, code: 0, stderr: '' });
  expect(unreadableLines(result.stdout, options)).toEqual([]);
}

describe('a Claude Code user imports ~/.claude/projects', () => {
  it('imports every session of every project, the sub-agent as a linked sub-session', () => {
    expectReadable(imported);
    const out = imported.stdout;
    expect(out).toContain(
      `${main.path}: claude-code (detected: line 1 is a Claude Code file-history-snapshot record), 1,512 lines, 3,158,801 bytes`,
    );
    expect(out).toContain(`imported ${main.storeId} into sqlite:`);
    expect(out).toContain(
      '1,544 events, 139 model calls, 1 compaction mapped, 1,103 lines kept as foreign events, 0 parts not mapped; hash chain and surface verified',
    );
    expect(out).toContain('8 events, 1 model call, 0 compactions mapped, 0 lines kept as foreign events, 0 parts not mapped');
    expect(out).toContain(`imported ${main.storeId}.agent-acompact-e1f845 (a sub-session of ${main.storeId})`);
    expect(out).toContain(`imported ${small.storeId} into sqlite:`);
    expect(out.match(/hash chain and surface verified/g)).toHaveLength(5);
  });

  it('imports nothing the second time, and says so', async () => {
    const again = await shadowlog(home, ['import', home.roots['claude-code']]);
    expectReadable(again);
    expect(again.stdout).toContain(`  unchanged: ${main.storeId} is already in sqlite:`);
    expect(again.stdout.match(/; nothing written$/gm)).toHaveLength(5);
    expect(again.stdout).not.toMatch(/^ {2}imported /m);
  });

  it('lists the sessions with their sub-sessions under them, their calls, compactions and cost', async () => {
    const sessions = await shadowlog(home, ['sessions']);
    expectReadable(sessions);
    const rows = sessions.stdout.trimEnd().split('\n');
    expect(rows.map((row) => /^( {2}└ )?\S+/.exec(row)?.[0])).toEqual([
      'SESSION',
      main.storeId,
      `  └ ${main.storeId}.agent-acompact-e1f845`,
      small.storeId,
      `  └ ${small.storeId}.sidechain-83e2917c`,
      `  └ ${small.storeId}.sidechain-6340ddef`,
    ]);
    expect(rows[1]).toMatch(new RegExp(`^${main.storeId} +claude-code +139 +1 +12\\.1M +\\$9\\.53 +2026-02-12 21:03 `));
    // The sub-session's longer, indented name does not push its row out of the columns.
    expect(new Set(rows.map((row) => row.search(/ {2}(SOURCE|claude-code) {2}/))).size).toBe(1);
  });
});

describe('reading the session', () => {
  it('show: the surface after the compaction opens with its summary, standing for the originals', async () => {
    const show = await shadowlog(home, ['show', main.storeId]);
    expectReadable(show, { ownLines: unindented });
    const lines = show.stdout.split('\n');
    expect(lines[0]).toBe(`surface of ${main.storeId} after event #1543: 161 nodes, what the model is shown`);
    expect(lines[1]).toBe(`sub-sessions: ${main.storeId}.agent-acompact-e1f845; \`shadowlog show ID\` shows one`);
    expect(lines[2]).toMatch(/^#761 user {2}\[REPLACEMENT: replaces #8–#758 /);
    expect(lines[3]).toContain('This session is being continued from a previous conversation that ran out of context.');
  });

  it('show --record: every event but the source noise, which it counts at the end', async () => {
    const record = await shadowlog(home, ['show', main.storeId, '--record']);
    seen.set('record', record);
    expectReadable(record, { ownLines: unindented });
    const lines = record.stdout.trimEnd().split('\n');
    // 1,544 events, 1,103 of them hidden: 441 shown, each once.
    expect(new Set(lines.flatMap((line) => /^#(\d+) /.exec(line)?.[1] ?? [])).size).toBe(441);
    expect(lines.at(-1)).toBe(
      "1,103 source events hidden: 1,083 claude-code/progress, 14 claude-code/file-history-snapshot, 3 claude-code/system-stop-hook-summary, 2 claude-code/system-turn-duration, 1 claude-code/queue-operation (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind",
    );
    expect(record.stdout).not.toMatch(/^#\d+ .*claude-code\/progress/m);
    expect(record.stdout).toContain('#8 user  [shadowed by #761]');
    // An answer whose first text part is only "\n\n" opens with its text, not with blank lines.
    expect(lines[lines.indexOf('#10 assistant  [shadowed by #761]') + 1]).toMatch(/^ {4}\[reasoning by anthropic\] Let me start/);
    expect(lines.filter((line, index) => /^#\d+ /.test(line) && lines[index + 1]?.trim() === '')).toEqual([]);
    // The compaction as imported, its figures written as the rest of the output writes them.
    expect(record.stdout).toContain(
      "#760 ── compaction dd3cc2e6 imported from claude-code: 132 nodes (118,298 tokens by shadowlog's meter) → 3,591 tokens; the source counted 170,251 tokens before it; summarized by anthropic/claude-opus-4-6 in that harness (173,514 in / 8 out tokens)",
    );
  });

  it('diff across the automatic compaction: what it replaced, by how many tokens, and what the provider reported', async () => {
    const diff = await shadowlog(home, ['diff', main.storeId, '2.43', '2.44']);
    expectReadable(diff);
    const lines = diff.stdout.trimEnd().split('\n');
    expect(lines[1]).toContain('call 2.43 (event #747, imported, anthropic/claude-opus-4-6): 130 nodes, 113,248 tokens on the surface');
    expect(lines[1]).toContain('164,831 tokens reported');
    expect(lines[2]).toContain('call 2.44 (event #767, imported, anthropic/claude-opus-4-6): 1 node, 3,591 tokens on the surface');
    expect(lines[2]).toContain('36,081 tokens reported');
    expect(diff.stdout).toMatch(
      /^▤ compacted: #8 … #746: 130 nodes \(113,248 tokens\) .* → #761 user \(3,591 tokens\), by compaction dd3cc2e6 \(imported from claude-code\), its summary #760$/m,
    );
    expect(lines.at(-1)).toBe('tokens on the surface: 113,248 → 3,591 (−109,657): 113,248 replaced by 3,591');
  });

  it('stats: its calls, its cache and its one compaction', async () => {
    const stats = await shadowlog(home, ['stats', main.storeId]);
    expectReadable(stats);
    const lines = stats.stdout.split('\n');
    expect(lines[0]).toBe(`${main.storeId}: 1,544 events, 3 turns, 139 model calls (0 failed)`);
    expect(lines[1]).toBe(
      "window 200,000 (the harness's compactions: claude-opus-4-6 compacted at 170,251 tokens, and Claude Code compacts at W − 33,000)",
    );
    expect(stats.stdout).toContain(
      'prompt cache: 96.0 % of the input read from the cache (11,618,567 of 12,098,281 tokens, in the calls that reported it), 479,537 written',
    );
    expect(stats.stdout).toContain("compactions: 1 (0 failed, 0 open, 1 of them the source harness's, mapped on import), prunes: 0");
    expect(stats.stdout).toContain('shadowed 118,298 tokens, replaced by 3,591 (114,707 fewer on the surface)');
    // Its summarizer's tokens are in the record (the sub-agent's transcript); its time is not.
    expect(stats.stdout).toContain('summarizing cost 173,514 input and 8 output tokens, time not recorded');
    expect(numbersWithoutSeparators(stats.stdout)).toEqual([]);
    expect(countsThatDisagree(stats.stdout)).toEqual([]);
  });

  it('stats --calls: every call with the input its provider reported, and the meter within a few percent', async () => {
    const calls = await shadowlog(home, ['stats', main.storeId, '--calls']);
    expectReadable(calls);
    const rows = calls.stdout.split('\n').filter((line) => /^\s+\d+\s+\d+\s+claude-/.test(line));
    expect(rows).toHaveLength(139);
    for (const row of rows) expect(row).toMatch(/^\s+\d+\s+\d+\s+claude-opus-4-6\s+\d+\s+\d+\s+[-+]?\d+\.\d %/);
    expect(calls.stdout).toMatch(/median \|error\| \d\.\d %/);
  });
});

describe('replaying a call another harness made', () => {
  it('shows the reconstructed request and says why it is not byte-verified', async () => {
    const replay = await shadowlog(home, ['replay', main.storeId, '--turn', '2', '--step', '44']);
    seen.set('replay', replay);
    expectReadable(replay, { ownLines: (line) => !line.startsWith('  ') });
    expect(replay.stdout).toMatch(/^turn 2, step 44 \(event #767\): anthropic\/claude-opus-4-6$/m);
    expect(replay.stdout).toContain('reconstructed from an import, not byte-verified');
    expect(replay.stdout).toMatch(/^the model was shown 1 message:$/m);
  });

  it('refuses --wire with the reason and what to do instead', async () => {
    const wire = await shadowlog(home, ['replay', main.storeId, '--turn', '1', '--wire']);
    expect(wire.code).toBe(2);
    expect(wire.stdout).toBe('');
    expect(wire.stderr).toBe(
      "shadowlog: USAGE: --wire prints the bytes a call sent, and turn 1 step 1 was imported from another harness's files: no bytes of it went through shadowlog. Leave out --wire to see the reconstructed request\n",
    );
  });
});

describe('the audit page, written offline', () => {
  let page: JourneyResult;
  let data: { session: { calls: CallSummary[] }; window: unknown };
  // What a person sees of the page in a browser (where chromium is installed; CI installs it).
  let seen = { text: '', errors: [] as string[] };
  beforeAll(async () => {
    page = await shadowlog(home, ['view', main.storeId, '--out', 'page.html']);
    const html = readFileSync(join(home.cwd, 'page.html'), 'utf8');
    const block = /<script type="application\/json" id="shadowlog-data">([\s\S]*?)<\/script>/.exec(html);
    // The page's first document holds each call as a compact row (its details are loaded by block).
    const parsed = JSON.parse(block?.[1] ?? 'null') as { session: { calls: CallRow[] }; window: unknown };
    data = { session: { calls: parsed.session.calls.map(decodeCallRow) }, window: parsed.window };
    if (HAS_CHROMIUM) seen = await pageAsSeen(join(home.cwd, 'page.html'));
    // Two processes (the command, then the browser) on a machine that may be busy.
  }, 90_000);

  it('says what it wrote, with every count a number', () => {
    expectReadable(page);
    expect(page.stdout).toMatch(
      new RegExp(
        `^wrote page\\.html: ${main.storeId}, 1,544 events, 139 model calls \\(0 digest-verified, 139 imported with no bytes to check, 0 failed\\), \\d{1,3}(,\\d{3})* bytes\\n$`,
      ),
    );
  });

  it("holds every call with its provider's usage and a window", () => {
    expect(data.session.calls).toHaveLength(139);
    for (const call of data.session.calls) {
      expect(call.inputTokens).toEqual(expect.any(Number));
      expect(call.contextWindow).toEqual(expect.any(Number));
    }
  });

  it('gives every call a number of tokens, as stats --calls does', () => {
    // The page's estimate of an imported call is the calibrated meter's, as stats --calls computes it.
    const unestimated = data.session.calls.filter((call) => !call.metered || typeof call.estimate !== 'number');
    expect(unestimated.map((call) => `${call.turn}.${call.step}`)).toEqual([]);
    expect(data.session.calls[1]?.estimate).toBe(28_020);
  });

  it.runIf(HAS_CHROMIUM)('opens in a browser without an error, headed by the counts the command printed', () => {
    expect(seen.errors).toEqual([]);
    expect(seen.text).toContain(
      '1,544 events · 139 model calls (0 digest-verified, 139 imported with no bytes to check, 0 failed) · 1 compaction (0 failed, 0 open locks) · 0 prunes',
    );
    expect(seen.text).toContain(
      "window 200,000 tokens: from the harness's own compactions: claude-opus-4-6 compacted at 170,251 tokens, and Claude Code compacts at W − 33,000",
    );
  });

  it.runIf(HAS_CHROMIUM)('shows no "?" where a number belongs, and counts that agree with their nouns', () => {
    expect(countsThatDisagree(seen.text)).toEqual([]);
    expect(unreadableLines(seen.text)).toEqual([]);
  });

  it("names the window the session ran in, and why: Claude Code's own compaction at 170,251 tokens", () => {
    expect(data.window).toMatchObject({ tokens: 200_000, rule: expect.stringContaining('compacted at 170,251 tokens') });
  });

  // The importer records the model table's 1,000,000 for claude-opus-4-6; the page draws each call
  // in the window the library resolves (the session's own compaction), as its heading names it.
  it('draws each call against the 200,000-token window the session ran in (its own compaction at 170,251 shows it)', () => {
    expect(new Set(data.session.calls.map((call) => call.contextWindow))).toEqual(new Set([200_000]));
  });
});

describe('tune on ~/.claude/projects', () => {
  let tune: JourneyResult;
  beforeAll(async () => {
    tune = await shadowlog(home, ['tune', home.roots['claude-code']]);
    seen.set('tune', tune);
  });

  it('replays every session under every policy and prints a table a person can read', () => {
    expectReadable(tune);
    expect(tune.stdout).toMatch(/^5 sessions, 160 model calls; prices of \d{4}-\d{2}-\d{2}; script-aware estimates$/m);
    for (const policy of ['defaults', 'pi', 'claude-code', 'codex', 'opencode', 'drop-oldest', 'none'])
      expect(tune.stdout).toMatch(new RegExp(`^${policy} `, 'm'));
    expect(tune.stdout).toMatch(/^recommendation: /m);
  });

  it('measures in the 200,000-token window Claude Code ran the session in, and says why', () => {
    const lines = tune.stdout.split('\n');
    expect(lines[1]).toBe('window 200,000 tokens in 5 sessions:');
    // The session that compacted shows its window by its compaction at 170,251 tokens.
    expect(lines[2]).toBe(
      "  1 session by the harness's compactions: claude-opus-4-6 compacted at 170,251 tokens, and Claude Code compacts at W −",
    );
    expect(tune.stdout).toContain("4 sessions by the client's default (guessed): Claude Code runs claude-opus-4-6 in 200,000");
    expect(tune.stdout).toMatch(/^warning: 4 of 5 sessions ran in a guessed window: nothing in them shows it\./m);
    // In that window the policies fit it: the defaults (0.7 of the window) with the pruner alone, no compaction, so no
    // held-after share; Claude Code's own policy compacts (retention, then the share of what the next calls use held
    // after each compaction); and the session overflows it with none.
    expect(tune.stdout).toMatch(/^defaults +[\d,]+ +[\d.]+× +\$[\d.]+ +[\d.]+ % +– +0 +0$/m);
    expect(tune.stdout).toMatch(/^claude-code +[\d,]+ +[\d.]+× +\$[\d.]+ +[\d.]+ % +[\d.]+ % +[1-9]\d* +0$/m);
    expect(tune.stdout).toMatch(/^none +over the window from call \d+ of /m);
  });
});

// (It reads the outputs of the journeys above, so it runs last.)
it('says "1 call", "1 compaction", "1 message": counts agree with their nouns', () => {
  const problems = [
    ...countsThatDisagree(imported.stdout),
    ...countsThatDisagree(seen.get('tune')?.stdout ?? ''),
    ...countsThatDisagree(seen.get('record')?.stdout ?? '', { ownLines: unindented }),
    ...countsThatDisagree(seen.get('replay')?.stdout ?? '', { ownLines: (line) => !line.startsWith('  ') }),
  ];
  expect(problems).toEqual([]);
});
