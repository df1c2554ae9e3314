// The calibration arithmetic (meter/calibration.ts): the unseen fixed part, the session's ratio
// and its clamp, the calibrated total; and the invariants that hold for any counts.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_FACTORS,
  type CalibrationAnchor,
  calibrate,
  calibrationFactorOf,
  clampRatio,
  impliedRatio,
  MIN_RATIO_ESTIMATE,
  modelFamilyOf,
  RATIO_SPREAD,
  unseenTokens,
} from '../../src/meter/index.js';

const point = (estimate: number, reported: number) => ({ estimate, reported });

describe('calibration arithmetic', () => {
  it('finds the unseen fixed part in the first call: what its calibrated estimate does not explain, never negative', () => {
    expect(unseenTokens(point(40, 26_450), 1.25)).toBe(26_450 - 50);
    expect(unseenTokens(point(10_000, 9_000), 1.25)).toBe(0);
  });

  it('takes the ratio from the latest call once the unseen part is set aside', () => {
    // 26,400 unseen, 100,000 estimated, 150,400 counted: 1.24 counted per estimated token.
    expect(impliedRatio(point(100_000, 150_400), 26_400, 1.27)).toBeCloseTo(1.24, 10);
  });

  it('keeps the family factor for a request too small to say, or one the unseen part more than explains', () => {
    expect(impliedRatio(point(MIN_RATIO_ESTIMATE - 1, 90_000), 0, 1.27)).toBe(1.27);
    expect(impliedRatio(point(50_000, 20_000), 30_000, 1.27)).toBe(1.27);
  });

  it('clamps the ratio within RATIO_SPREAD of the factor, and refuses a ratio that is not a number', () => {
    expect(clampRatio(10, 1.2)).toBeCloseTo(1.2 * RATIO_SPREAD, 10);
    expect(clampRatio(0.01, 1.2)).toBeCloseTo(1.2 / RATIO_SPREAD, 10);
    expect(clampRatio(Number.NaN, 1.2)).toBe(1.2);
    expect(clampRatio(Number.POSITIVE_INFINITY, 1.2)).toBe(1.2);
  });

  it('without an anchor: the estimate times the factor, rounded up', () => {
    expect(calibrate(1_000, 1.27)).toEqual({ total: 1_270, ratio: 1.27, unseen: 0, anchored: false });
    expect(calibrate(3, 1.27).total).toBe(4);
  });

  it('after a compaction: the unseen fixed part stays, the shadowed estimate leaves at the session ratio', () => {
    // First call: 40 estimated, 26,450 counted → 26,400 unseen at factor 1.25.
    // Latest: 113,000 estimated, 164,800 counted → ratio (164,800 − 26,400) ÷ 113,000.
    const anchor: CalibrationAnchor = { first: point(40, 26_450), latest: point(113_000, 164_800), keptShare: 0 };
    const ratio = (164_800 - 26_400) / 113_000;
    const after = calibrate(3_600, 1.25, anchor);
    expect(after.ratio).toBeCloseTo(ratio, 10);
    expect(after.total).toBe(Math.round(26_400 + ratio * 3_600));
    expect(after.unseen).toBe(26_400);
  });

  it('keeps unseen growth in proportion to the share of the latest surface still current', () => {
    // The ratio is clamped at 1.5 (factor 1): of the latest count, 50,000 − 1.5 × 10,000 = 35,000
    // is unseen, 1,000 of it fixed (the first call), 34,000 grown with the surface.
    const base = { first: point(0, 1_000), latest: point(10_000, 50_000) };
    expect(calibrate(10_000, 1, { ...base, keptShare: 1 }).total).toBe(50_000);
    expect(calibrate(2_000, 1, { ...base, keptShare: 0.25 }).total).toBe(1_000 + 34_000 * 0.25 + 1.5 * 2_000);
    expect(calibrate(2_000, 1, { ...base, keptShare: 0 }).total).toBe(1_000 + 1.5 * 2_000);
  });

  it('spreads a count below the calibrated estimate over the estimate alone', () => {
    const anchor = { first: point(10_000, 5_000), latest: point(10_000, 5_000) };
    // Ratio 1 (factor 1, unseen 0) would explain 10,000 of a count of 5,000.
    expect(calibrate(10_000, 1, anchor)).toMatchObject({ total: 5_000, ratio: 0.5, anchored: true });
    expect(calibrate(4_000, 1, anchor).total).toBe(2_000);
  });

  it('does not anchor on a count that is not a count', () => {
    expect(calibrate(100, 1, { first: point(10, Number.NaN), latest: point(100, 120) }).anchored).toBe(false);
    expect(calibrate(100, 1, { first: point(10, 20), latest: point(100, -1) }).anchored).toBe(false);
  });
});

