// shadowlog/tune: counterfactual replay of recorded sessions under compaction policies, the
// measures of each, and a recommended policy file (see docs/tune.md).

export {
  CLAUDE_CODE_COMPACTION_MARGIN,
  impliedWindow,
  type ResolvedWindow,
  readSessionWindow,
  resolveSessionWindow,
  type SessionWindow,
  type SessionWindowOptions,
  type WindowRule,
} from '../compaction/session-window.js';
export {
  BUILT_IN_PRICES,
  callCost,
  MAX_PRICE_PER_MILLION,
  type ModelPrice,
  type PriceTable,
  parsePriceTable,
  priceOf,
} from '../meter/prices.js';
export { type ArtifactKind, artifactsOf } from './artifacts.js';
export type { AfterCompaction, CompactionPoint } from './compaction-point.js';
export { type HarnessSetting, harnessSetting, type SettingHarness } from './harness-settings.js';
export { meterSessionCallErrors, type SessionCallErrors } from './meter-session-calls.js';
export {
  JUDGE_OUTPUT_TOKENS,
  JUDGE_RUBRIC_VERSION,
  judgeRubric,
  matchScore,
  type PlannedProbe,
  type PolicyProbeScore,
  PROBE_KINDS,
  PROBE_OUTPUT_TOKENS,
  type ProbeEstimate,
  type ProbeExpectation,
  type ProbeKind,
  type ProbeOptions,
  type ProbePlan,
  type ProbeQuestion,
  type ProbeResult,
  type ProbeRun,
  parseVerdict,
  planProbes,
  policyProbeScore,
  probeQuestions,
  type RunProbeOptions,
  runProbes,
  type Verdict,
} from './probe/index.js';
export { checkTuneReportTarget, markdownReport, type TuneReportFileOptions, writeTuneReport } from './report-files.js';
export {
  describeMiss,
  LARGE_METER_ERROR,
  meterLines,
  missLines,
  refusalLines,
  settingLines,
  sharedPrefixLines,
} from './report-lines.js';
export { DEFAULT_MARGIN, type TuneOptions, type TuneProgress, type TuneSession, tuneSessions } from './run-tune.js';
export {
  DEFAULT_LOOKAHEAD_CALLS,
  type MeterError,
  type Miss,
  type PolicySessionResult,
  type Retention,
  type SessionResult,
} from './session-replay.js';
export { costRetentionSvg, tokensPerCallSvg } from './svg-plots.js';
export { buildTrace, type SessionTrace, type TraceCall, type TraceItem, type TraceOptions } from './trace.js';
export { TuneConfigError, TuneInputError } from './tune-errors.js';
export {
  BASELINE_NAMES,
  baselinePolicy,
  type Grid,
  type PolicySetOptions,
  parseGrid,
  shadowlogPolicy,
  TUNE_STRATEGIES,
  type TunePolicy,
  type TuneStrategy,
  tunePolicies,
} from './tune-policies.js';
export type { HarnessSettingReport, PolicySummary, Recommendation, TuneReport } from './tune-report.js';
export {
  type CheckedTuneReport,
  InvalidTuneReportError,
  parseTuneReport,
  TUNE_REPORT_FITS_SCHEMA,
  TUNE_REPORT_SCHEMA,
} from './tune-report-schema.js';
export {
  breaksAt,
  compactRow,
  markdownTable,
  policyRow,
  ratioBaseline,
  shortPolicyName,
  TABLE_HEADER,
  TEXT_TABLE_COLUMNS,
  textTable,
} from './tune-table.js';
export { describeWindow, WINDOW_RULE_NAMES, windowLines } from './window-lines.js';
