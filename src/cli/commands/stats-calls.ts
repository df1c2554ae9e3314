// `shadowlog stats <id> --calls`: every model call of a session, with what the calibrated meter
// estimated for it at the time (knowing only the calls before it), what the provider reported,
// and the error; then the median and 95th percentile of the error. docs/meter.md explains it.
// A proxied call whose messages are not on the session's surface is listed in its place with
// no estimate: pricing the session's surface for it would price messages it did not send.

import { SessionNotFoundError } from '../../log/index.js';
import type { CallErrorSummary, EstimatorName, MeteredCallRow, OffSurfaceCallRow } from '../../meter/index.js';
import type { LogStore } from '../../store/index.js';
import { meterSessionCallErrors } from '../../tune/index.js';
import type { CommandContext } from '../context.js';

export interface CallsReport {
  readonly sessionId: string;
  /** The estimator the calls were measured with: the session's recorded policy's, else the default. */
  readonly estimator: EstimatorName;
  readonly calls: readonly MeteredCallRow[];
  /** Calls whose messages are not on the session's surface: not priced, listed with why and what the provider reported. */
  readonly offSurfaceCalls: readonly OffSurfaceCallRow[];
  readonly summary: CallErrorSummary;
}

/** The meter's figures for each model call of `sessionId`. */
export async function meterSessionCalls(store: LogStore, sessionId: string): Promise<CallsReport> {
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const { estimator, calls, offSurfaceCalls, summary } = await meterSessionCallErrors(() => store.read(sessionId));
  return { sessionId, estimator, calls, offSurfaceCalls, summary };
}

export async function statsCallsCommand(context: CommandContext, sessionId: string): Promise<number> {
  const report = await meterSessionCalls(await context.store(), sessionId);
  if (context.json) {
    context.printJson(report);
    return 0;
  }
  const offSurface = report.offSurfaceCalls.length;
  const total = report.calls.length + offSurface;
  context.print(
    `${sessionId}: ${total} model calls, measured with ${report.estimator}, calibrated${offSurface === 0 ? '' : `; ${offSurface} not on the session's surface, not priced`}`,
  );
  context.print('TURN  STEP  MODEL                         ESTIMATED   REPORTED    ERROR');
  const rows: Array<MeteredCallRow | OffSurfaceCallRow> = [...report.calls, ...report.offSurfaceCalls].sort((a, b) => a.seq - b.seq);
  for (const call of rows) {
    const priced = 'estimatedTokens' in call;
    const notes = priced
      ? [call.anchored ? '' : 'no anchor yet', call.afterCompaction ? 'first after a compaction' : ''].filter(Boolean).join(', ')
      : "not on the session's surface, not priced; replay lists what its body held";
    context.print(
      [
        String(call.turn).padStart(4),
        String(call.step).padStart(5),
        ` ${call.model.slice(0, 28).padEnd(28)}`,
        (priced ? String(call.estimatedTokens) : '–').padStart(10),
        (call.reportedInputTokens === null ? '–' : String(call.reportedInputTokens)).padStart(10),
        formatError(priced ? call.error : null).padStart(9) + (notes === '' ? '' : `  (${notes})`),
      ].join(' '),
    );
  }
  const { summary } = report;
  context.print(
    `${summary.measured}${offSurface === 0 ? '' : ' priced'} calls reported their input; over the ${summary.anchored} with an anchor: median |error| ${formatShare(summary.medianAbsError)}, p95 ${formatShare(summary.p95AbsError)}, max ${formatShare(summary.maxAbsError)}`,
  );
  if (summary.afterCompactionErrors.length > 0) {
    context.print(`first calls after a compaction: ${summary.afterCompactionErrors.map((error) => formatError(error)).join(', ')}`);
  }
  return 0;
}

function formatError(error: number | null): string {
  if (error === null) return '–';
  const percent = (error * 100).toFixed(1);
  if (Number(percent) === 0) return '0.0 %';
  return `${error > 0 ? '+' : ''}${percent} %`;
}

function formatShare(share: number | null): string {
  return share === null ? '–' : `${(share * 100).toFixed(1)} %`;
}
