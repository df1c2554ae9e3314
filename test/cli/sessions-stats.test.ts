// `shadowlog sessions` and `stats` on a store a person of issue 26 has: Claude Code, Codex and pi
// sessions imported from the corpus, a demo session of shadowlog's own harness, and a session the
// real proxy recorded whose client rewrote its own history. Each session found by its source's
// id and by prefix; sessions listed with source, project, models, first request, calls,
// compactions, tokens and cost, filtered and sorted; stats pricing the Claude Code session to the
// figure computed here from its usage lines, an unknown model unpriced, and the client's rewrite
// counted as the client's own compaction.

import { readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionOverview } from '../../src/cli/session-overview.js';
import { startProxy } from '../../src/proxy/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { startChatCompletionUpstream } from '../support/chat-completion-upstream.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, corpusFile } from '../support/corpus-sessions.js';

const CLAUDE_UUID = '4d5611e5-241a-462a-8d15-5122611a9569';
const CLAUDE = `claude-code-${CLAUDE_UUID}`;
const CODEX = 'codex-019a93b9-f380-7600-98ff-940e6b99603c';
const PI = 'pi-d703a1a9-1b7b-4fb1-b512-c9738b1fe617';

/**
 * The Claude Code session's usage, read here from its file: one answer per message id (Claude
 * Code writes a line per content block, the last with the final counts), priced at Claude Opus
 * 4.6's list prices ($5 input, $0.50 cache reads, $6.25 cache writes, $25 output per million).
 */
function claudeUsageFromFile() {
  const answers = new Map<
    string,
    { input_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number; output_tokens: number }
  >();
  for (const line of readFileSync(corpusFile(CORPUS_FILES.claudeMain), 'utf8').split('\n')) {
    if (line === '') continue;
    const record = JSON.parse(line) as { type?: string; message?: { id?: string; model?: string; usage?: never } };
    if (record.type === 'assistant' && record.message?.usage !== undefined) answers.set(record.message.id as string, record.message.usage);
  }
  let uncached = 0;
  let read = 0;
  let written = 0;
  let output = 0;
  for (const usage of answers.values()) {
    uncached += usage.input_tokens;
    read += usage.cache_read_input_tokens ?? 0;
    written += usage.cache_creation_input_tokens ?? 0;
    output += usage.output_tokens;
  }
  return {
    calls: answers.size,
    input: uncached + read + written,
    read,
    written,
    output,
    usd: (uncached * 5 + read * 0.5 + written * 6.25 + output * 25) / 1_000_000,
  };
}

