// How long a summary aims to be. maxSummaryTokens is a ceiling, never a target: a summary
// aims at a share of the new text it summarizes, with a floor (a short range still gets its
// requests, files and answers) and a cap (a long one is still a page, as peers' model summaries
// are: pi's model wrote 1,139 tokens for its first compaction of a real session). Lines from an earlier summary
// that a merge keeps come on top of the target; the ceiling bounds the whole.

export const SUMMARY_TARGET = {
  /** Of the new text's tokens. */
  share: 0.05,
  floor: 256,
  cap: 1_536,
  /**
   * Where a summary that merges earlier ones stops growing: two pages. Past it the earlier
   * summaries' least useful lines go (files and identifiers last), so that on a long session a
   * summary stays far below maxSummaryTokens instead of filling it.
   */
  mergedCap: 3_072,
} as const;

/** min(maxSummaryTokens, clamp(round(newInputTokens × share), floor, cap)). */
export function summaryTargetTokens(newInputTokens: number, maxSummaryTokens: number): number {
  const aimed = Math.min(SUMMARY_TARGET.cap, Math.max(SUMMARY_TARGET.floor, Math.round(newInputTokens * SUMMARY_TARGET.share)));
  return Math.max(1, Math.min(Math.floor(maxSummaryTokens), aimed));
}
