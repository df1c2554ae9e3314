// The meter against the provider, per model call of a session, for events tune already holds:
// the same calibrated meter `stats --calls`, `diff` and the page use (compaction's
// session-call-meter), so that all of them report the same error.

import { type CallsReport, COMPACTION_POLICY, createSessionCallMeter, sessionMeterSettings } from '../compaction/index.js';
import type { LogEvent } from '../log/event.js';
import { summarizeCallErrors } from '../meter/index.js';

export type SessionCallErrors = Omit<CallsReport, 'sessionId'>;

type Pages = AsyncIterable<readonly LogEvent[]> | Iterable<readonly LogEvent[]>;

/** The meter's figures for each model call; `pages` is called twice (the policies first, then the calls). */
export async function meterSessionCallErrors(pages: () => Pages): Promise<SessionCallErrors> {
  const policies: LogEvent[] = [];
  for await (const page of pages()) for (const event of page) if (event.type === COMPACTION_POLICY) policies.push(event);
  const settings = sessionMeterSettings(policies);
  const meter = await createSessionCallMeter(settings);
  for await (const page of pages()) for (const event of page) meter.apply(event);
  return {
    estimator: settings.estimator,
    calls: meter.calls,
    offSurfaceCalls: meter.offSurfaceCalls,
    summary: summarizeCallErrors(meter.calls),
  };
}
