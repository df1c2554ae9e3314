// The errors resolvePolicy raises when a configuration cannot work for a window: each names
// the key at fault, shows the numbers of the SPEC §6 formula, and gives the largest value that
// works (or says that none does, and what to change instead).

import { decimalFraction, exactProductText, largestDecimalBelow } from './exact-ratio.js';
import { formatCount } from './format-count.js';
import { PolicyBudgetError, type PolicyBudgetNumbers } from './policy-budget-error.js';
import type { RetainSetting } from './policy-config.js';

/** The values in effect for one window, and the configuration paths they came from. */
export interface BudgetFacts {
  readonly contextWindow: number;
  readonly reserve: number;
  readonly messageBudget: number;
  readonly thresholdRatio: number;
  readonly headroomTokens: number;
  readonly headroomPath: string;
  readonly retainSetting: RetainSetting;
  readonly retainPath: string;
  /** floor(W × thresholdRatio), exactly. */
  readonly ratioTerm: number;
  /** The retained tail for this message budget (when it is positive). */
  readonly retain: number;
}

function numbers(facts: BudgetFacts, threshold: number | null, retain: number | null): PolicyBudgetNumbers {
  return {
    contextWindow: facts.contextWindow,
    reserve: facts.reserve,
    messageBudget: facts.messageBudget,
    headroomTokens: facts.headroomTokens,
    pressureBudget: facts.messageBudget - facts.headroomTokens,
    threshold,
    retain,
  };
}

function windowAndReserve(facts: BudgetFacts): string {
  return `with a context window W of ${formatCount(facts.contextWindow)} and a reserve of ${formatCount(facts.reserve)} completion tokens`;
}

/**
 * The largest reserve with which this configuration resolves for this window, or null. With
 * mb = W − reserve, it needs mb − headroom > retain(mb) and ratioTerm > retain(mb). For a
 * ratio n/d, mb − floor(mb·n/d) = ceil(mb·(d−n)/d), so the first holds from
 * mb = floor(headroom·d/(d−n)) + 1 up, and the second up to mb = ceil(ratioTerm·d/n) − 1.
 */
export function largestWorkingReserve(facts: BudgetFacts): number | null {
  const setting = facts.retainSetting;
  let smallestBudget: bigint;
  let largestBudget: bigint;
  if (setting.kind === 'tokens') {
    smallestBudget = BigInt(facts.headroomTokens) + BigInt(setting.tokens) + 1n;
    largestBudget = facts.ratioTerm > setting.tokens ? BigInt(facts.contextWindow) : -1n;
  } else {
    const { numerator, denominator } = decimalFraction(setting.ratio);
    smallestBudget = (BigInt(facts.headroomTokens) * denominator) / (denominator - numerator) + 1n;
    largestBudget = (BigInt(facts.ratioTerm) * denominator + numerator - 1n) / numerator - 1n;
  }
  if (largestBudget > BigInt(facts.contextWindow)) largestBudget = BigInt(facts.contextWindow);
  if (smallestBudget > largestBudget) return null;
  return facts.contextWindow - Number(smallestBudget);
}

function reserveAdvice(facts: BudgetFacts): string {
  const largest = largestWorkingReserve(facts);
  return largest === null ? '' : `, or reserve at most ${formatCount(largest)} completion tokens`;
}

/** W − reserve ≤ 0: no value of the compaction keys can help. */
export function noMessageBudget(facts: BudgetFacts): PolicyBudgetError {
  const largest = largestWorkingReserve(facts);
  const advice =
    largest === null
      ? `no reserve works with this configuration either; use a model with a larger context window, or lower headroomTokens and ${facts.retainPath}`
      : `the largest reserve that works with this configuration is ${formatCount(largest)}; lower the request's max output tokens to at most that, or use a model with a larger context window`;
  return new PolicyBudgetError(
    'no-message-budget',
    'reserve',
    `reserve ${formatCount(facts.reserve)} leaves no message budget: ${windowAndReserve(facts)}, ` +
      `messageBudget = W − reserve = ${formatCount(facts.messageBudget)}, and it must be above 0, so no headroomTokens value works; ${advice}`,
    numbers(facts, null, null),
    largest,
  );
}

