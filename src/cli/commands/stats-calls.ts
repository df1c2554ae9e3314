// `shadowlog stats <id> --calls`: every model call of a session, with what the calibrated meter
// estimated for it at the time (knowing only the calls before it), what the provider reported,
// and the error; then the median and 95th percentile of the error. docs/meter.md explains it.
// A proxied call whose messages are not on the session's surface is listed in its place with
// no estimate: pricing the session's surface for it would price messages it did not send.

import { meterSessionCalls } from '../../compaction/index.js';
import { assertSessionId } from '../../log/index.js';
import {
  type CallCost,
  CostLedger,
  type MeteredCallRow,
  type OffSurfaceCallRow,
  type PriceTable,
  type SessionCost,
} from '../../meter/index.js';
import { type LogStore, resolveSessionId } from '../../store/index.js';
import type { CommandContext } from '../context.js';
import { pricesOption } from '../price-option.js';

/** What each call cost at `prices`, by the seq of its model/request. */
async function costsOfCalls(
  store: LogStore,
  sessionId: string,
  prices: PriceTable,
): Promise<{ calls: Map<number, CallCost>; summary: SessionCost }> {
  const ledger = new CostLedger(prices);
  for await (const page of store.read(sessionId)) for (const event of page) ledger.apply(event);
  const summary = ledger.summary();
  return { calls: new Map(ledger.calls.map((call) => [call.seq, call])), summary };
}

export async function statsCallsCommand(context: CommandContext, given: string, options: { prices?: string } = {}): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const prices = pricesOption(context, options.prices);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const report = await meterSessionCalls(store, sessionId);
  const costs = await costsOfCalls(store, sessionId, prices);
  const costOf = (seq: number) => costs.calls.get(seq);
  if (context.json) {
    const withCost = <T extends { seq: number }>(row: T) => ({
      ...row,
      cost: costOf(row.seq)?.cost ?? null,
      unpriced: costOf(row.seq)?.unpriced ?? false,
    });
    context.printJson({
      ...report,
      calls: report.calls.map(withCost),
      offSurfaceCalls: report.offSurfaceCalls.map(withCost),
      cost: costs.summary,
    });
    return 0;
  }
  const offSurface = report.offSurfaceCalls.length;
  const total = report.calls.length + offSurface;
  context.print(
    `${sessionId}: ${total} model calls, measured with ${report.estimator}, calibrated${offSurface === 0 ? '' : `; ${offSurface} not on the session's surface, not estimated (their cost is what their providers reported)`}`,
  );
  context.print(`TURN  STEP  MODEL                         ESTIMATED   REPORTED    ERROR       COST (prices of ${prices.date})`);
  const rows: Array<MeteredCallRow | OffSurfaceCallRow> = [...report.calls, ...report.offSurfaceCalls].sort((a, b) => a.seq - b.seq);
  for (const call of rows) {
    const priced = 'estimatedTokens' in call;
    const notes = priced
      ? [call.anchored ? '' : 'no anchor yet', call.afterCompaction ? 'first after a compaction' : ''].filter(Boolean).join(', ')
      : "not on the session's surface, not estimated; replay lists what its body held";
    context.print(
      [
        String(call.turn).padStart(4),
        String(call.step).padStart(5),
        ` ${call.model.slice(0, 28).padEnd(28)}`,
        (priced ? String(call.estimatedTokens) : '–').padStart(10),
        (call.reportedInputTokens === null ? '–' : String(call.reportedInputTokens)).padStart(10),
        formatError(priced ? call.error : null).padStart(9),
        formatCallCost(costOf(call.seq)).padStart(10) + (notes === '' ? '' : `  (${notes})`),
      ].join(' '),
    );
  }
  const { summary } = report;
  context.print(
    `${summary.measured}${offSurface === 0 ? '' : ' priced'} calls reported their input; over the ${summary.anchored} with an anchor: median |error| ${formatShare(summary.medianAbsError)}, p95 ${formatShare(summary.p95AbsError)}, max ${formatShare(summary.maxAbsError)}`,
  );
  const spent = costs.summary;
  context.print(
    `cost: $${spent.total.total.toFixed(2)} for ${spent.pricedCalls} priced calls${spent.unpricedCalls > 0 ? `; ${spent.unpricedCalls} calls of ${spent.unpricedModels.join(', ')} unpriced (not in the price table), left out` : ''}`,
  );
  if (summary.afterCompactionErrors.length > 0) {
    context.print(`first calls after a compaction: ${summary.afterCompactionErrors.map((error) => formatError(error)).join(', ')}`);
  }
  return 0;
}

function formatCallCost(call: CallCost | undefined): string {
  if (call === undefined || call.usage === null) return '–';
  if (call.cost === null) return 'unpriced';
  return `$${call.cost.total.toFixed(4)}`;
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
