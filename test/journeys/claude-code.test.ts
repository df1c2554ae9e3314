// A Claude Code user's journey, end to end through the command as they run it: the corpus's two
// Claude Code sessions (one with a sub-agent that wrote its automatic compaction) laid out under
// ~/.claude/projects, imported by directory, then read with sessions, show, show --record, diff,
// stats, replay, view and tune. Each step asserts what a person reads: the figures the source
// holds, no placeholder where a number exists, no negative count, no stack trace.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium, watchedPage } from '../view/browser.js';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { countsThatDisagree, unindented, unreadableLines } from './support/reads-like-a-person.js';

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
    expect(out).toContain(`${main.path}: claude-code (detected: line 1 is a Claude Code file-history-snapshot record), 1512 lines`);
    expect(out).toContain(`imported ${main.storeId} into sqlite:`);
    expect(out).toContain('1545 events, 139 model calls');
    expect(out).toContain(`imported ${main.storeId}.agent-acompact-e1f845 (a sub-session of ${main.storeId})`);
    expect(out).toContain(`imported ${small.storeId} into sqlite:`);
    expect(out.match(/hash chain and surface verified/g)).toHaveLength(5);
  });

  it('imports nothing the second time, and says so', async () => {
    const again = await shadowlog(home, ['import', home.roots['claude-code']]);
    expectReadable(again);
    expect(again.stdout).toContain(`${main.storeId} is already in`);
    expect(again.stdout.match(/nothing written/g)?.length).toBeGreaterThanOrEqual(2);
    expect(again.stdout).not.toMatch(/^ {2}imported /m);
  });

  it('lists the sessions with their sub-sessions and event counts', async () => {
    const sessions = await shadowlog(home, ['sessions']);
    expectReadable(sessions);
    for (const id of [main.storeId, `${main.storeId}.agent-acompact-e1f845`, small.storeId]) expect(sessions.stdout).toContain(id);
    expect(sessions.stdout).toMatch(new RegExp(`^${main.storeId}\\s+1545\\s`, 'm'));
  });
});

