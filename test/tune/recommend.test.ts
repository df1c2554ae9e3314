// The recommendation: the cheapest feasible policy a policy file can express whose retention is
// within the margin of the best feasible retention; when none is, the expressible one that keeps
// the most, and the reason says so. Infeasible policies are never chosen, nor the best's reference.

import { describe, expect, it } from 'vitest';
import { afterCompactionOf } from '../../src/tune/compaction-point.js';
import { type PolicySummary, recommend } from '../../src/tune/tune-report.js';

function summary(
  policy: string,
  costUsd: number,
  share: number,
  options: { feasible?: boolean; config?: object | null } = {},
): PolicySummary {
  return {
    policy,
    description: policy,
    origin: 'shadowlog',
    feasible: options.feasible ?? true,
    infeasible: [],
    calls: 10,
    callsOverWindow: 0,
    tokensSent: Math.round(costUsd * 1_000_000),
    peakTokens: 1,
    meanWindowShare: 0.5,
    peakWindowShare: 0.8,
    compactions: 1,
    failedCompactions: 0,
    prunes: 0,
    drops: 0,
    summarizerTokens: { input: 0, output: 0 },
    cachePrefixShare: 0.9,
    costUsd,
    unpricedCalls: 0,
    retention: { used: 100, kept: Math.round(share * 100), share, reachable: Math.round(share * 100), recallable: share, worstMisses: [] },
    afterCompaction: afterCompactionOf(10, []),
    config: options.config === undefined ? { thresholdRatio: 0.8 } : (options.config as never),
    pruner: true,
  };
}

describe('recommend', () => {
  it('takes the cheapest within the margin of the best, not the cheapest overall', () => {
    const chosen = recommend(
      [summary('keeps-all', 10, 1), summary('cheap-lossy', 2, 0.9), summary('close', 5, 0.985), summary('closer-dearer', 7, 0.99)],
      0.02,
    );
    expect(chosen?.policy).toBe('close');
    expect(chosen?.reason).toMatch(
      /^cheapest by cost \(\$5\.00\) of the 3 feasible policies whose retention is within 2\.0 % of the best \(keeps-all, 100\.0 %\)/,
    );
    expect(chosen?.config).toEqual({ thresholdRatio: 0.8 });
  });

  it('never chooses an infeasible policy, and does not measure the best against one', () => {
    const chosen = recommend([summary('overflows', 1, 1, { feasible: false }), summary('a', 4, 0.9), summary('b', 3, 0.85)], 0.02);
    expect(chosen?.policy).toBe('a');
  });

  it('falls back to the expressible policy that keeps the most when the best has no policy file', () => {
    const chosen = recommend([summary('drop-oldest', 9, 0.99, { config: null }), summary('a', 4, 0.9), summary('b', 3, 0.8)], 0.02);
    expect(chosen?.policy).toBe('a');
    expect(chosen?.reason).toMatch(/^no policy a policy file can express is within 2\.0 % of the best retention \(drop-oldest, 99\.0 %\)/);
    expect(recommend([summary('drop-oldest', 9, 0.99, { config: null })], 0.02)).toBeNull();
  });
});
