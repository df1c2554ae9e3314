// The error of a configuration that cannot work for a given window and reserve: no message
// budget, no pressure budget, or a retained tail not below the threshold. It carries the
// numbers and the largest value of the offending key that would work, so that a caller (or a
// test) can offer it back.

import { ConfigError } from '../../log/errors.js';

/** The budget that failed. */
export type PolicyBudgetProblem = 'no-message-budget' | 'no-pressure-budget' | 'retain-not-below-threshold';

export interface PolicyBudgetNumbers {
  readonly contextWindow: number;
  readonly reserve: number;
  readonly messageBudget: number;
  readonly headroomTokens: number;
  readonly pressureBudget: number;
  /** floor(min(W × thresholdRatio, pressureBudget)); null when the pressure budget is not positive. */
  readonly threshold: number | null;
  readonly retain: number | null;
}

export class PolicyBudgetError extends ConfigError {
  readonly problem: PolicyBudgetProblem;
  readonly numbers: PolicyBudgetNumbers;
  /** The largest value of `key` that would resolve, all else unchanged; null when none would. */
  readonly largestWorkingValue: number | null;

  constructor(
    problem: PolicyBudgetProblem,
    key: string,
    message: string,
    numbers: PolicyBudgetNumbers,
    largestWorkingValue: number | null,
  ) {
    super(key, message);
    this.problem = problem;
    this.numbers = numbers;
    this.largestWorkingValue = largestWorkingValue;
  }
}