describe('reading the session', () => {
  it('show: the surface after the compaction opens with its summary, standing for the originals', async () => {
    const show = await shadowlog(home, ['show', main.storeId]);
    expectReadable(show, { ownLines: unindented });
    const lines = show.stdout.split('\n');
    expect(lines[0]).toBe(`surface of ${main.storeId} after event #1544: 161 nodes, what the model is shown`);
    expect(lines[2]).toMatch(/^#761 user {2}\[REPLACEMENT: replaces #8–#758 /);
    expect(lines[3]).toContain('This session is being continued from a previous conversation that ran out of context.');
  });

  it('show --record: every event but the source noise, which it counts at the end', async () => {
    const record = await shadowlog(home, ['show', main.storeId, '--record']);
    seen.set('record', record);
    expectReadable(record, { ownLines: unindented });
    const lines = record.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1867);
    expect(lines.at(-1)).toBe(
      "1,103 source events hidden: 1,083 claude-code/progress, 14 claude-code/file-history-snapshot, 3 claude-code/system-stop-hook-summary, 2 claude-code/system-turn-duration, 1 claude-code/queue-operation (lines of the source harness's file, kept whole as foreign events); --all shows them, --type TYPE shows one kind",
    );
    expect(record.stdout).not.toMatch(/^#\d+ .*claude-code\/progress/m);
    expect(record.stdout).toContain('#8 user  [shadowed by #761]');
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
      /^▤ compacted: #8 … #746: 130 nodes \(113,248 tokens\) .* → #761 user \(3,591 tokens\), by compaction dd3cc2e6 \(imported from claude-code\)/m,
    );
    expect(lines.at(-1)).toBe('tokens on the surface: 113,248 → 3,591 (−109,657): 113,248 replaced by 3,591');
  });

  it('stats: its calls, its cache and its one compaction', async () => {
    const stats = await shadowlog(home, ['stats', main.storeId]);
    expectReadable(stats);
    expect(stats.stdout).toContain(`${main.storeId}: 1545 events, 3 turns, 139 model calls (0 failed)`);
    expect(stats.stdout).toContain('compactions: 1 (0 failed, 0 open)');
    expect(stats.stdout).toContain('shadowed 118298 tokens, replaced by 3591');
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
  let data: {
    session: {
      calls: Array<{
        turn: number;
        step: number;
        contextWindow: number | null;
        estimatedTokens: number | null;
        usage: Record<string, number> | null;
      }>;
    };
  };
  // What a person sees of the page in a browser (where chromium is installed; CI installs it).
  let seen = { text: '', errors: [] as string[] };
  beforeAll(async () => {
    page = await shadowlog(home, ['view', main.storeId, '--out', 'page.html']);
    const html = readFileSync(join(home.cwd, 'page.html'), 'utf8');
    const block = /<script type="application\/json" id="shadowlog-data">([\s\S]*?)<\/script>/.exec(html);
    data = JSON.parse(block?.[1] ?? 'null');
    if (HAS_CHROMIUM) seen = await pageAsSeen(join(home.cwd, 'page.html'));
  });

  it('says what it wrote, with every count a number', () => {
    expectReadable(page);
    expect(page.stdout).toMatch(
      new RegExp(`^wrote page\\.html: ${main.storeId}, 1545 events, 139 model calls \\(0 digest-verified, 0 failed\\), \\d+ bytes\\n$`),
    );
  });

  it("holds every call with its provider's usage and a window", () => {
    expect(data.session.calls).toHaveLength(139);
    for (const call of data.session.calls) {
      expect(call.usage?.inputTokens).toEqual(expect.any(Number));
      expect(call.contextWindow).toEqual(expect.any(Number));
    }
  });

  // Defect, open: an imported call carries no estimate (estimatedTokens null), so the page's
  // timeline reads "? tok" for each of the 139 calls and the call panel "~? tokens estimated",
  // although `stats --calls` estimates every one of them and the provider reported each input.
  // Remove `.fails` when the page has a number there.
  it.fails('gives every call a number of tokens, as stats --calls does', () => {
    expect(data.session.calls.filter((call) => call.estimatedTokens === null).map((call) => `${call.turn}.${call.step}`)).toEqual([]);
  });

  it.runIf(HAS_CHROMIUM)('opens in a browser without an error, headed by the counts the command printed', () => {
    expect(seen.errors).toEqual([]);
    expect(seen.text).toContain('1545 events · 139 model calls');
  });

  // The same defect as above, as a person sees it: "? tok" down the whole timeline.
  it.runIf(HAS_CHROMIUM).fails('shows no "?" where a number belongs', () => {
    expect(unreadableLines(seen.text)).toEqual([]);
  });

  // Defect, open: the importer records the model table's window for claude-opus-4-6 (1,000,000),
  // but Claude Code ran this session in 200,000 tokens: it compacted automatically at 170,251
  // (compact_boundary preTokens), which a 1M window would never do. The page then draws the
  // session at under 17 % of its window. Remove `.fails` when the import records 200,000.
  it.fails('draws each call against the 200,000-token window the session ran in (its own compaction at 170,251 shows it)', () => {
    expect(new Set(data.session.calls.map((call) => call.contextWindow))).toEqual(new Set([200_000]));
  });
});

describe('tune on the project directory', () => {
  let tune: JourneyResult;
  beforeAll(async () => {
    tune = await shadowlog(home, ['tune', join(home.roots['claude-code'], '-home-USER-projects-spotter-worktrees-spotter-dov')]);
  });

  it('replays both sessions under every policy and prints a table a person can read', () => {
    expect(tune.code).toBe(0);
    expect(unreadableLines(tune.stdout)).toEqual([]);
    expect(tune.stdout).toMatch(/^2 sessions, 140 model calls, window [\d,]+; prices of \d{4}-\d{2}-\d{2}; script-aware estimates$/m);
    for (const policy of ['defaults', 'pi', 'claude-code', 'codex', 'opencode', 'drop-oldest', 'none'])
      expect(tune.stdout).toMatch(new RegExp(`^${policy} `, 'm'));
    expect(tune.stdout).toMatch(/^recommendation: /m);
  });

  // Defect, open (the same as the page's above): tune takes each call's recorded window, 1,000,000
  // for claude-opus-4-6, so no policy compacts and every policy sends the same tokens; Claude Code
  // compacted this very session at 170,251 tokens of a 200,000-token window (docs/tune.md: "the
  // importers record the model table's window when the source states none"). Remove `.fails`
  // when the window is right.
  it.fails('replays the Claude session in the 200,000-token window Claude Code gave it', () => {
    expect(tune.stdout).toMatch(/^2 sessions, 140 model calls, window 200,000;/m);
    expect(tune.stdout).not.toMatch(/^defaults .* 0 {7}0 /m);
  });
});

// Defect, open: counts and their nouns disagree in several lines a person reads
// ("1 compactions mapped", "1 model calls", "1 surface nodes", "the model was shown 1 messages").
// Remove `.fails` when they agree.
// (It reads the outputs of the journeys above, so it runs last.)
it.fails('says "1 call", "1 compaction", "1 message": counts agree with their nouns', () => {
  const problems = [
    ...countsThatDisagree(imported.stdout),
    ...countsThatDisagree(seen.get('record')?.stdout ?? '', { ownLines: unindented }),
    ...countsThatDisagree(seen.get('replay')?.stdout ?? '', { ownLines: (line) => !line.startsWith('  ') }),
  ];
  expect(problems).toEqual([]);
});
