// resolvePolicy: the trigger numbers of SPEC §6 for one model and window, with the model's
// policy applied. Called when a harness is constructed (so a configuration that cannot work is
// rejected before the first turn) and whenever the reserve of a request changes.

import { calibrationFactorOf, type ModelFamily, modelFamilyOf } from '../../meter/calibration-factors.js';
import type { EstimatorName } from '../../meter/token-estimator.js';
import type { StrategyName } from '../strategies/strategy.js';
import { noMessageBudget, noPressureBudget, retainNotBelowThreshold } from './budget-messages.js';
import { childPath, readInteger } from './config-checks.js';
import { floorTimes, smallestWindowWhereRatioDecides, timesAtMost } from './exact-ratio.js';
import type { CompactionPolicyConfig, ModelPolicy, RetainSetting } from './policy-config.js';

export interface PolicyTarget {
  /** With `model`, selects the model policy with exactly this provider and model id. */
  readonly provider?: string;
  readonly model?: string;
  /** W: the model's context window, in tokens. */
  readonly contextWindow: number;
  /** Completion tokens reserved for the answer: the request's max output tokens, else the model's default, else 0. */
  readonly reserve: number;
}

export interface ResolvedPolicy {
  readonly contextWindow: number;
  readonly reserve: number;
  readonly thresholdRatio: number;
  readonly headroomTokens: number;
  readonly retainSetting: RetainSetting;
  readonly estimator: EstimatorName;
  /** The strategy as configured for this model (`auto` and `native` are resolved against the provider at mount). */
  readonly strategy: StrategyName;
  /** W − reserve. */
  readonly messageBudget: number;
  /** messageBudget − headroomTokens. */
  readonly pressureBudget: number;
  /** floor(min(W × thresholdRatio, pressureBudget)): compaction starts at this many tokens. */
  readonly threshold: number;
  /** Tokens kept verbatim at the end: floor(messageBudget × retainRatio), or retainTokens. Below threshold. */
  readonly retain: number;
  /** Which term set the threshold: 'ratio' (W × thresholdRatio) or 'headroom' (pressureBudget). */
  readonly decidedBy: 'ratio' | 'headroom';
  /**
   * The smallest integer window W at which W × thresholdRatio ≤ W − reserve − headroomTokens,
   * for this reserve: ceil((reserve + headroomTokens) / (1 − thresholdRatio)), computed exactly.
   * From this window up the ratio term sets the threshold; below it, the headroom does. When
   * the two terms meet at a whole window both give the same threshold there (reserve 0 and the
   * defaults: 327,680, where both are 262,144).
   *
   * null when one term decides at every window: the headroom when thresholdRatio is 1 (W × 1
   * is never below W − reserve − headroom, unless both are 0), the ratio when reserve and
   * headroomTokens are both 0; also null past Number.MAX_SAFE_INTEGER.
   */
  readonly crossoverWindow: number | null;
  /** The model policy that applied, if any. */
  readonly modelPolicy: ModelPolicy | null;
  /** How estimates are scaled to what the provider counts (SPEC §10, meter/calibration.ts). */
  readonly calibration: PolicyCalibration;
}

export interface PolicyCalibration {
  /** The model's family, by its provider and id. */
  readonly family: ModelFamily;
  /** Tokens the provider counts per estimated token, before a session's own counts refine it. */
  readonly factor: number;
  /** 'measured': the family's factor measured on the corpus sessions; 'configured': calibrationFactor. */
  readonly source: 'measured' | 'configured';
}

/** The trigger numbers for `target`, or a PolicyBudgetError (a ConfigError) naming the key to change and by how much. */
export function resolvePolicy(config: CompactionPolicyConfig, target: PolicyTarget): ResolvedPolicy {
  const contextWindow = readInteger(target.contextWindow, 'contextWindow', 1, "give the model's context window in tokens, e.g. 200000");
  const reserve = readInteger(target.reserve, 'reserve', 0, 'give the completion tokens reserved for the answer, or 0');
  const index = config.modelPolicies.findIndex((policy) => policy.provider === target.provider && policy.model === target.model);
  const modelPolicy = config.modelPolicies[index];
  const policyPath = `modelPolicies[${index}]`;
  const thresholdRatio = modelPolicy?.thresholdRatio ?? config.thresholdRatio;
  const headroomTokens = modelPolicy?.headroomTokens ?? config.headroomTokens;
  const retainSetting = modelPolicy?.retain ?? config.retain;
  const retainKey = retainSetting.kind === 'ratio' ? 'retainRatio' : 'retainTokens';

  const messageBudget = contextWindow - reserve;
  const facts = {
    contextWindow,
    reserve,
    messageBudget,
    thresholdRatio,
    headroomTokens,
    headroomPath: modelPolicy?.headroomTokens === undefined ? 'headroomTokens' : childPath(policyPath, 'headroomTokens'),
    retainSetting,
    retainPath: modelPolicy?.retain === undefined ? retainKey : childPath(policyPath, retainKey),
    ratioTerm: floorTimes(contextWindow, thresholdRatio),
    retain: retainSetting.kind === 'ratio' ? floorTimes(Math.max(messageBudget, 0), retainSetting.ratio) : retainSetting.tokens,
  };
  if (messageBudget <= 0) throw noMessageBudget(facts);
  const pressureBudget = messageBudget - headroomTokens;
  if (pressureBudget <= 0) throw noPressureBudget(facts);
  // floor(min(a, b)) = min(floor(a), b) because the pressure budget is a whole number.
  const threshold = Math.min(facts.ratioTerm, pressureBudget);
  if (facts.retain >= threshold) throw retainNotBelowThreshold(facts, threshold);

  const estimator = modelPolicy?.estimator ?? config.estimator;
  const configured = modelPolicy?.calibrationFactor ?? config.calibrationFactor;
  const calibration: PolicyCalibration = {
    family: modelFamilyOf(target.provider ?? '', target.model ?? ''),
    factor: configured ?? calibrationFactorOf(target.provider ?? '', target.model ?? '', estimator),
    source: configured === undefined ? 'measured' : 'configured',
  };
  const crossover = smallestWindowWhereRatioDecides(thresholdRatio, reserve, headroomTokens);
  return {
    contextWindow,
    reserve,
    thresholdRatio,
    headroomTokens,
    retainSetting,
    estimator,
    strategy: modelPolicy?.strategy ?? config.strategy,
    messageBudget,
    pressureBudget,
    threshold,
    retain: facts.retain,
    decidedBy: timesAtMost(contextWindow, thresholdRatio, pressureBudget) ? 'ratio' : 'headroom',
    crossoverWindow: crossover === undefined || crossover === 0n || crossover > BigInt(Number.MAX_SAFE_INTEGER) ? null : Number(crossover),
    modelPolicy: modelPolicy ?? null,
    calibration,
  };
}
