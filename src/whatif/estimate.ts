// What a what-if will spend, printed before anything is sent: the requests, their input tokens
// (the script-aware estimate of each request), their output (the recorded answer's length, as
// reported or estimated), and what that costs at the dated price table.

import { canonicalJson } from '../log/canonical-json.js';
import { callCost, type PriceTable, priceOf } from '../meter/prices.js';
import { scriptAwareEstimator } from '../meter/script-aware.js';
import type { Answer } from './answers.js';
import type { WhatIfPlan } from './plan-whatif.js';

export interface WhatIfEstimate {
  readonly calls: number;
  readonly requests: number;
  readonly inputTokens: number;
  /** Expected output: the recorded answers' length, once per request. */
  readonly outputTokens: number;
  /** Dollars at the price table's prices; null when no model asked is priced. */
  readonly costUsd: number | null;
  readonly unpricedModels: readonly string[];
  readonly priceDate: string;
}

export function estimateWhatIf(plan: WhatIfPlan, prices: PriceTable): WhatIfEstimate {
  let requests = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cost = 0;
  let priced = 0;
  const unpriced = new Set<string>();
  const samples = Math.max(1, plan.samples);
  for (const planned of plan.calls) {
    const output = outputOf(planned.recordedAnswer);
    const input = samples * planned.counterfactual.inputTokens + (plan.samples > 0 ? samples * planned.recorded.inputTokens : 0);
    const count = plan.requestsPerCall;
    requests += count;
    inputTokens += input;
    outputTokens += count * output;
    const price = priceOf(prices, planned.target.model.modelId);
    if (price === undefined) unpriced.add(planned.target.model.modelId);
    else {
      priced++;
      cost += callCost(price, input, 0, count * output);
    }
  }
  return {
    calls: plan.calls.length,
    requests,
    inputTokens,
    outputTokens,
    costUsd: priced === 0 ? null : cost,
    unpricedModels: [...unpriced].sort(),
    priceDate: prices.date,
  };
}

function outputOf(answer: Answer): number {
  if (answer.usage !== null) return answer.usage.outputTokens;
  const calls = answer.toolCalls.length === 0 ? '' : canonicalJson(answer.toolCalls);
  return scriptAwareEstimator.countText(answer.text) + scriptAwareEstimator.countText(calls);
}