/** messageBudget − headroomTokens ≤ 0. */
export function noPressureBudget(facts: BudgetFacts): PolicyBudgetError {
  const pressureBudget = facts.messageBudget - facts.headroomTokens;
  const subject =
    `${facts.headroomPath} ${formatCount(facts.headroomTokens)} leaves no pressure budget: ${windowAndReserve(facts)}, ` +
    `messageBudget = W − reserve = ${formatCount(facts.messageBudget)} and pressureBudget = messageBudget − headroomTokens = ` +
    `${formatCount(facts.messageBudget)} − ${formatCount(facts.headroomTokens)} = ${formatCount(pressureBudget)}, and it must be above 0. `;
  // The threshold must also stay above the retained tail, which does not depend on the headroom:
  // threshold = min(ratioTerm, messageBudget − headroom) > retain.
  const largest = facts.ratioTerm > facts.retain ? facts.messageBudget - facts.retain - 1 : -1;
  if (largest < 0) {
    const best = Math.min(facts.ratioTerm, facts.messageBudget);
    return new PolicyBudgetError(
      'no-pressure-budget',
      facts.headroomPath,
      `${subject}No headroomTokens value works here: even at 0 the threshold would be ${formatCount(best)}, ` +
        `not above the retained tail of ${formatCount(facts.retain)} tokens; lower ${facts.retainPath} first${reserveAdvice(facts)}`,
      numbers(facts, null, facts.retain),
      null,
    );
  }
  const formula =
    facts.retain === 0
      ? 'messageBudget − 1'
      : `messageBudget − retain − 1, so that the threshold stays above the retained tail of ${formatCount(facts.retain)} tokens`;
  return new PolicyBudgetError(
    'no-pressure-budget',
    facts.headroomPath,
    `${subject}The largest headroomTokens that works here is ${formatCount(largest)} (${formula}); ` +
      `set ${facts.headroomPath} to at most ${formatCount(largest)}${reserveAdvice(facts)}`,
    numbers(facts, null, facts.retain),
    largest,
  );
}

/** retain ≥ threshold, with a positive pressure budget. */
export function retainNotBelowThreshold(facts: BudgetFacts, threshold: number): PolicyBudgetError {
  const pressureBudget = facts.messageBudget - facts.headroomTokens;
  const setting = facts.retainSetting;
  const retainText =
    setting.kind === 'ratio'
      ? `retain = floor(messageBudget × retainRatio) = floor(${formatCount(facts.messageBudget)} × ${setting.ratio}) = ${formatCount(facts.retain)}`
      : `retain = retainTokens = ${formatCount(facts.retain)}`;
  const subject =
    `${facts.retainPath} ${setting.kind === 'ratio' ? setting.ratio : formatCount(setting.tokens)} keeps a tail that is not below the threshold: ` +
    `${windowAndReserve(facts)}, ${retainText}, and it must be below threshold = floor(min(W × thresholdRatio, pressureBudget)) = ` +
    `floor(min(${formatCount(exactProductText(facts.contextWindow, facts.thresholdRatio))}, ${formatCount(pressureBudget)})) = ${formatCount(threshold)}. `;
  const found = numbers(facts, threshold, facts.retain);
  if (threshold === 0) {
    return new PolicyBudgetError(
      'retain-not-below-threshold',
      facts.retainPath,
      `${subject}No retain value works: the threshold is 0 because W × thresholdRatio is below 1; raise thresholdRatio or use a larger context window`,
      found,
      null,
    );
  }
  if (setting.kind === 'tokens') {
    return new PolicyBudgetError(
      'retain-not-below-threshold',
      facts.retainPath,
      `${subject}The largest retainTokens that works here is ${formatCount(threshold - 1)}; set ${facts.retainPath} to at most ${formatCount(threshold - 1)}`,
      found,
      threshold - 1,
    );
  }
  // floor(messageBudget × x) < threshold exactly when x < threshold / messageBudget.
  const largest = largestDecimalBelow(threshold, facts.messageBudget);
  return new PolicyBudgetError(
    'retain-not-below-threshold',
    facts.retainPath,
    `${subject}The largest retainRatio with ${largest.places} decimal places that works here is ${largest.value}; ` +
      `set ${facts.retainPath} to at most ${largest.value}, or give retainTokens of at most ${formatCount(threshold - 1)} instead`,
    found,
    largest.value,
  );
}
