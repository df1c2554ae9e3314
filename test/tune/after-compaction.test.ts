// What the surface holds right after each compaction, on sessions small enough to work out by
// hand: the artifacts the next N calls use that stood before the compaction, the user requests
// still open at it, and the last user instruction before it.

import { describe, expect, it } from 'vitest';
import type { Summarizer } from '../../src/compaction/summarizer.js';
import { BUILT_IN_PRICES } from '../../src/meter/prices.js';
import { afterCompactionOf } from '../../src/tune/compaction-point.js';
import { replaySession } from '../../src/tune/session-replay.js';
import { buildTrace } from '../../src/tune/trace.js';
import { shadowlogPolicy } from '../../src/tune/tune-policies.js';
import type { PolicySummary } from '../../src/tune/tune-report.js';
import { parseTuneReport } from '../../src/tune/tune-report-schema.js';
import { TEXT_TABLE_COLUMNS, textTable } from '../../src/tune/tune-table.js';
import { buildSession, charMeter, prose, type TurnSpec, textWith } from './support/hand-built.js';

/** A summary that names nothing of what it replaces. */
const fixedSummarizer: Summarizer = {
  async summarize() {
    return {
      text: 'the earlier turns were read',
      kind: 'extractive',
      provider: 'test',
      model: 'fixed',
      usage: null,
      requestDigest: null,
      rendererVersion: null,
      truncated: false,
    };
  },
};

// Threshold 500 of W 1,000, a tail of at most 150 tokens kept verbatim.
const half = shadowlogPolicy('half', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 150 }, null);

/**
 * Six turns of a user message (100 tokens) and an answer (100) after the system message (20):
 * items 0 system, 1 u1, 2 a1, 3 u2, 4 a2, 5 u3, 6 a3, 7 u4, 8 a4, 9 u5, 10 a5, 11 u6, 12 a6; the
 * calls (positions 0–5) stand at items 2, 4, … 12. `half` compacts at call 3 (position 2,
 * items 0–5 sent) keeping u3 (cut 5), and at call 5 (position 4, items 0–9) keeping u5 (cut 9).
 */
function artifactTurns(): TurnSpec[] {
  const user = ['fix src/alpha.ts', 'and src/beta.ts', 'go on', 'then src/gamma.ts', 'last src/delta.ts', 'done?'];
  const answer = ['ok', 'ok', 'reading src/beta.ts', 'edited src/alpha.ts', 'edited src/gamma.ts', 'edited src/delta.ts'];
  return user.map((text, index) => ({
    user: textWith(text, 92, index),
    steps: [{ answer: textWith(answer[index] as string, 92, index + 3) }],
  }));
}

