// shadowlog/tune: counterfactual replay of recorded sessions under compaction policies, the
// measures of each, and a recommended policy file (see docs/tune.md).

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
export { checkTuneReportTarget, markdownReport, type TuneReportFileOptions, writeTuneReport } from './report-files.js';
export { DEFAULT_MARGIN, type TuneOptions, type TuneProgress, type TuneSession, tuneSessions } from './run-tune.js';
export type { MeterError, Miss, PolicySessionResult, Retention, SessionResult } from './session-replay.js';
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
export type { PolicySummary, Recommendation, TuneReport } from './tune-report.js';
export { markdownTable, policyRow, TABLE_HEADER, textTable } from './tune-table.js';
