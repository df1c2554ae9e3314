// The calibrated meter against what providers reported, on the real sessions of the corpus
// (test/fixtures/corpus/sessions): every model call estimated as the meter would have at the
// time, knowing only the calls before it. The bar (for Claude Code and pi): at most 3 % median
// and 15 % at the 95th percentile of |error| over the calls with an anchor, and every first
// call after a compaction within 15 %. Codex is measured and printed, with no bar: its text is
// redacted by its publisher, or its encrypted reasoning is billed unseen.

import { describe, expect, it } from 'vitest';
import { CALIBRATION_FACTORS, calibrationFactorOf, ESTIMATOR_NAMES, growthRatio, summarizeCallErrors } from '../../src/meter/index.js';
import { meterCorpusSource } from '../support/corpus-meter.js';

const measured = (provider: string, model: string) => calibrationFactorOf(provider, model, 'script-aware');

describe('the calibrated meter on the corpus sessions', () => {
  for (const source of ['claude-code', 'pi'] as const) {
    it(`${source}: at most 3 % median and 15 % p95 error, first calls after a compaction included`, async () => {
      const sessions = await meterCorpusSource(source, 'script-aware', measured);
      const summary = summarizeCallErrors(sessions.flatMap((session) => session.calls));
      console.log(`${source}: ${JSON.stringify(summary)}`);
      expect(summary.anchored).toBeGreaterThan(100);
      expect(summary.medianAbsError).toBeLessThanOrEqual(0.03);
      expect(summary.p95AbsError).toBeLessThanOrEqual(0.15);
      for (const error of summary.afterCompactionErrors) expect(Math.abs(error)).toBeLessThanOrEqual(0.15);
    });
  }

  it('claude-code: the compaction the corpus holds is among the calls measured', async () => {
    const sessions = await meterCorpusSource('claude-code', 'script-aware', measured);
    expect(summarizeCallErrors(sessions.flatMap((session) => session.calls)).afterCompactionErrors).toHaveLength(1);
  });

  it('codex: measured, with no bar', async () => {
    const sessions = await meterCorpusSource('codex', 'script-aware', measured);
    const summary = summarizeCallErrors(sessions.flatMap((session) => session.calls));
    console.log(`codex: ${JSON.stringify(summary)}`);
    expect(summary.measured).toBeGreaterThan(300);
  });
});

describe('the Claude calibration factors', () => {
  it('are what the Claude Code and pi sessions measure, for every estimator (within 0.01)', async () => {
    for (const estimator of ESTIMATOR_NAMES) {
      const uncalibrated = () => 1;
      const sessions = [
        ...(await meterCorpusSource('claude-code', estimator, uncalibrated)),
        ...(await meterCorpusSource('pi', estimator, uncalibrated)),
      ];
      const ratio = growthRatio(sessions.map((session) => session.calls));
      expect(ratio, estimator).toBeDefined();
      expect(Math.abs((ratio as number) - CALIBRATION_FACTORS.claude[estimator]), estimator).toBeLessThanOrEqual(0.01);
    }
  }, 60_000);
});
