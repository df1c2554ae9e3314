// The chars4 estimator (SPEC §10): ceil(UTF-16 length / 4) per text. Kept for comparison: it
// underprices Chinese and Japanese about threefold. Message and block overheads are added by
// measure.ts, the same for every estimator.

import { chars4Text } from './chars4.js';
import type { TokenEstimator } from './token-estimator.js';

export const chars4Estimator: TokenEstimator = Object.freeze({
  name: 'chars4',
  exact: false,
  countText: chars4Text,
});
