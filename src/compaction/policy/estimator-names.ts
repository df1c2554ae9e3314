// The estimator names a policy may choose, at run time. A Record keyed by EstimatorName makes
// the compiler reject this list when the meter gains or loses an estimator.

import type { EstimatorName } from '../../meter/token-estimator.js';

const ESTIMATORS: Readonly<Record<EstimatorName, true>> = {
  chars4: true,
  'script-aware': true,
  o200k_base: true,
  cl100k_base: true,
  llama3: true,
};

export const ESTIMATOR_NAMES = Object.keys(ESTIMATORS) as readonly EstimatorName[];
