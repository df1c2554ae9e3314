// The output budget of a model summary request (SPEC §7 step 4): never more than the policy's
// maxSummaryTokens, never more than the summarizer model's output limit, and never so much that
// the request's input tokens and its max_tokens together pass the model's context window, which
// a small local server refuses. A request that cannot hold even the summary's target is refused
// before it is sent, with the numbers that conflict.

import { ShadowlogError } from '../log/errors.js';

export interface SummaryBudgetInput {
  readonly maxSummaryTokens: number;
  /** The summarizer model's output limit (its max output tokens). */
  readonly outputLimit: number;
  readonly contextWindow: number;
  /** The summary request's input tokens, by the session's meter. */
  readonly inputTokens: number;
  /** The size the summary aims at: less room than this and the answer would be cut. */
  readonly targetTokens: number;
  readonly model: string;
}

/** min(maxSummaryTokens, outputLimit, contextWindow − inputTokens); refused below the target. */
export function summaryOutputBudget(input: SummaryBudgetInput): number {
  const ceiling = summaryCeiling(input);
  const room = input.contextWindow - input.inputTokens;
  if (room < Math.min(input.targetTokens, ceiling)) throw new SummaryBudgetError(input, room);
  return Math.max(1, Math.min(ceiling, room));
}

/** The most a summary may be given before the window is counted: the policy's and the model's limits. */
export function summaryCeiling(input: Pick<SummaryBudgetInput, 'maxSummaryTokens' | 'outputLimit'>): number {
  return Math.max(1, Math.floor(Math.min(input.maxSummaryTokens, input.outputLimit)));
}

/** A summary request that would not fit the summarizer model's window: refused before it is sent. */
export class SummaryBudgetError extends ShadowlogError {
  readonly contextWindow: number;
  readonly inputTokens: number;
  readonly targetTokens: number;
  readonly maxSummaryTokens: number;
  readonly outputLimit: number;
  readonly room: number;

  constructor(input: SummaryBudgetInput, room: number) {
    super(
      'SUMMARY_OVER_WINDOW',
      `the summary request for ${input.model} would not fit its context window: ${input.inputTokens} input tokens (the range to summarize, by the session's meter) + at least ${input.targetTokens} output tokens (the summary's target; maxSummaryTokens ${input.maxSummaryTokens}, output limit ${input.outputLimit}) > the ${input.contextWindow}-token window (room for ${Math.max(0, room)}); nothing was sent. Compact earlier so that ranges are smaller (a lower thresholdRatio or a larger headroomTokens), name a summarizer model with a larger window (summarizer in the policy), or give the model's true window (--context-window) if it is larger`,
    );
    this.contextWindow = input.contextWindow;
    this.inputTokens = input.inputTokens;
    this.targetTokens = input.targetTokens;
    this.maxSummaryTokens = input.maxSummaryTokens;
    this.outputLimit = input.outputLimit;
    this.room = room;
  }
}
