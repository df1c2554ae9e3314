// The meter replayed over a session's log, call by call: what the calibrated meter estimated
// for each model call at the time it was made (knowing only the calls before it), next to what
// the provider reported. `shadowlog stats --calls` prints it; the calibration tests and bench
// measure the meter's error with it. A proxied call off the surface (log/off-surface.ts) sent
// messages that are not on the session's surface: the meter cannot price it, so it is listed
// apart, with what the provider reported, and is no anchor for the calls after it.

import type { LogEvent } from '../log/event.js';
import { isSurfaceType } from '../log/event.js';
import { dataOf } from '../log/event-data.js';
import { offSurfaceReason } from '../log/off-surface.js';
import { SurfaceFold, type SurfaceFoldOptions } from '../log/surface-fold.js';
import { isReplaceOp } from '../log/surface-op.js';
import { type CalibrationPoint, calibrate } from './calibration.js';
import { SurfaceMeter } from './measure.js';
import type { TokenEstimator } from './token-estimator.js';

export interface MeteredCallRow {
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  /** The seq of the call's model/request. */
  readonly seq: number;
  /** The calibrated meter's estimate of the call's input when it was made. */
  readonly estimatedTokens: number;
  /** The same before calibration: the surface's estimate and the fixed part the log shows. */
  readonly uncalibratedTokens: number;
  /** The input tokens the provider reported; null when the call reported none (it failed, or the source did not say). */
  readonly reportedInputTokens: number | null;
  /** (estimated − reported) ÷ reported, rounded to 4 places; null without a reported count. */
  readonly error: number | null;
  /** True when the estimate rested on an earlier call of the same model that reported its input. */
  readonly anchored: boolean;
  /** True for the first call after a compaction (a replacement other than a pruned tool result). */
  readonly afterCompaction: boolean;
}

/** A model call whose messages are not on the session's surface: not priced, since its surface is unknown to the meter. */
export interface OffSurfaceCallRow {
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly seq: number;
  /** Why its messages are not on the surface (log/off-surface.ts). */
  readonly reason: string;
  /** The input tokens the provider reported for it; null when none was recorded. */
  readonly reportedInputTokens: number | null;
}

export interface CallMeterOptions {
  readonly estimator: TokenEstimator;
  /** The calibration factor of a model (calibrationFactorOf, or a configured one). */
  readonly factorOf: (provider: string, model: string) => number;
  /** The event types the log holds besides the core ones (compaction's). */
  readonly fold?: SurfaceFoldOptions;
}

/** The nodes a call was sent and their estimated prices then. */
interface AnchorSurface {
  readonly prices: ReadonlyMap<number, number>;
  readonly estimate: number;
}

interface PendingCall {
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly seq: number;
  readonly uncalibrated: number;
  readonly surface: AnchorSurface;
  readonly estimated: number;
  readonly anchored: boolean;
  readonly afterCompaction: boolean;
}

export class CallMeter {
  private readonly fold: SurfaceFold;
  private readonly meter: SurfaceMeter;
  /** Per provider and model: the first and latest calls that reported their input, and the latest's surface. */
  private readonly anchors = new Map<string, { first: CalibrationPoint; latest: CalibrationPoint; surface: AnchorSurface }>();
  private readonly rows: MeteredCallRow[] = [];
  private readonly offSurfaceRows: OffSurfaceCallRow[] = [];
  private pending: PendingCall | undefined;
  private pendingOffSurface: Omit<OffSurfaceCallRow, 'reportedInputTokens'> | undefined;
  private compactedSinceCall = false;

  constructor(private readonly options: CallMeterOptions) {
    this.fold = new SurfaceFold(options.fold ?? {});
    this.meter = new SurfaceMeter(options.estimator);
  }

  /** Every model call so far on the session's surface, in log order. */
  get calls(): readonly MeteredCallRow[] {
    return this.rows;
  }

  /** The model calls so far whose messages are not on the session's surface, in log order. */
  get offSurfaceCalls(): readonly OffSurfaceCallRow[] {
    return this.offSurfaceRows;
  }

  /** Applies the next event of the session (in seq order; the fold checks it). */
  apply(event: LogEvent): void {
    this.fold.apply(event);
    if (isSurfaceType(event.type) && isReplaceOp(event.surfaceOp) && event.type !== 'tool/result') this.compactedSinceCall = true;
    if (event.type === 'model/request') this.startCall(event);
    else if (event.type === 'model/error') this.finishCall(null);
    else if (event.type === 'assistant/message') this.finishCall(dataOf(event, 'assistant/message').usage?.inputTokens ?? null);
    else if (event.type === 'model/unrecorded-answer') this.finishCall(dataOf(event, 'model/unrecorded-answer').usage?.inputTokens ?? null);
  }

