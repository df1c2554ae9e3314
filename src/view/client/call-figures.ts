/// <reference lib="dom" />
// A call's numbers as the page writes them: thousands separators, the calibrated meter's
// estimate beside the provider's report, cache reads and writes, the cost, and, where a figure
// is missing, why.

import type { CallView } from '../view-data.js';
import type { CallSummary } from './page-blocks.js';

/** One formatter for the page (toLocaleString makes one per call). */
const THOUSANDS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 178017 → "178,017". */
export function count(value: number): string {
  return THOUSANDS.format(Math.round(value));
}

/** A count and its noun agreeing in number, the figure written as given: "1 compaction", "2 compactions". */
export function counted(value: number, noun: string, plural = `${noun}s`, figure = String(value)): string {
  return `${figure} ${value === 1 ? noun : plural}`;
}

/** The tokens a timeline row shows: the reported input, else the estimate (~), else a dash; its title says both. */
export function rowTokens(call: CallSummary): { text: string; title: string } {
  const reported = call.inputTokens;
  const estimate = call.estimate;
  const estimated =
    estimate === null ? 'none' : `~${count(estimate)}${call.metered ? ' by the calibrated meter' : ' as the request recorded it'}`;
  const title = `${reported === null ? 'reported input: none' : `reported input ${count(reported)}`}; estimated: ${estimated}`;
  if (reported !== null) return { text: `${count(reported)} tok`, title };
  if (estimate !== null) return { text: `~${count(estimate)} tok`, title };
  return { text: '– tok', title };
}

function share(error: number): string {
  const percent = (error * 100).toFixed(1);
  return `${error > 0 ? '+' : ''}${percent} %`;
}

/** The meter's estimate with its basis, or why there is none. */
export function estimateText(call: CallView, estimator?: string): string {
  const metered = call.metered;
  if (metered !== undefined) {
    const basis = `by the calibrated meter${estimator === undefined ? '' : ` (${estimator})`}, as stats --calls gives it`;
    const anchor = metered.anchored ? 'anchored on an earlier reported call' : 'no anchor yet';
    const error = metered.error === null ? '' : `; ${share(metered.error)} against the reported input`;
    return `~${count(metered.estimatedTokens)} tokens ${basis}, ${anchor}${error}`;
  }
  const recorded = call.estimatedTokens === null ? '' : `~${count(call.estimatedTokens)} tokens as recorded with the request; `;
  if (call.unmetered !== undefined) return `${recorded}no meter estimate: ${call.unmetered}`;
  if (call.answerSeq === undefined && call.error === undefined && call.unrecordedAnswer === undefined) {
    return `${recorded}the meter gives its estimate when the call ends (no answer recorded yet)`;
  }
  return `${recorded === '' ? 'none' : recorded.slice(0, -2)}`;
}

/** What the provider reported, or why nothing. */
export function reportedText(call: CallView): string {
  if (call.usage === undefined) {
    if (call.unrecordedAnswer !== undefined) return 'none recorded with its answer';
    if (call.error !== undefined) return 'none: the call failed';
    if (call.answerSeq !== undefined) return 'none: the answer carries no usage (its source did not record it)';
    return 'no answer recorded (yet)';
  }
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = call.usage;
  const cache =
    cacheReadTokens === undefined && cacheWriteTokens === undefined
      ? ''
      : ` (of them ${count(cacheReadTokens ?? 0)} read from the cache, ${count(cacheWriteTokens ?? 0)} written to it)`;
  return `${count(inputTokens)} in${cache}, ${count(outputTokens)} out`;
}

/** The call's cost, or why it has none. */
export function costText(call: CallView, prices: { date: string } | null | undefined): string {
  const cost = call.cost;
  if (cost === undefined) {
    if (prices === null || prices === undefined) return 'not priced: the page was built without a price table';
    return call.usage === undefined ? 'unknown: no usage reported' : 'unknown';
  }
  if ('unknown' in cost) return `unknown: ${cost.unknown}`;
  const usd = cost.usd < 0.01 ? cost.usd.toFixed(4) : cost.usd.toFixed(3);
  return `$${usd} at list prices of ${prices?.date ?? '?'}`;
}