describe('what the surface holds right after each compaction', () => {
  const trace = buildTrace('ahead', buildSession(artifactTurns()), charMeter(), { window: 1_000 });

  it('counts the artifacts the next N calls use that stood before the compaction, and those on its surface', async () => {
    const result = await replaySession(trace, charMeter(), [half], { prices: BUILT_IN_PRICES, summarizer: fixedSummarizer });
    const policy = result.policies[0];
    expect(policy?.compactionCalls).toEqual([3, 5]);
    // Call 3: the next calls use src/beta.ts (call 3, from u2 at item 3) and src/alpha.ts (call 4, from u1):
    // both summarized away. src/gamma.ts (call 5) and src/delta.ts (call 6) came after item 5: not counted.
    // Call 5: src/gamma.ts (call 5, from u4 at item 7, summarized) and src/delta.ts (call 6, from u5 at item 9, kept).
    // Open requests: each answer makes no tool call, so only the current turn's request is open, and it is kept.
    expect(policy?.afterCompaction).toEqual({
      lookaheadCalls: 10,
      points: 2,
      aheadUsed: 4,
      aheadKept: 1,
      aheadShare: 0.25,
      openRequests: 2,
      openKept: 2,
      openShare: 1,
      instructions: 2,
      instructionsKept: 2,
      instructionShare: 1,
    });
    // Here retention at the using call happens to count the same four uses (each call uses one artifact once).
    expect(policy?.retention).toMatchObject({ used: 4, kept: 1 });
  });

  it('looks only N calls ahead', async () => {
    const result = await replaySession(trace, charMeter(), [half], {
      prices: BUILT_IN_PRICES,
      summarizer: fixedSummarizer,
      lookaheadCalls: 1,
    });
    // N = 1: call 3 uses src/beta.ts (lost), call 5 uses src/gamma.ts (lost).
    expect(result.policies[0]?.afterCompaction).toMatchObject({ lookaheadCalls: 1, aheadUsed: 2, aheadKept: 0, aheadShare: 0 });
  });

  it('loses the open request and the last instruction when a compaction keeps no tail in the middle of a turn', async () => {
    // One turn: u1 (100), three steps each calling a tool with a 400-character result (408), a final answer.
    const turn: TurnSpec = {
      user: textWith('fix src/alpha.ts', 92),
      steps: [
        ...[1, 2, 3].map((step) => ({
          answer: prose(92, step),
          calls: [{ callId: `c${step}`, arguments: { n: step }, result: prose(400, step) }],
        })),
        { answer: textWith('fixed src/alpha.ts', 92) },
      ],
    };
    const session = buildTrace('open', buildSession([turn]), charMeter(), { window: 1_000 });
    const none = shadowlogPolicy('no tail', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 0 }, null);
    const result = await replaySession(session, charMeter(), [none], { prices: BUILT_IN_PRICES, summarizer: fixedSummarizer });
    const policy = result.policies[0];
    // Call 2 carries 20 + 100 + a1 + 408 ≥ 500 and each later call adds as much again: calls 2, 3 and 4 compact,
    // each summarizing everything sent, u1 with it; u1 is open at each (the turn ends with call 4's answer).
    expect(policy?.compactionCalls).toEqual([2, 3, 4]);
    expect(policy?.afterCompaction).toMatchObject({
      points: 3,
      openRequests: 3,
      openKept: 0,
      openShare: 0,
      instructions: 3,
      instructionsKept: 0,
      instructionShare: 0,
    });
    // Call 4's answer uses src/alpha.ts, named only in u1.
    expect(policy?.afterCompaction).toMatchObject({ aheadUsed: 3, aheadKept: 0 });
    // The extractive summary quotes the user's request among its request lines (and names the file): held at every point.
    const extractive = await replaySession(session, charMeter(), [none], { prices: BUILT_IN_PRICES });
    expect(extractive.policies[0]?.afterCompaction).toMatchObject({
      points: 3,
      openRequests: 3,
      openKept: 3,
      instructionsKept: 3,
      aheadUsed: 3,
      aheadKept: 3,
    });
  });

  it('holds a long request the extractive summary quotes cut to its head and tail', async () => {
    // A 3,000-character request, three tool steps of 4,000-character results, W 10,000, no tail kept.
    const turn: TurnSpec = {
      user: textWith('fix src/alpha.ts', 3_000),
      steps: [
        ...[1, 2, 3].map((step) => ({
          answer: prose(92, step),
          calls: [{ callId: `c${step}`, arguments: { n: step }, result: prose(4_000, step) }],
        })),
        { answer: prose(92, 9) },
      ],
    };
    const session = buildTrace('long', buildSession([turn]), charMeter(), { window: 10_000 });
    const none = shadowlogPolicy('no tail', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 0 }, null);
    const result = await replaySession(session, charMeter(), [none], { prices: BUILT_IN_PRICES });
    const policy = result.policies[0];
    expect(policy?.compactionCalls).toEqual([2, 4]);
    expect(policy?.afterCompaction).toMatchObject({ openRequests: 2, openKept: 2, instructions: 2, instructionsKept: 2 });
  });

  it('has no share where nothing compacted, and sums sessions by their counts', () => {
    expect(afterCompactionOf(10, [])).toMatchObject({ points: 0, aheadShare: null, openShare: null, instructionShare: null });
    const sum = afterCompactionOf(10, [
      { aheadUsed: 4, aheadKept: 1, openRequests: 1, openKept: 1, instruction: true },
      { aheadUsed: 0, aheadKept: 0, openRequests: 2, openKept: 0, instruction: null },
      afterCompactionOf(10, [{ aheadUsed: 4, aheadKept: 3, openRequests: 1, openKept: 0, instruction: false }]),
    ]);
    expect(sum).toMatchObject({ points: 3, aheadShare: 0.5, openShare: 0.25, instructions: 2, instructionsKept: 1, instructionShare: 0.5 });
  });

  it('is in the report schema, and a report written before it still reads', () => {
    const base = {
      version: 1,
      prices: { date: 'd', source: 's' },
      estimator: 'e',
      sessions: [],
      unfitSessions: [],
      recommendation: null,
    };
    const policy = {
      policy: 'p',
      description: 'p',
      origin: 'shadowlog',
      feasible: true,
      infeasible: [],
      calls: 1,
      callsOverWindow: 0,
      tokensSent: 1,
      peakTokens: 1,
      meanWindowShare: 0.1,
      peakWindowShare: 0.1,
      compactions: 0,
      failedCompactions: 0,
      prunes: 0,
      drops: 0,
      summarizerTokens: { input: 0, output: 0 },
      cachePrefixShare: 0,
      costUsd: 0,
      unpricedCalls: 0,
      retention: { used: 0, kept: 0, share: 1, reachable: 0, recallable: 1, worstMisses: [] },
      config: null,
      pruner: false,
    };
    const after = afterCompactionOf(10, [{ aheadUsed: 2, aheadKept: 1, openRequests: 1, openKept: 1, instruction: true }]);
    expect(parseTuneReport({ ...base, policies: [{ ...policy, afterCompaction: after }] }, 'r').policies[0]?.afterCompaction).toEqual(
      after,
    );
    expect(parseTuneReport({ ...base, policies: [policy] }, 'r').policies[0]?.afterCompaction).toBeUndefined();
    expect(() => parseTuneReport({ ...base, policies: [{ ...policy, afterCompaction: { ...after, aheadShare: 2 } }] }, 'r')).toThrow(
      /afterCompaction\.aheadShare/,
    );
  });

  it('shows held after in the default table within 120 columns, and the three shares with their counts behind --wide', () => {
    const after = afterCompactionOf(10, [
      { aheadUsed: 8, aheadKept: 6, openRequests: 2, openKept: 1, instruction: true },
      { aheadUsed: 0, aheadKept: 0, openRequests: 0, openKept: 0, instruction: false },
    ]);
    const policy = {
      policy: `summary ${'retainTokens=20000 thresholdRatio=0.6 headroomTokens=0 '.repeat(2)}`,
      description: '',
      origin: 'shadowlog',
      feasible: true,
      infeasible: [],
      calls: 10,
      callsOverWindow: 0,
      tokensSent: 999_999_999,
      peakTokens: 1,
      meanWindowShare: 0.5,
      peakWindowShare: 0.5,
      compactions: 12_345,
      failedCompactions: 0,
      prunes: 0,
      drops: 0,
      summarizerTokens: { input: 0, output: 0 },
      cachePrefixShare: 0.5,
      costUsd: 12_345.67,
      unpricedCalls: 123,
      retention: { used: 10, kept: 9, share: 0.9, reachable: 9, recallable: 0.9, worstMisses: [] },
      afterCompaction: after,
      config: null,
      pruner: false,
    } satisfies PolicySummary;
    const lines = textTable([policy, { ...policy, policy: 'none', afterCompaction: afterCompactionOf(10, []) }]);
    expect(lines[0]).toMatch(/retention {2}held after {2}compactions/);
    expect(lines[1]).toMatch(/90\.0 % +75\.0 % +12,345 +0$/);
    expect(lines[2]).toMatch(/90\.0 % +– +12,345 +0$/);
    expect(lines[3]).toMatch(/^held after: of what the 10 calls from each compaction use/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(TEXT_TABLE_COLUMNS);
    // Dollars with thousands separators, and calls without a price counted as a legend line says: no "?" in a line.
    expect(lines[1]).toMatch(/\$12,345\.67 \+123 /);
    expect(lines).toContain(
      'cost +N: N calls of models the price table does not know, not in the dollars (--prices FILE gives their prices)',
    );
    for (const line of lines) expect(line).not.toContain('?');
    const wide = textTable([policy], { wide: true });
    expect(wide[0]).toMatch(/after compaction: next 10 calls' artifacts held {2}open requests held {2}last instruction held$/);
    // 6 of 8 artifacts; 1 of 2 open requests; the last instruction held at 1 of the 2 points.
    expect(wide[1]).toMatch(/75\.0 % of 8 +50\.0 % of 2 +50\.0 % of 2$/);
  });
});
