// `shadowlog tune` end to end on the real corpus sessions: the JSON report's shape (which the
// viewer renders), the table with every baseline, an infeasible baseline reported as such, the
// files of --out, the recommended policy file accepted by `compact`, and bad input refused.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCompactionConfig } from '../../src/compaction/policy.js';
import { createCliWorkspace } from '../support/cli.js';
import { CORPUS_FILES, CORPUS_SESSIONS, corpusFile } from '../support/corpus-sessions.js';

const workspace = createCliWorkspace();
afterAll(() => workspace.cleanup());

const BASELINES = ['pi', 'claude-code', 'codex', 'opencode', 'drop-oldest', 'none'];

describe('shadowlog tune', () => {
  it('replays every corpus session under the defaults and every baseline, as JSON', async () => {
    const result = await workspace.run(['--json', 'tune', CORPUS_SESSIONS, '--window', '200000']);
    // Off a terminal the progress bar writes a line every 10 seconds, which a loaded machine can reach.
    expect(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('tuning: '))).toEqual([]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.policies.map((policy: { policy: string }) => policy.policy)).toEqual(['defaults', ...BASELINES]);
    for (const policy of report.policies) {
      expect(policy).toMatchObject({
        feasible: expect.any(Boolean),
        tokensSent: expect.any(Number),
        peakTokens: expect.any(Number),
        compactions: expect.any(Number),
        summarizerTokens: { input: expect.any(Number), output: expect.any(Number) },
        cachePrefixShare: expect.any(Number),
        costUsd: expect.any(Number),
        retention: { used: expect.any(Number), kept: expect.any(Number), share: expect.any(Number), worstMisses: expect.any(Array) },
      });
      expect(policy.peakTokens).toBeLessThanOrEqual(200_000);
    }
    // Every session of the corpus, sub-agents included, each with every policy.
    expect(report.sessions.length).toBe(8);
    for (const session of report.sessions) expect(session.policies.length).toBe(7);
    const none = report.policies.find((policy: { policy: string }) => policy.policy === 'none');
    const defaults = report.policies.find((policy: { policy: string }) => policy.policy === 'defaults');
    // The defaults act (at 0.7 of 200,000 they prune long tool results, and compact where that is not enough), so
    // they send less than no compaction.
    expect(defaults.compactions + defaults.prunes).toBeGreaterThan(0);
    expect(defaults.tokensSent).toBeLessThan(none.tokensSent);
    expect(none.retention.share).toBe(1);
    expect(report.recommendation).toMatchObject({ policy: expect.any(String), reason: expect.any(String), config: expect.any(Object) });
    expect(() => parseCompactionConfig(report.recommendation.config)).not.toThrow();
    // What the surface holds right after each compaction: shares within [0, 1], which tell the policies apart.
    const after = report.policies
      .filter((policy: { feasible: boolean }) => policy.feasible)
      .map((policy: { afterCompaction: Record<string, number | null> }) => policy.afterCompaction);
    for (const figures of after) {
      expect(figures.lookaheadCalls).toBe(10);
      for (const share of [figures.aheadShare, figures.openShare, figures.instructionShare])
        if (share !== null) expect(share >= 0 && share <= 1).toBe(true);
    }
    const ahead = after
      .map((figures: { aheadShare: number | null }) => figures.aheadShare)
      .filter((share: number | null) => share !== null);
    expect(new Set(ahead).size).toBeGreaterThan(1);
  }, 60_000);

  it('replays a named preset beside the defaults, and refuses an unknown one before replaying', async () => {
    const args = ['tune', corpusFile(CORPUS_FILES.codexOld), '--window', '131072', '--baselines', 'none'];
    const result = await workspace.run(['--json', ...args, '--preset', 'dsh']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.policies.map((policy: { policy: string }) => policy.policy)).toEqual(['defaults', 'preset dsh', 'none']);
    const dsh = report.policies.find((policy: { policy: string }) => policy.policy === 'preset dsh');
    expect(dsh.config).toMatchObject({ thresholdRatio: 0.8, headroomTokens: 65_536, retainRatio: 0.16 });
    const unknown = await workspace.run([...args, '--preset', 'dhs']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/INVALID_CONFIG: expected a compaction preset among dsh, found "dhs"/);
  }, 60_000);

  it('reports a baseline that overflows the window as infeasible, with the call, and divides nothing by it', async () => {
    // pi's recorded session, held to a 100,000-token window: without compaction it overflows.
    const args = ['tune', corpusFile(CORPUS_FILES.pi), '--window', '100000', '--baselines', 'drop-oldest,none'];
    const result = await workspace.run(args);
    expect(result.code).toBe(0);
    const none = result.stdout.split('\n').find((line) => line.startsWith('none'));
    expect(none).toMatch(/^none +over the window from call \d+ of pi-d703a1a9/);
    expect(none).not.toMatch(/×|%/);
    // The default table, and every line around it, fits 120 columns.
    for (const line of result.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(120);
    const dropOldest = result.stdout.split('\n').find((line) => line.startsWith('drop-oldest'));
    expect(dropOldest).toMatch(/ 1\.00× /);
    const json = JSON.parse((await workspace.run(['--json', ...args])).stdout);
    const row = json.policies.find((policy: { policy: string }) => policy.policy === 'none');
    expect(row.feasible).toBe(false);
    expect(row.infeasible[0].firstCallOverWindow).toBeGreaterThan(1);
    expect(row.callsOverWindow).toBeGreaterThan(0);
    // The session itself is in the report with where no compaction breaks.
    expect(json.sessions[0].policies.find((policy: { policy: string }) => policy.policy === 'none').firstCallOverWindow).toBe(
      row.infeasible[0].firstCallOverWindow,
    );
  }, 60_000);

  it('writes the report, its plots and the policy file with --out', async () => {
    const out = join(workspace.cwd, 'report');
    const result = await workspace.run([
      'tune',
      corpusFile(CORPUS_FILES.codexOld),
      '--window',
      '64000',
      '--grid',
      'thresholdRatio=0.6,0.8',
      '--grid',
      'headroomTokens=0',
      '--out',
      out,
    ]);
    expect(result.code).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual(expect.arrayContaining(['cost-retention.svg', 'policy.json', 'report.json', 'report.md']));
    expect(files.some((file) => /^tokens-01-codex-.*\.svg$/.test(file))).toBe(true);
    const markdown = readFileSync(join(out, 'report.md'), 'utf8');
    expect(markdown).toMatch(/\| summary thresholdRatio=0\.6 headroomTokens=0 \|/);
    expect(markdown).toMatch(/\*\*Recommendation: /);
    for (const file of files.filter((name) => name.endsWith('.svg')))
      expect(readFileSync(join(out, file), 'utf8')).toMatch(/^<svg [^>]*>[\s\S]*<\/svg>\n$/);
  }, 60_000);

  it('writes a recommendation that compact accepts as its policy file', async () => {
    const imported = await workspace.run(['import', corpusFile(CORPUS_FILES.codexOld)]);
    expect(imported.code).toBe(0);
    const tuned = await workspace.run(['tune', '--all', '--window', '64000', '--grid', 'headroomTokens=0', '--policy-file', 'policy.json']);
    expect(tuned.code).toBe(0);
    const policy = JSON.parse(readFileSync(join(workspace.cwd, 'policy.json'), 'utf8'));
    // Every value stated, never {}, with what it was chosen for.
    expect(policy).toMatchObject({
      thresholdRatio: expect.any(Number),
      headroomTokens: expect.any(Number),
      maxSummaryTokens: expect.any(Number),
    });
    expect(policy.chosenFor).toMatchObject({ contextWindow: 64_000, sessions: 1, harnesses: ['codex'] });
    expect(tuned.stdout.replace(/\n {2}/g, ' ')).toContain(`policy file: {"thresholdRatio": ${policy.thresholdRatio},`);
    // And as Codex's own setting, for the window of its calls.
    expect(tuned.stdout).toMatch(
      /for Codex \(1 session, window 64,000\): model_auto_compact_token_limit = \d+, in ~\/\.codex\/config\.toml/,
    );
    const compacted = await workspace.run(['compact', 'codex-019a93b9-f380-7600-98ff-940e6b99603c', '--compaction-config', 'policy.json']);
    expect(compacted.stderr).toBe('');
    expect(compacted.stdout).toMatch(/compacted \d+ nodes into summary/);
    expect(compacted.code).toBe(0);
  }, 60_000);

  it('runs on the demo store, whose small window refuses the baselines that keep a fixed tail, and reports them as refused', async () => {
    const own = createCliWorkspace();
    try {
      const demo = await own.run(['demo']);
      expect(demo.code).toBe(0);
      const result = await own.run(['--json', 'tune', '--all']);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      const report = JSON.parse(result.stdout);
      const pi = report.policies.find((policy: { policy: string }) => policy.policy === 'pi');
      expect(pi.feasible).toBe(false);
      expect(pi.config).toBeNull();
      expect(pi.infeasible[0].refused).toMatch(/INVALID_CONFIG|pressure budget|retained tail/);
      expect(report.recommendation.policy).not.toBe('pi');
    } finally {
      own.cleanup();
    }
  }, 60_000);

  it('refuses a grid it cannot read before replaying anything, and writes nothing', async () => {
    const out = join(workspace.cwd, 'never');
    const result = await workspace.run(['tune', corpusFile(CORPUS_FILES.claudeSmall), '--grid', 'thresholdRatio=high', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/thresholdRatio takes numbers, found "high"/);
    expect(existsSync(out)).toBe(false);
    const unknown = await workspace.run(['tune', corpusFile(CORPUS_FILES.claudeSmall), '--baselines', 'aider']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/expected baselines among pi, claude-code, codex, opencode, drop-oldest, none, found "aider"/);
    writeFileSync(
      join(workspace.cwd, 'prices.json'),
      JSON.stringify({ models: { 'gpt-5': { input: -1, cachedInput: 0, output: 1, cacheRule: 'openai' } } }),
    );
    const prices = await workspace.run(['tune', corpusFile(CORPUS_FILES.claudeSmall), '--prices', 'prices.json']);
    expect(prices.code).toBe(2);
    expect(prices.stderr).toMatch(/models\.gpt-5\.input must be dollars per million tokens/);
    const lookahead = await workspace.run(['tune', corpusFile(CORPUS_FILES.claudeSmall), '--lookahead', '0', '--out', out]);
    expect(lookahead.code).toBe(2);
    expect(lookahead.stderr).toMatch(/--lookahead is a whole number of calls from 1 \(default 10\), found "0"/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('looks --lookahead calls ahead of each compaction', async () => {
    const result = await workspace.run([
      '--json',
      'tune',
      corpusFile(CORPUS_FILES.claudeMain),
      '--lookahead',
      '3',
      '--baselines',
      'claude-code',
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    const claude = report.policies.find((policy: { policy: string }) => policy.policy === 'claude-code');
    expect(claude.afterCompaction).toMatchObject({ lookaheadCalls: 3, points: 1 });
    expect(claude.afterCompaction.aheadUsed).toBeLessThanOrEqual(22);
  }, 60_000);
});