const counts = fc.integer({ min: 0, max: 2_000_000 });
const factors = fc.double({ min: 0.5, max: 2, noNaN: true });
const anchors = fc.record({
  first: fc.record({ estimate: counts, reported: counts }),
  latest: fc.record({ estimate: counts, reported: counts }),
});

describe('calibration invariants', () => {
  it('is exact on the surface the latest call was sent, whatever the counts', () => {
    fc.assert(
      fc.property(anchors, factors, (anchor, factor) => {
        expect(calibrate(anchor.latest.estimate, factor, anchor).total).toBe(anchor.latest.reported);
      }),
    );
  });

  it('never goes down as the estimate grows, and is never negative', () => {
    fc.assert(
      fc.property(anchors, factors, counts, counts, fc.double({ min: 0, max: 1, noNaN: true }), (anchor, factor, a, b, keptShare) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const lower = calibrate(low, factor, { ...anchor, keptShare });
        const higher = calibrate(high, factor, { ...anchor, keptShare });
        expect(lower.total).toBeGreaterThanOrEqual(0);
        expect(higher.total).toBeGreaterThanOrEqual(lower.total);
      }),
    );
  });

  it('keeps the ratio within RATIO_SPREAD of the factor unless it spreads the count over the estimate alone', () => {
    fc.assert(
      fc.property(anchors, factors, counts, (anchor, factor, estimate) => {
        const result = calibrate(estimate, factor, anchor);
        const clamped = result.ratio >= factor / RATIO_SPREAD - 1e-12 && result.ratio <= factor * RATIO_SPREAD + 1e-12;
        const spread = result.unseen === 0 && result.ratio === anchor.latest.reported / anchor.latest.estimate;
        expect(clamped || spread).toBe(true);
      }),
    );
  });

  it('recovers counts made by a fixed part and a ratio within the clamp, on any later surface', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000 }),
        fc.double({ min: 0.9, max: 1.6, noNaN: true }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: MIN_RATIO_ESTIMATE, max: 500_000 }),
        counts,
        (fixed, ratio, firstEstimate, latestEstimate, now) => {
          const count = (estimate: number) => Math.round(fixed + ratio * estimate);
          // The family factor is right: the unseen part comes out as the fixed part, the ratio as the ratio.
          const anchor = { first: point(firstEstimate, count(firstEstimate)), latest: point(latestEstimate, count(latestEstimate)) };
          const result = calibrate(now, ratio, { ...anchor, keptShare: 0 });
          // Counts are whole numbers: each rounding may move the result by half a token per use.
          expect(Math.abs(result.total - count(now))).toBeLessThanOrEqual(2 + now / latestEstimate);
        },
      ),
    );
  });
});

describe('model families', () => {
  it('knows Claude by its provider or its id, and OpenAI models by theirs', () => {
    expect(modelFamilyOf('anthropic', 'claude-opus-4-6')).toBe('claude');
    expect(modelFamilyOf('openrouter', 'anthropic/claude-sonnet-4-5')).toBe('claude');
    expect(modelFamilyOf('openai', 'gpt-5.1-codex')).toBe('openai');
    expect(modelFamilyOf('codex', 'gpt-5.3-codex')).toBe('openai');
    expect(modelFamilyOf('scripted', 'demo')).toBe('other');
  });

  it('gives o200k_base the factor 1 for OpenAI models (their own tokenizer) and 1 to families nobody measured', () => {
    expect(calibrationFactorOf('openai', 'gpt-4.1', 'o200k_base')).toBe(1);
    expect(calibrationFactorOf('scripted', 'demo', 'script-aware')).toBe(1);
    expect(calibrationFactorOf('anthropic', 'claude-opus-4-6', 'o200k_base')).toBe(CALIBRATION_FACTORS.claude.o200k_base);
  });
});
