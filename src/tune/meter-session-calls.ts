// The meter against the provider, per model call of a session: what the calibrated meter
// estimated for each call (knowing only the calls before it), what the provider reported, and the
// error. One function for `stats --calls` and `tune`, so that both report the same error.

import { COMPACTION_EVENT_TYPES, COMPACTION_POLICY, type CompactionPolicyData } from '../compaction/index.js';
import type { LogEvent } from '../log/event.js';
import { EventTypeRegistry } from '../log/event-types.js';
import {
  type CallErrorSummary,
  CallMeter,
  calibrationFactorOf,
  createEstimator,
  DEFAULT_ESTIMATOR,
  type EstimatorName,
  isEstimatorName,
  type MeteredCallRow,
  type OffSurfaceCallRow,
  summarizeCallErrors,
} from '../meter/index.js';

export interface SessionCallErrors {
  /** The estimator the calls were measured with: the session's recorded policy's, else the default. */
  readonly estimator: EstimatorName;
  readonly calls: readonly MeteredCallRow[];
  /** Calls whose messages are not on the session's surface: not priced, listed with why and what the provider reported. */
  readonly offSurfaceCalls: readonly OffSurfaceCallRow[];
  readonly summary: CallErrorSummary;
}

type Pages = AsyncIterable<readonly LogEvent[]> | Iterable<readonly LogEvent[]>;

/** The meter's figures for each model call; `pages` is called twice (the policies first, then the calls). */
export async function meterSessionCallErrors(pages: () => Pages): Promise<SessionCallErrors> {
  // First pass: the policies the session recorded, whose estimator and calibration factor the
  // compaction meter used; a model no policy names gets its family's measured factor.
  const factors = new Map<string, number>();
  let estimator: EstimatorName = DEFAULT_ESTIMATOR;
  for await (const page of pages()) {
    for (const event of page) {
      if (event.type !== COMPACTION_POLICY) continue;
      const policy = event.data as unknown as CompactionPolicyData;
      if (isEstimatorName(policy.estimator)) estimator = policy.estimator;
      const factor = policy.calibration?.factor;
      if (typeof factor === 'number' && Number.isFinite(factor) && factor > 0) factors.set(modelKey(policy.provider, policy.model), factor);
    }
  }
  const meter = new CallMeter({
    estimator: await createEstimator(estimator),
    factorOf: (provider, model) => factors.get(modelKey(provider, model)) ?? calibrationFactorOf(provider, model, estimator),
    fold: { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) },
  });
  for await (const page of pages()) for (const event of page) meter.apply(event);
  return { estimator, calls: meter.calls, offSurfaceCalls: meter.offSurfaceCalls, summary: summarizeCallErrors(meter.calls) };
}

function modelKey(provider: string, model: string): string {
  return JSON.stringify([provider, model]);
}
