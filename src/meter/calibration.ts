// Calibrating the meter on what providers count (SPEC §10). An estimator counts tokens its own
// way; a provider counts them with the model's tokenizer, and bills parts of the request a log
// never shows (the system prompt and tool definitions of another harness, say). Instead of
// mixing counted and estimated tokens, a calibrated measure scales every estimate by the ratio
// the provider's counts imply for this session and model, and carries the part of the request
// the estimates do not explain as one unseen block.

/** One model call as the meter saw it and as the provider counted it. */
export interface CalibrationPoint {
  /** The meter's uncalibrated estimate of the request: its surface and the fixed part it could see. */
  readonly estimate: number;
  /** The input tokens the provider reported for that request (the whole input, cache included). */
  readonly reported: number;
}

/** What a session's model calls by one model tell the meter. */
export interface CalibrationAnchor {
  /** The session's first call by this model that reported its input: it shows the unseen part best. */
  readonly first: CalibrationPoint;
  /** The latest such call: the measure is exact on the surface it was sent. */
  readonly latest: CalibrationPoint;
  /**
   * The share (0 to 1) of the latest call's surface estimate still on the surface now; 1 when
   * nothing it was sent has been shadowed since (the default).
   */
  readonly keptShare?: number;
}

export interface CalibratedTotal {
  /** The calibrated tokens of the request. */
  readonly total: number;
  /** The ratio applied to estimates: the session's, or the model family's factor. */
  readonly ratio: number;
  /** The tokens of the request no estimate accounts for (0 when unanchored). */
  readonly unseen: number;
  /** True when the total rests on a count the provider reported. */
  readonly anchored: boolean;
}

/**
 * A session's ratio stays within this factor of its model family's factor either way: a ratio
 * further off says that the estimates do not describe what was sent (redacted text, unseen
 * reasoning), not that the tokenizer differs that much.
 */
export const RATIO_SPREAD = 1.5;

/**
 * Below this many estimated tokens a request is mostly the unseen part, and the ratio its count
 * implies is noise; the family factor stands instead.
 */
export const MIN_RATIO_ESTIMATE = 2_048;

/** The ratio within RATIO_SPREAD of `factor`. */
export function clampRatio(ratio: number, factor: number): number {
  if (!Number.isFinite(ratio)) return factor;
  return Math.min(factor * RATIO_SPREAD, Math.max(factor / RATIO_SPREAD, ratio));
}

/**
 * The part of the first call's count that its calibrated estimate does not explain: the fixed
 * part of every request the log does not hold (a system prompt, tool definitions), never negative.
 * The first call is the one with the smallest surface, so the least of its count is estimate.
 */
export function unseenTokens(first: CalibrationPoint, factor: number): number {
  return Math.max(0, first.reported - factor * first.estimate);
}

/**
 * The ratio the latest count implies once the unseen part is set aside: reported tokens per
 * estimated token, clamped; the family factor when the request is too small to say.
 */
export function impliedRatio(latest: CalibrationPoint, unseen: number, factor: number): number {
  const explained = latest.reported - unseen;
  if (latest.estimate < MIN_RATIO_ESTIMATE || explained <= 0) return factor;
  return clampRatio(explained / latest.estimate, factor);
}

/**
 * The calibrated tokens of a request whose uncalibrated estimate is `estimate`.
 *
 * - Without an anchor: the estimate times the model family's `factor`.
 * - With one: U, the unseen fixed part (unseenTokens of the first call), and r, the session's
 *   ratio (impliedRatio of the latest call). The latest count is then explained as
 *   r × its estimate + u, where u = reported − r × estimate is what was unseen as of that call.
 * - u ≥ U: u holds the fixed part U and, beyond it, unseen content that grew with the
 *   conversation (reasoning a provider bills but a transcript does not show, text a source
 *   redacted; it appears when r is clamped). That growth belongs to the surface it grew with,
 *   so it is kept in proportion to the share of the latest call's surface still current:
 *   total = U + (u − U) × keptShare + r × estimate. With nothing shadowed since, that is
 *   exactly the reported count on the surface the call was sent; after a compaction the
 *   shadowed nodes take their calibrated price off, and their unseen growth with them.
 * - 0 ≤ u < U: the fixed part is smaller than the first call suggested; total = u + r × estimate.
 * - u < 0 (the latest count is below r × its estimate): the count is spread over the estimate
 *   alone, total = estimate × reported ÷ its estimate, still exact on the call's surface.
 */
export function calibrate(estimate: number, factor: number, anchor?: CalibrationAnchor): CalibratedTotal {
  if (anchor === undefined || !isCount(anchor.latest.reported) || !isCount(anchor.first.reported)) {
    return { total: Math.ceil(factor * estimate), ratio: factor, unseen: 0, anchored: false };
  }
  const { latest } = anchor;
  const fixedUnseen = unseenTokens(anchor.first, factor);
  const ratio = impliedRatio(latest, fixedUnseen, factor);
  const unseenThen = latest.reported - ratio * latest.estimate;
  if (unseenThen >= fixedUnseen) {
    const kept = Math.min(1, Math.max(0, anchor.keptShare ?? 1));
    const unseen = fixedUnseen + (unseenThen - fixedUnseen) * kept;
    return { total: Math.round(unseen + ratio * estimate), ratio, unseen: Math.round(unseen), anchored: true };
  }
  if (unseenThen >= 0) return { total: Math.round(unseenThen + ratio * estimate), ratio, unseen: Math.round(unseenThen), anchored: true };
  // latest.estimate > 0 here: a negative unseen part needs ratio × estimate > reported ≥ 0.
  const proportional = latest.reported / latest.estimate;
  return { total: Math.round(proportional * estimate), ratio: proportional, unseen: 0, anchored: true };
}

function isCount(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}
