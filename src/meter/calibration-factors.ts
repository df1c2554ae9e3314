// Calibration factors per model family: how many tokens the family's tokenizer counts per token
// an estimator estimates. Measured on the shared corpus sessions (real Claude Code and pi
// sessions with the provider's reported usage) by `npm run bench -- meter-calibration`, which
// prints the figures below; test/meter/calibration-corpus.test.ts measures them again and fails
// when a figure here drifts from the measurement. A configuration overrides them per model.

import type { MeteredCallRow } from './call-meter.js';
import type { EstimatorName } from './token-estimator.js';

export type ModelFamily = 'claude' | 'openai' | 'other';

/**
 * Claude, measured (growth ratio over the Claude Code and pi corpus sessions, see growthRatio).
 * OpenAI: o200k_base is the tokenizer of GPT-4o, GPT-4.1, GPT-5 and the o-series, so it counts
 * exactly (1); the corpus cannot measure the heuristics against OpenAI's counts (the Codex
 * sessions' text is redacted, or their encrypted reasoning is billed unseen), so they get 1 too.
 */
export const CALIBRATION_FACTORS: Readonly<Record<ModelFamily, Readonly<Record<EstimatorName, number>>>> = {
  claude: { chars4: 1.45, 'script-aware': 1.29, o200k_base: 1.28, cl100k_base: 1.28, llama3: 1.28 },
  openai: { chars4: 1, 'script-aware': 1, o200k_base: 1, cl100k_base: 1, llama3: 1 },
  other: { chars4: 1, 'script-aware': 1, o200k_base: 1, cl100k_base: 1, llama3: 1 },
};

/** The family of a model, from its provider and id ('other' when neither says). */
export function modelFamilyOf(provider: string, model: string): ModelFamily {
  if (provider === 'anthropic' || /claude/i.test(model)) return 'claude';
  if (provider === 'openai' || /^(?:openai\/)?(?:gpt-|o\d|codex|chatgpt)/i.test(model)) return 'openai';
  return 'other';
}

/** The calibration factor of a model under an estimator (1 for a family nobody measured). */
export function calibrationFactorOf(provider: string, model: string, estimator: EstimatorName): number {
  return CALIBRATION_FACTORS[modelFamilyOf(provider, model)][estimator];
}

/** The smallest growth of a stretch of calls, in estimated tokens, that growthRatio uses. */
export const MIN_GROWTH_ESTIMATE = 10_000;

/**
 * The measured factor of a family: over each stretch of one session's calls by one model
 * between compactions, the growth of the reported input from the stretch's first call to its
 * last, divided by the growth of the uncalibrated estimate (ΣΔreported ÷ ΣΔestimate over the
 * stretches that grew at least MIN_GROWTH_ESTIMATE). Differences cancel the fixed part the
 * transcripts do not hold; stretches end at compactions because a harness adds unseen context
 * there. Undefined when no stretch grew enough. `sessions` holds each session's rows apart.
 */
export function growthRatio(sessions: ReadonlyArray<readonly MeteredCallRow[]>): number | undefined {
  let reported = 0;
  let estimated = 0;
  for (const rows of sessions) {
    const stretches = new Map<string, { first: MeteredCallRow; last: MeteredCallRow }>();
    const close = (key: string) => {
      const stretch = stretches.get(key);
      if (stretch === undefined) return;
      const grew = stretch.last.uncalibratedTokens - stretch.first.uncalibratedTokens;
      if (grew >= MIN_GROWTH_ESTIMATE) {
        reported += (stretch.last.reportedInputTokens as number) - (stretch.first.reportedInputTokens as number);
        estimated += grew;
      }
      stretches.delete(key);
    };
    for (const row of rows) {
      if (row.afterCompaction) for (const key of [...stretches.keys()]) close(key);
      if (row.reportedInputTokens === null) continue;
      const key = JSON.stringify([row.provider, row.model]);
      const stretch = stretches.get(key);
      if (stretch === undefined) stretches.set(key, { first: row, last: row });
      else stretch.last = row;
    }
    for (const key of [...stretches.keys()]) close(key);
  }
  return estimated === 0 ? undefined : reported / estimated;
}
