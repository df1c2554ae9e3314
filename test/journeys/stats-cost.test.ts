// `stats` says what a session cost and where its tokens went (issue 26, item 4), as a Claude Code
// user asks it of the session the corpus holds: its cost from the usage Claude Code recorded,
// priced at claude-opus-4-6's list prices ($5 input, $0.50 cache read, $6.25 cache write, $25
// output per million tokens; Claude Opus 4 was $15/$75, three times as much), worked out here
// from the source file itself, not from shadowlog; a model the price table does not know counted
// as unpriced, never as $0; the tokens on the surface by tool.
// (`stats --json`: {cost: {total: {total}, pricedCalls, unpricedCalls, unpricedModels, callsWithoutUsage, byModel}}.)

import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarnessHome, type HarnessHome, type LaidOutSession } from './support/harness-home.js';
import { type JourneyResult, shadowlog } from './support/journey-cli.js';
import { unreadableLines } from './support/reads-like-a-person.js';

interface Usage {
  input_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  output_tokens: number;
}

/**
 * Dollars for a Claude Code transcript at claude-opus-4-6's list prices: each answer once (a
 * transcript repeats the usage on every line of one message; the last line's is the final one).
 */
function claudeOpus46Cost(path: string): number {
  const usageById = new Map<string, Usage>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { type?: string; message?: { id?: string; usage?: Usage } };
    if (record.type === 'assistant' && record.message?.id !== undefined && record.message.usage !== undefined)
      usageById.set(record.message.id, record.message.usage);
  }
  let dollars = 0;
  for (const usage of usageById.values()) {
    dollars += usage.input_tokens * 5 + (usage.cache_read_input_tokens ?? 0) * 0.5 + (usage.cache_creation_input_tokens ?? 0) * 6.25;
    dollars += usage.output_tokens * 25;
  }
  return dollars / 1_000_000;
}

describe('what a session cost and where its tokens went', () => {
  let home: HarnessHome;
  let claude: LaidOutSession;
  let text: JourneyResult;
  let json: {
    cost: { total: { total: number }; pricedCalls: number; unpricedCalls: number; unpricedModels: string[]; callsWithoutUsage: number };
  };
  beforeAll(async () => {
    home = createHarnessHome(['claude-code', 'pi']);
    claude = home.session('claude-code', '4d5611e5');
    const pi = home.session('pi');
    // The same pi session, its Claude model renamed to one no price table knows (a local model).
    writeFileSync(pi.path, readFileSync(pi.path, 'utf8').replaceAll('claude-sonnet-4-5', 'local-llama-70b'));
    for (const root of [home.roots['claude-code'], home.roots.pi]) expect((await shadowlog(home, ['import', root])).code).toBe(0);
    text = await shadowlog(home, ['stats', claude.storeId]);
    json = JSON.parse((await shadowlog(home, ['--json', 'stats', claude.storeId])).stdout);
  });
  afterAll(() => home?.cleanup());

  it("prices the Claude session at claude-opus-4-6's list prices, from the usage Claude Code recorded", () => {
    expect({ code: text.code, stderr: text.stderr }).toEqual({ code: 0, stderr: '' });
    expect(unreadableLines(text.stdout)).toEqual([]);
    const expected = claudeOpus46Cost(claude.path);
    expect(expected).toBeGreaterThan(9);
    expect(json.cost.total.total).toBeCloseTo(expected, 1);
    expect(json.cost).toMatchObject({ pricedCalls: 139, unpricedCalls: 0 });
    expect(text.stdout).toMatch(
      new RegExp(`^cost: \\$${expected.toFixed(2).replace('.', '\\.')} for 139 priced calls at the prices of \\d{4}-\\d{2}-\\d{2}: `, 'm'),
    );
    expect(text.stdout).toContain(
      `  claude-opus-4-6: 139 calls, input 12,098,281 tokens (11,618,567 cache reads, 479,537 cache writes), output 28,755: $${expected.toFixed(2)}`,
    );
  });

  it('counts the calls of a model the table does not know as unpriced, never as $0', async () => {
    const pi = home.session('pi');
    const stats = await shadowlog(home, ['stats', pi.storeId]);
    expect(stats.code).toBe(0);
    expect(unreadableLines(stats.stdout)).toEqual([]);
    expect(stats.stdout).toMatch(/unpriced/);
    expect(stats.stdout).toContain('local-llama-70b');
    expect(stats.stdout).not.toMatch(/cost:? \$0\.00\b/);
    const piJson = JSON.parse((await shadowlog(home, ['--json', 'stats', pi.storeId])).stdout) as typeof json;
    expect(piJson.cost.unpricedModels).toEqual(['local-llama-70b']);
    expect(piJson.cost.unpricedCalls).toBe(431 - piJson.cost.pricedCalls);
    expect(piJson.cost.callsWithoutUsage).toBe(22);
  });

  it('names the tools whose results fill the window, Read and Bash first in this session', () => {
    const lines = text.stdout.split('\n');
    const heading = lines.indexOf('  by tool (results, then calls):');
    expect(heading).toBeGreaterThan(0);
    expect(lines[heading + 1]).toMatch(/^ {4}Read: [\d,]+ tokens in 15 results \(\d+\.\d %\), [\d,]+ in 15 calls$/);
    expect(lines[heading + 2]).toMatch(/^ {4}Bash: [\d,]+ tokens in 40 results \(\d+\.\d %\), [\d,]+ in 40 calls$/);
    // One result is "1 result", not "1 results".
    expect(text.stdout).toMatch(/^ {4}AskUserQuestion: \d+ tokens in 1 result \(\d+\.\d %\), \d+ in 1 call$/m);
  });

  it('stats --calls prices each call', async () => {
    const calls = await shadowlog(home, ['stats', claude.storeId, '--calls']);
    expect(calls.code).toBe(0);
    expect(unreadableLines(calls.stdout)).toEqual([]);
    const rows = calls.stdout.split('\n').filter((line) => /^\s+\d+\s+\d+\s+claude-opus-4-6/.test(line));
    expect(rows).toHaveLength(139);
    for (const row of rows) expect(row).toMatch(/\$\d+\.\d{2,}/);
  });
});