describe('sessions and stats on a store of imported, proxied and shadowlog sessions', () => {
  const workspace = createCliWorkspace();
  const run = (args: string[]) => workspace.run(['--store', `sqlite:${workspace.cwd}/store.db`, ...args]);
  const json = async <T>(args: string[]): Promise<T> => {
    const result = await run(['--json', ...args]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as T;
  };
  let upstream: Server | undefined;

  beforeAll(async () => {
    const imported = await run(['import', ...[CORPUS_FILES.claudeMain, CORPUS_FILES.codexOld, CORPUS_FILES.pi].map(corpusFile)]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await run(['demo', '--session', 'demo-1'])).code).toBe(0);
    // A client that compacts its own history: the third request keeps the system prompt and a summary.
    upstream = (await startChatCompletionUpstream({ promptTokens: 1_000, completionTokens: 10 })).server;
    const sqlite = await openSqliteStore(`${workspace.cwd}/store.db`);
    const proxy = await startProxy({
      store: sqlite,
      upstreams: { openai: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      port: 0,
    });
    const system = { role: 'system', content: 'be brief' };
    const first = { role: 'user', content: 'the first question, in full' };
    for (const messages of [
      [system, first],
      [system, first, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'second' }],
      [system, { role: 'user', content: 'a summary of what came before' }, { role: 'user', content: 'third' }],
    ]) {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shadowlog-session': 'proxied-1' },
        body: JSON.stringify({ model: 'gpt-4o', messages }),
      });
      await response.arrayBuffer();
    }
    await proxy.settled();
    await proxy.close();
    await sqlite.close();
  }, 180_000);
  afterAll(async () => {
    if (upstream !== undefined) await new Promise((done) => upstream?.close(done));
    workspace.cleanup();
  });

  it('finds a session by its source harness id, whole or a prefix, and by a prefix of its own id', async () => {
    for (const name of [CLAUDE_UUID, '4d5611e5', 'claude-code-4d', CLAUDE]) {
      const shown = await run(['show', name]);
      expect(shown.code, `${name}: ${shown.stderr}`).toBe(0);
      expect(shown.stdout.split('\n')[0]).toBe(`surface of ${CLAUDE} after event #1543: 161 nodes, what the model is shown`);
    }
    const stats = await json<{ modelCalls: number }>(['stats', '019a93b9']);
    expect(stats.modelCalls).toBe(39);
    const ambiguous = await run(['stats', 'p']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/^shadowlog: AMBIGUOUS_SESSION: expected one session for "p", found 2: /);
    expect(ambiguous.stderr).toContain(`${PI} (pi, "/mode")`);
    expect(ambiguous.stderr).toContain('proxied-1 (proxy, "the first question, in full")');
    const missing = await run(['replay', 'nothing-like-it', '--turn', '1']);
    expect(missing.stderr).toMatch(/^shadowlog: SESSION_NOT_FOUND: .*`shadowlog sessions`/);
  });

  it('lists each session with its source, project, models, first request, calls, compactions, tokens and cost', async () => {
    const sessions = await json<SessionOverview[]>(['sessions']);
    const byId = new Map(sessions.map((session) => [session.id, session]));
    const expected = claudeUsageFromFile();
    expect(byId.get(CLAUDE)).toMatchObject({
      source: 'claude-code',
      sourceId: CLAUDE_UUID,
      project: '/home/USER/projects/spotter-worktrees/spotter-dov',
      models: ['claude-opus-4-6'],
      firstRequest: expect.stringMatching(/^Work on bead spotter-dov\. Run bd show spotter-dov/),
      calls: expected.calls,
      compactions: 1,
      clientCompactions: 0,
      tokens: { input: expected.input, cacheRead: expected.read, cacheWrite: expected.written, output: expected.output },
      cost: { pricedCalls: expected.calls, unpricedCalls: 0 },
    });
    expect(byId.get(CLAUDE)?.cost.usd).toBeCloseTo(expected.usd, 9);
    expect(byId.get(CODEX)).toMatchObject({ source: 'codex', project: '/home/user/projects/temp/chatbot-ui', models: ['gpt-5.1-codex'] });
    expect(byId.get(PI)).toMatchObject({ source: 'pi', project: '/Users/badlogic/workspaces/pi-mono', firstRequest: '/mode' });
    expect(byId.get('demo-1')).toMatchObject({ source: 'shadowlog', project: null, cost: { usd: null, unpricedModels: ['demo-script'] } });
    expect(byId.get('proxied-1')).toMatchObject({ source: 'proxy', calls: 3, compactions: 0, clientCompactions: 1 });
    for (const session of sessions) {
      expect(session.calls).toBeGreaterThanOrEqual(0);
      expect(session.tokens.total).toBe(session.tokens.input + session.tokens.output);
    }

    const listed = await run(['sessions']);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SESSION +SOURCE +CALLS +COMPACTIONS +TOKENS +COST +LAST ACTIVITY +PROJECT +MODEL +FIRST REQUEST$/);
    // Latest activity first: the demo and the proxied session ran today, the corpus long ago.
    expect(lines.slice(1, 6).map((line) => line.split(/\s+/)[0])).toEqual(expect.arrayContaining(['demo-1', 'proxied-1']));
    const claudeLine = lines.find((line) => line.startsWith(CLAUDE));
    expect(claudeLine).toMatch(
      / claude-code +139 +1 +12\.1M +\$9\.53 +2026-02-12 21:03 +…s\/spotter-worktrees\/spotter-dov +claude-opus-4-6 +"Work on bead/,
    );
    expect(lines.find((line) => line.startsWith('proxied-1'))).toMatch(/ proxy +3 +0\+1 client /);
    expect(lines.find((line) => line.startsWith('demo-1'))).toMatch(/ shadowlog +20 +2 +\S+ +unpriced /);
    expect(lines.at(-1)).toMatch(/^\* calls of demo-script are not in the price table/);
    expect(listed.stdout).not.toContain('?');
  });

  it('filters by source, project and time, sorts by calls, tokens and cost, and refuses a bad choice', async () => {
    const ids = async (args: string[]) => (await json<SessionOverview[]>(['sessions', ...args])).map((session) => session.id);
    expect(await ids(['--source', 'codex'])).toEqual([CODEX]);
    expect(await ids(['--source', 'proxy'])).toEqual(['proxied-1']);
    expect(await ids(['--project', 'spotter-dov'])).toEqual([CLAUDE]);
    expect(await ids(['--since', '2026-02-01', '--sort', 'calls'])).toEqual([CLAUDE, 'demo-1', 'proxied-1']);
    expect((await ids(['--since', '7d'])).sort()).toEqual(['demo-1', 'proxied-1']);
    expect((await ids(['--sort', 'calls']))[0]).toBe(PI);
    const byCost = await json<SessionOverview[]>(['sessions', '--sort', 'cost']);
    const costs = byCost.map((session) => session.cost.usd ?? -1);
    expect(costs).toEqual([...costs].sort((a, b) => b - a));
    const byTokens = await json<SessionOverview[]>(['sessions', '--sort', 'tokens']);
    expect(byTokens.map((session) => session.tokens.total)).toEqual(byTokens.map((session) => session.tokens.total).sort((a, b) => b - a));
    for (const bad of [
      ['--sort', 'size'],
      ['--source', 'cursor'],
      ['--since', 'last week'],
    ]) {
      const result = await run(['sessions', ...bad]);
      expect(result.code, bad.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^shadowlog: USAGE: --\w+ (must be one of|takes)/);
    }
  });

  it('prices the Claude Code session to the figure its usage lines give, by part and by model', async () => {
    const expected = claudeUsageFromFile();
    const stats = await json<{
      reportedInputTokens: number;
      reportedOutputTokens: number;
      importedCompactions: number;
      cost: { total: { total: number; cacheRead: number }; pricedCalls: number; unpricedCalls: number; byModel: Array<{ model: string }> };
      surface: { tokens: number; byKind: Array<{ kind: string; tokens: number }>; byTool: Array<{ tool: string; resultTokens: number }> };
    }>(['stats', '4d5611e5']);
    expect(stats.reportedInputTokens).toBe(expected.input);
    expect(stats.reportedOutputTokens).toBe(expected.output);
    expect(stats.cost.total.total).toBeCloseTo(expected.usd, 9);
    expect(stats.cost.total.cacheRead).toBeCloseTo((expected.read * 0.5) / 1_000_000, 9);
    expect(stats.cost).toMatchObject({ pricedCalls: expected.calls, unpricedCalls: 0, byModel: [{ model: 'claude-opus-4-6' }] });
    expect(stats.importedCompactions).toBe(1);
    expect(stats.surface.byKind.reduce((sum, kind) => sum + kind.tokens, 0)).toBe(stats.surface.tokens);
    expect(stats.surface.byTool[0]).toMatchObject({ tool: 'Read' });

    const human = await run(['stats', CLAUDE_UUID]);
    expect(human.stdout).toContain(`cost: $${expected.usd.toFixed(2)} for ${expected.calls} priced calls at the prices of `);
    expect(human.stdout).toMatch(/\n {2}by kind: tool results [\d,]+ \(\d+\.\d %\), /);
    expect(human.stdout).toMatch(/\n {4}Read: [\d,]+ tokens in 15 results/);
    expect(human.stdout).toContain("1 of them the source harness's, mapped on import");
    // No unknown figure, no negative count.
    expect(human.stdout).not.toMatch(/\?|(?:^|[\s(])-\d/m);

    const calls = await json<{ calls: Array<{ cost: { total: number } | null }>; cost: { total: { total: number } } }>([
      'stats',
      '4d5611e5',
      '--calls',
    ]);
    const summed = calls.calls.reduce((sum, call) => sum + (call.cost?.total ?? 0), 0);
    expect(summed).toBeCloseTo(expected.usd, 9);
  });

  it('counts an unknown model as unpriced, never 0, and prices it from --prices', async () => {
    const unpriced = await run(['stats', 'demo-1']);
    expect(unpriced.stdout).toContain('cost: no call could be priced at the prices of ');
    expect(unpriced.stdout).toContain('unpriced: 20 calls of demo-script, a model the price table does not know');
    writeFileSync(
      join(workspace.cwd, 'prices.json'),
      JSON.stringify({ models: { 'demo-script': { input: 1, cachedInput: 0.1, output: 2, cacheRule: 'openai' } } }),
    );
    const priced = await json<{ cost: { pricedCalls: number; unpricedCalls: number; total: { total: number } } }>([
      'stats',
      'demo-1',
      '--prices',
      'prices.json',
    ]);
    expect(priced.cost).toMatchObject({ pricedCalls: 20, unpricedCalls: 0 });
    expect(priced.cost.total.total).toBeGreaterThan(0);
  });

  it("counts a proxied client's rewrite of its history as the client's own compaction, apart from shadowlog's", async () => {
    const stats = await json<{
      compactions: number;
      clientCompactions: number;
      clientRewrites: Array<{ seq: number; shadowedNodes: number }>;
    }>(['stats', 'proxied-1']);
    expect(stats).toMatchObject({ compactions: 0, clientCompactions: 1 });
    expect(stats.clientRewrites[0]?.shadowedNodes).toBeGreaterThan(0);
    const human = await run(['stats', 'proxied-1']);
    expect(human.stdout).toMatch(/\ncompactions: 0 \(0 failed, 0 open\), prunes: 0\n/);
    expect(human.stdout).toMatch(
      /\nclient compactions: 1 \(the proxied client rewrote its own history, not shadowlog\), at #\d+ \(\d+ nodes → \d+\)\n/,
    );
    // gpt-4o at $2.50 input and $10 output per million: three calls of 1,000 in and 10 out.
    expect(human.stdout).toContain(`cost: $${((3 * 1_000 * 2.5 + 3 * 10 * 10) / 1_000_000).toFixed(4)} for 3 priced calls`);
  });
});
