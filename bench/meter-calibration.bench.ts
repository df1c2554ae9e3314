// Benchmark: the meter's error against what providers reported, on the corpus sessions
// (test/fixtures/corpus/sessions). Every model call of every session is estimated as the meter
// would have at the time, knowing only the calls before it, and compared with the input tokens
// the provider reported. The baseline, in the same run, is the anchored meter as it was before
// calibration: the latest reported count plus the raw estimates of nodes appended since, minus
// those of nodes shadowed since. It also measures each estimator's Claude calibration factor
// (growthRatio), the figures src/meter/calibration-factors.ts records.
//
//   npm run bench -- meter-calibration           through the runner
//   npx tsx bench/meter-calibration.bench.ts     alone

import {
  CALIBRATION_FACTORS,
  type CallErrorSummary,
  calibrationFactorOf,
  ESTIMATOR_NAMES,
  growthRatio,
  type MeteredCallRow,
  nearestRank,
  summarizeCallErrors,
} from '../src/meter/index.js';
import { CORPUS_SOURCES, type CorpusSource, meterCorpusSource } from '../test/support/corpus-meter.js';
import { type Benchmark, type BenchReport, type Figures, runIfMain } from './support.js';

const SOURCES: readonly CorpusSource[] = ['claude-code', 'pi', 'codex'];

/** The error of the uncalibrated anchored meter on each anchored call of one session. */
function uncalibratedErrors(calls: readonly MeteredCallRow[]): { errors: number[]; afterCompaction: number[] } {
  const latest = new Map<string, MeteredCallRow>();
  const errors: number[] = [];
  const afterCompaction: number[] = [];
  for (const call of calls) {
    const key = JSON.stringify([call.provider, call.model]);
    const anchor = latest.get(key);
    if (call.reportedInputTokens === null) continue;
    if (anchor !== undefined && anchor.reportedInputTokens !== null) {
      const estimate = anchor.reportedInputTokens + (call.uncalibratedTokens - anchor.uncalibratedTokens);
      const error = (Math.max(0, estimate) - call.reportedInputTokens) / call.reportedInputTokens;
      errors.push(Math.abs(error));
      if (call.afterCompaction) afterCompaction.push(error);
    }
    latest.set(key, call);
  }
  return { errors, afterCompaction };
}

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)} %`);
const signed = (value: number) => `${value > 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;

export const benchmark: Benchmark = {
  name: 'meter-calibration',
  description:
    "the calibrated meter's error against provider-reported input on the corpus sessions, next to the uncalibrated anchored meter",
  async run(context): Promise<BenchReport> {
    const rows: string[][] = [];
    const figures: Figures = {};
    for (const source of SOURCES) {
      context.progress(`${source}: importing and metering ${CORPUS_SOURCES[source].length} files`);
      const sessions = await meterCorpusSource(source, 'script-aware', (provider, model) =>
        calibrationFactorOf(provider, model, 'script-aware'),
      );
      const calls = sessions.flatMap((session) => session.calls);
      const calibrated: CallErrorSummary = summarizeCallErrors(calls);
      const baseline = sessions.map((session) => uncalibratedErrors(session.calls));
      const baselineErrors = baseline.flatMap((entry) => entry.errors).sort((a, b) => a - b);
      const baselineAfter = baseline.flatMap((entry) => entry.afterCompaction);
      rows.push([
        source,
        `${sessions.length}`,
        `${calibrated.measured} (${calibrated.anchored})`,
        percent(calibrated.medianAbsError),
        percent(calibrated.p95AbsError),
        calibrated.afterCompactionErrors.map(signed).join(', ') || '–',
        percent(nearestRank(baselineErrors, 0.5)),
        percent(nearestRank(baselineErrors, 0.95)),
        baselineAfter.map(signed).join(', ') || '–',
      ]);
      figures[source] = {
        sessions: sessions.length,
        measured: calibrated.measured,
        anchored: calibrated.anchored,
        medianAbsError: calibrated.medianAbsError,
        p95AbsError: calibrated.p95AbsError,
        maxAbsError: calibrated.maxAbsError,
        afterCompactionErrors: [...calibrated.afterCompactionErrors],
        uncalibrated: {
          medianAbsError: nearestRank(baselineErrors, 0.5),
          p95AbsError: nearestRank(baselineErrors, 0.95),
          afterCompactionErrors: baselineAfter,
        },
      };
    }

    context.progress('the Claude calibration factor of each estimator');
    const factorRows: string[][] = [];
    const factors: Figures = {};
    for (const estimator of ESTIMATOR_NAMES) {
      const uncalibrated = () => 1;
      const sessions = [
        ...(await meterCorpusSource('claude-code', estimator, uncalibrated)),
        ...(await meterCorpusSource('pi', estimator, uncalibrated)),
      ];
      const measured = growthRatio(sessions.map((session) => session.calls));
      factors[estimator] = measured ?? null;
      factorRows.push([
        estimator,
        measured === undefined ? 'not measurable' : measured.toFixed(3),
        CALIBRATION_FACTORS.claude[estimator].toFixed(2),
      ]);
    }
    figures.claudeFactors = factors;

    return {
      tables: [
        {
          title:
            'Meter error against provider-reported input, per corpus source (script-aware estimator; |error| over the calls with an anchor)',
          columns: [
            'source',
            'sessions',
            'calls (anchored)',
            'median',
            'p95',
            'first after compaction',
            'uncalibrated median',
            'uncalibrated p95',
            'uncalibrated first after compaction',
          ],
          rows,
        },
        {
          title: 'Claude calibration factor per estimator (reported ÷ estimated growth, Claude Code and pi sessions)',
          columns: ['estimator', 'measured', 'recorded'],
          rows: factorRows,
        },
      ],
      notes: [
        'error = (estimate − reported) ÷ reported for each model call, the estimate made before the call with only earlier calls known; median and p95 are nearest-rank over |error|.',
        'A call has an anchor when an earlier call of the same model in its session reported its input; the first call of each session and model has none (its unseen fixed part cannot be known) and is left out of the figures.',
        'uncalibrated: the anchored meter before calibration, the latest reported count plus raw estimates of nodes appended since minus those shadowed since, measured on the same calls in the same run.',
        'Codex: the larger session’s text is redacted by its publisher and both bill encrypted reasoning the transcript does not show, so the estimates have little to scale; it is reported, with no bar.',
      ],
      figures,
    };
  },
};

await runIfMain(import.meta.url, benchmark);
