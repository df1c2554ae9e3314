import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { createCliWorkspace } from '../support/cli.js';

describe('shadowlog demo and replay', () => {
  const workspace = createCliWorkspace();
  let demo: {
    sessionId: string;
    events: number;
    turns: Array<{ reason: string }>;
    replays: Array<{ turn: number; step: number; verified: boolean }>;
  };

  beforeAll(async () => {
    const result = await workspace.run(['demo', '--json', '--session', 'demo-test']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    demo = JSON.parse(result.stdout);
  });
  afterAll(() => workspace.cleanup());

  it('runs every turn of the demo to completion on the embedded SQLite store', () => {
    expect(demo.sessionId).toBe('demo-test');
    expect(demo.turns.length).toBeGreaterThanOrEqual(6);
    expect(demo.turns.every((turn) => turn.reason === 'completed')).toBe(true);
    expect(demo.replays).toHaveLength(2);
    expect(demo.replays.every((replayed) => replayed.verified)).toBe(true);
  });

  it('prunes and compacts at least twice, one compaction summarizing an earlier summary', async () => {
    const stats = JSON.parse((await workspace.run(['stats', 'demo-test', '--json'])).stdout);
    expect(stats.compactions).toBeGreaterThanOrEqual(2);
    expect(stats.prunes).toBeGreaterThanOrEqual(1);
    expect(stats.failedCompactions).toBe(0);
    expect(stats.openCompactions).toBe(0);
    expect(stats.tokensAfter).toBeLessThan(stats.tokensBefore);
    const record = JSON.parse((await workspace.run(['show', 'demo-test', '--record', '--json'])).stdout) as {
      events: Array<{ seq: number; type: string; data: { shadowedSeqs?: number[] }; sourceEventSeqs?: number[] }>;
    };
    const summaryNodes = new Set(
      record.events.filter((event) => event.type === 'user/message' && event.sourceEventSeqs !== undefined).map((event) => event.seq),
    );
    const nested = record.events.filter(
      (event) => event.type === 'compaction/summary' && (event.data.shadowedSeqs ?? []).some((seq) => summaryNodes.has(seq)),
    );
    expect(nested.length).toBeGreaterThanOrEqual(1);
    const text = (await workspace.run(['show', 'demo-test', '--record'])).stdout;
    expect(text).toMatch(
      /── compaction \w+ \(pressure\): surface \d+ → \d+ tokens; \d+ nodes \(\d+ tokens\) summarized by shadowlog\/extractive/,
    );
  });

  it('leaves a log that verifies', async () => {
    const result = await workspace.run(['verify', 'demo-test']);
    expect(result.code).toBe(0);
  });

  it('replays every model call of the demo, each verified by its digest', async () => {
    const record = JSON.parse((await workspace.run(['show', 'demo-test', '--record', '--json'])).stdout) as {
      events: Array<{ type: string; data: { turn: number; step: number; requestDigest: string } }>;
    };
    const requests = record.events.filter((event) => event.type === 'model/request');
    expect(requests.length).toBeGreaterThan(10);
    for (const { data } of requests) {
      const result = await workspace.run(['replay', 'demo-test', '--turn', String(data.turn), '--step', String(data.step), '--json']);
      expect(result.code).toBe(0);
      const replayed = JSON.parse(result.stdout);
      expect(replayed).toMatchObject({ turn: data.turn, step: data.step, requestDigest: data.requestDigest, verified: true });
      const wire = await workspace.run(['replay', 'demo-test', '--turn', String(data.turn), '--step', String(data.step), '--wire']);
      expect(wire.stdout).toBe(canonicalJson(replayed.request));
    }
  });

  it('prints a readable replay, and exits 1 naming the problem for a call that does not exist', async () => {
    const readable = await workspace.run(['replay', 'demo-test', '--turn', '2', '--step', '2']);
    expect(readable.stdout).toMatch(/^turn 2, step 2 \(event #\d+\): scripted\/demo-script/);
    expect(readable.stdout).toContain('verified: the rebuilt request hashes to');
    const missing = await workspace.run(['replay', 'demo-test', '--turn', '99']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^shadowlog: NO_SUCH_CALL: session demo-test has no model call at turn 99, step 1/);
    const badUsage = await workspace.run(['replay', 'demo-test', '--turn', 'zero']);
    expect(badUsage.code).toBe(2);
  });
});
