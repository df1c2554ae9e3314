// What a recorded call cost, from the usage its provider reported and tune's dated list prices:
// uncached input at the input price, cache reads at the cached price, cache writes at the
// cache-write price, output at the output price. The audit page shows it per call.

import { BUILT_IN_PRICES, type PriceTable, priceOf } from '../tune/index.js';
import type { CallCost, CallUsage } from '../view/index.js';

export function createCallPricer(table: PriceTable = BUILT_IN_PRICES) {
  return (_provider: string, model: string, usage: CallUsage): CallCost => {
    const price = priceOf(table, model);
    if (price === undefined) return { unknown: `no list price for ${model} in the table of ${table.date}` };
    const read = usage.cacheReadTokens ?? 0;
    const written = usage.cacheWriteTokens ?? 0;
    const fresh = Math.max(0, usage.inputTokens - read - written);
    const usd =
      (fresh * price.input + read * price.cachedInput + written * price.cacheWrite + usage.outputTokens * price.output) / 1_000_000;
    return { usd };
  };
}
