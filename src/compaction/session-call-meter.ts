// The calibrated meter of a session's calls, as `stats --calls`, `diff` and the audit page use
// it: the estimator and calibration factors the session's recorded policies name (a model no
// policy names gets its family's measured factor), and the meter replayed call by call, each
// call estimated knowing only the calls before it (meter/call-meter.ts).

import { SessionNotFoundError } from '../log/errors.js';
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
import type { LogStore } from '../store/log-store.js';
import { COMPACTION_EVENT_TYPES, COMPACTION_POLICY, type CompactionPolicyData } from './event-types.js';

export interface CallsReport {
  readonly sessionId: string;
  /** The estimator the calls were measured with: the session's recorded policy's, else the default. */
  readonly estimator: EstimatorName;
  readonly calls: readonly MeteredCallRow[];
  /** Calls whose messages are not on the session's surface: not priced, listed with why and what the provider reported. */
  readonly offSurfaceCalls: readonly OffSurfaceCallRow[];
  readonly summary: CallErrorSummary;
}

/** What the session's recorded policies say the meter is: its estimator and each model's calibration factor. */
export interface SessionMeterSettings {
  readonly estimator: EstimatorName;
  /** By modelKey(provider, model). */
  readonly factors: ReadonlyMap<string, number>;
}

/** Reads the settings from events (all of the session's, or those read so far). */
export function sessionMeterSettings(events: Iterable<LogEvent>): SessionMeterSettings {
  const factors = new Map<string, number>();
  let estimator: EstimatorName = DEFAULT_ESTIMATOR;
  for (const event of events) {
    if (event.type !== COMPACTION_POLICY) continue;
    const policy = event.data as unknown as CompactionPolicyData;
    if (isEstimatorName(policy.estimator)) estimator = policy.estimator;
    const factor = policy.calibration?.factor;
    if (typeof factor === 'number' && Number.isFinite(factor) && factor > 0) factors.set(modelKey(policy.provider, policy.model), factor);
  }
  return { estimator, factors };
}

/** The settings of a stored session (one read of it). */
export async function readSessionMeterSettings(store: LogStore, sessionId: string): Promise<SessionMeterSettings> {
  const policies: LogEvent[] = [];
  for await (const page of store.read(sessionId)) for (const event of page) if (event.type === COMPACTION_POLICY) policies.push(event);
  return sessionMeterSettings(policies);
}

/** A meter to apply the session's events to, in seq order. */
export async function createSessionCallMeter(settings: SessionMeterSettings): Promise<CallMeter> {
  const { estimator, factors } = settings;
  return new CallMeter({
    estimator: await createEstimator(estimator),
    factorOf: (provider, model) => factors.get(modelKey(provider, model)) ?? calibrationFactorOf(provider, model, estimator),
    fold: { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) },
  });
}

/** The meter's figures for each model call of `sessionId` (what `stats --calls` prints). */
export async function meterSessionCalls(store: LogStore, sessionId: string): Promise<CallsReport> {
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const settings = await readSessionMeterSettings(store, sessionId);
  const meter = await createSessionCallMeter(settings);
  for await (const page of store.read(sessionId)) for (const event of page) meter.apply(event);
  return {
    sessionId,
    estimator: settings.estimator,
    calls: meter.calls,
    offSurfaceCalls: meter.offSurfaceCalls,
    summary: summarizeCallErrors(meter.calls),
  };
}

function modelKey(provider: string, model: string): string {
  return JSON.stringify([provider, model]);
}