  private startCall(event: LogEvent): void {
    this.finishCall(null);
    const data = dataOf(event, 'model/request');
    const reason = offSurfaceReason(data);
    if (reason !== undefined) {
      this.pendingOffSurface = { turn: data.turn, step: data.step, provider: data.provider, model: data.model, seq: event.seq, reason };
      return;
    }
    // The fold checked that the request's surface is the surface here, so this is what was sent.
    const nodes = this.fold.toArray();
    const measurement = this.meter.measure(nodes);
    this.meter.trimTo(nodes);
    const surface = measurement.estimate;
    const prices = new Map<number, number>();
    for (const price of measurement.nodes) prices.set(price.seq, price.tokens);
    // A call the spine sent recorded its estimate with the fixed part included; the fixed part
    // is what that estimate holds beyond the surface. An imported call has none: its fixed part
    // is unseen, and calibration finds it in the provider's counts.
    const fixed = data.estimatedTokens === undefined ? 0 : Math.max(0, data.estimatedTokens - surface);
    const uncalibrated = surface + fixed;
    const key = modelKey(data.provider, data.model);
    const anchor = this.anchors.get(key);
    const calibrated = calibrate(
      uncalibrated,
      this.options.factorOf(data.provider, data.model),
      anchor === undefined ? undefined : { ...anchor, keptShare: keptShare(anchor.surface, prices) },
    );
    this.pending = {
      turn: data.turn,
      step: data.step,
      provider: data.provider,
      model: data.model,
      seq: event.seq,
      uncalibrated,
      surface: { prices, estimate: surface },
      estimated: calibrated.total,
      anchored: calibrated.anchored,
      afterCompaction: this.compactedSinceCall,
    };
    this.compactedSinceCall = false;
  }

  private finishCall(reported: number | null): void {
    const counted = reported !== null && Number.isSafeInteger(reported) && reported > 0 ? reported : null;
    const offSurface = this.pendingOffSurface;
    if (offSurface !== undefined) {
      this.pendingOffSurface = undefined;
      this.offSurfaceRows.push({ ...offSurface, reportedInputTokens: counted });
      return;
    }
    const call = this.pending;
    if (call === undefined) return;
    this.pending = undefined;
    if (counted !== null) {
      const key = modelKey(call.provider, call.model);
      const point = { estimate: call.uncalibrated, reported: counted };
      this.anchors.set(key, { first: this.anchors.get(key)?.first ?? point, latest: point, surface: call.surface });
    }
    this.rows.push({
      turn: call.turn,
      step: call.step,
      provider: call.provider,
      model: call.model,
      seq: call.seq,
      estimatedTokens: call.estimated,
      uncalibratedTokens: call.uncalibrated,
      reportedInputTokens: counted,
      error: counted === null ? null : Math.round(((call.estimated - counted) / counted) * 10_000) / 10_000,
      anchored: call.anchored,
      afterCompaction: call.afterCompaction,
    });
  }
}

/** The share of an anchor's surface estimate whose nodes are still on the surface (`current`: seq → price). */
function keptShare(anchor: AnchorSurface, current: ReadonlyMap<number, number>): number {
  if (anchor.estimate === 0) return 1;
  let kept = 0;
  for (const [seq, price] of anchor.prices) if (current.has(seq)) kept += price;
  return kept / anchor.estimate;
}

function modelKey(provider: string, model: string): string {
  return JSON.stringify([provider, model]);
}

export interface CallErrorSummary {
  /** Model calls with a reported input count. */
  readonly measured: number;
  /** Of those, calls whose estimate had an anchor (every call but the first of its model). */
  readonly anchored: number;
  /** Over the anchored calls: the median and 95th percentile of |error| (nearest rank); null with none. */
  readonly medianAbsError: number | null;
  readonly p95AbsError: number | null;
  readonly maxAbsError: number | null;
  /** The errors of the first calls after a compaction, in log order. */
  readonly afterCompactionErrors: readonly number[];
}

/** The error figures of `rows` (rows of CallMeter, possibly of several sessions). */
export function summarizeCallErrors(rows: readonly MeteredCallRow[]): CallErrorSummary {
  const measured = rows.filter((row) => row.error !== null);
  const anchored = measured.filter((row) => row.anchored);
  const errors = anchored.map((row) => Math.abs(row.error as number)).sort((a, b) => a - b);
  return {
    measured: measured.length,
    anchored: anchored.length,
    medianAbsError: nearestRank(errors, 0.5),
    p95AbsError: nearestRank(errors, 0.95),
    maxAbsError: errors.length === 0 ? null : (errors[errors.length - 1] as number),
    afterCompactionErrors: anchored.filter((row) => row.afterCompaction).map((row) => row.error as number),
  };
}

/** The nearest-rank percentile of ascending `sorted`: the smallest value with at least p of them at or below it. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}
