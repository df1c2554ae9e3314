// The compaction policy (SPEC §6): its configuration, with defaults and validation, and the
// trigger formula that turns it into a threshold and a retained tail for one model's window.

export { formatCount } from './policy/format-count.js';
export { CALIBRATION_FACTOR_RANGE, parseCompactionConfig, readCompactionConfig } from './policy/parse-compaction-config.js';
export { PolicyBudgetError, type PolicyBudgetNumbers, type PolicyBudgetProblem } from './policy/policy-budget-error.js';
export {
  COMPACTION_DEFAULTS,
  type CompactionConfig,
  type CompactionPolicyConfig,
  type MaskConfig,
  type MaskSetting,
  type ModelPolicy,
  type ModelPolicyConfig,
  type RetainSetting,
  type SummarizerChoice,
  type SummarizerConfig,
} from './policy/policy-config.js';
export { type PolicyCalibration, type PolicyTarget, type ResolvedPolicy, resolvePolicy } from './policy/resolve-policy.js';
