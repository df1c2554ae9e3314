// Usage as the log holds it (SPEC §2): the whole input and output, and, where the provider
// counted them, the cache reads and writes within the input and the reasoning within the output.

import type { ModelUsage } from './language-model.js';

export interface UsageCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens?: number | undefined;
  readonly cacheWriteTokens?: number | undefined;
  readonly reasoningTokens?: number | undefined;
}

/**
 * The counts given, and no others (absent, never null). A part larger than its whole is a count
 * the server got wrong; the log refuses such usage (and the answer with it), so it is left out.
 */
export function createUsage(counts: UsageCounts): ModelUsage {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens } = counts;
  const cacheFits = (cacheReadTokens ?? 0) + (cacheWriteTokens ?? 0) <= inputTokens;
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens === undefined || !cacheFits ? {} : { cacheReadTokens }),
    ...(cacheWriteTokens === undefined || !cacheFits ? {} : { cacheWriteTokens }),
    ...(reasoningTokens === undefined || reasoningTokens > outputTokens ? {} : { reasoningTokens }),
  };
}
