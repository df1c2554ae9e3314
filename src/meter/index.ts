// The token meter (SPEC §10): estimators and tokenizers by name, and the measure of a surface.

export {
  type CalibratedTotal,
  type CalibrationAnchor,
  type CalibrationPoint,
  calibrate,
  clampRatio,
  impliedRatio,
  MIN_RATIO_ESTIMATE,
  RATIO_SPREAD,
  unseenTokens,
} from './calibration.js';
export {
  CALIBRATION_FACTORS,
  calibrationFactorOf,
  growthRatio,
  MIN_GROWTH_ESTIMATE,
  type ModelFamily,
  modelFamilyOf,
} from './calibration-factors.js';
export {
  type CallErrorSummary,
  CallMeter,
  type CallMeterOptions,
  type MeteredCallRow,
  nearestRank,
  type OffSurfaceCallRow,
  summarizeCallErrors,
} from './call-meter.js';
export { chars4Estimator } from './chars4-estimator.js';
export { type CallCost, CostLedger, type ModelCost, type SessionCost } from './cost-ledger.js';
export {
  createEstimator,
  DEFAULT_ESTIMATOR,
  ESTIMATOR_NAMES,
  HEURISTIC_ESTIMATOR_NAMES,
  type HeuristicEstimatorName,
  heuristicEstimator,
  isEstimatorName,
  isHeuristicEstimatorName,
} from './estimators.js';
export {
  BLOCK_OVERHEAD_TOKENS,
  IMAGE_MAX_TOKENS,
  IMAGE_MIN_TOKENS,
  imageTokens,
  MESSAGE_OVERHEAD_TOKENS,
  type Measurement,
  type MeterAnchor,
  type MeteredCall,
  type NodePrice,
  SurfaceMeter,
} from './measure.js';
export { PriceTableError } from './price-table-error.js';
export {
  BUILT_IN_PRICES,
  callCost,
  MAX_PRICE_PER_MILLION,
  type ModelPrice,
  type PriceTable,
  parsePriceTable,
  priceOf,
  type UsageCost,
  usageCost,
} from './prices.js';
export { scriptAwareEstimator } from './script-aware.js';
export {
  type KindTokens,
  SURFACE_KINDS,
  type SurfaceBreakdown,
  type SurfaceKind,
  surfaceBreakdown,
  type ToolTokens,
  UNKNOWN_TOOL,
} from './surface-breakdown.js';
export type { EstimatorName, TokenEstimator } from './token-estimator.js';
export { loadTokenizer, TOKENIZER_NAMES, type TokenizerName, TokenizerUnavailableError } from './tokenizers.js';
