// A parsed configuration written back in the form a user writes (CompactionConfig), every key
// explicit, so that the log can record the policy a session ran under and `compact` can parse
// it again to run under the same one.

import type { CompactionConfig, CompactionPolicyConfig, ModelPolicyConfig, RetainSetting, SummarizerConfig } from './policy-config.js';

function retainKeys(retain: RetainSetting): { retainRatio: number } | { retainTokens: number } {
  return retain.kind === 'ratio' ? { retainRatio: retain.ratio } : { retainTokens: retain.tokens };
}

/** The configuration as JSON that parseCompactionConfig reads back to an equal configuration. */
export function configToJson(config: CompactionPolicyConfig): CompactionConfig {
  const summarizer: SummarizerConfig =
    config.summarizer.kind === 'model'
      ? { provider: config.summarizer.provider, model: config.summarizer.model }
      : { kind: config.summarizer.kind };
  const modelPolicies: ModelPolicyConfig[] = config.modelPolicies.map((policy) => ({
    provider: policy.provider,
    model: policy.model,
    ...(policy.thresholdRatio === undefined ? {} : { thresholdRatio: policy.thresholdRatio }),
    ...(policy.headroomTokens === undefined ? {} : { headroomTokens: policy.headroomTokens }),
    ...(policy.retain === undefined ? {} : retainKeys(policy.retain)),
    ...(policy.estimator === undefined ? {} : { estimator: policy.estimator }),
    ...(policy.strategy === undefined ? {} : { strategy: policy.strategy }),
    ...(policy.calibrationFactor === undefined ? {} : { calibrationFactor: policy.calibrationFactor }),
  }));
  return {
    thresholdRatio: config.thresholdRatio,
    headroomTokens: config.headroomTokens,
    ...retainKeys(config.retain),
    modelPolicies,
    summarizer,
    maxSummaryTokens: config.maxSummaryTokens,
    compactionRetries: config.compactionRetries,
    maxOverflowRetries: config.maxOverflowRetries,
    auto: config.auto,
    estimator: config.estimator,
    strategy: config.strategy,
    mask:
      config.mask.kind === 'results'
        ? { keepResults: config.mask.results }
        : config.mask.kind === 'tokens'
          ? { keepTokens: config.mask.tokens }
          : {},
    ...(config.calibrationFactor === undefined ? {} : { calibrationFactor: config.calibrationFactor }),
  };
}
