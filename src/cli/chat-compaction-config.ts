// The compaction policy of a chat the user gave none for. Where the default headroom leaves no
// pressure budget in a small window (DSH's 65,536 did below about 82,000 tokens, which refused
// every small local model; the default is now 0, docs/evidence.md), such a chat gets a headroom of
// a quarter of its message budget instead, and says so. A policy the user gave is used as it is.

import {
  COMPACTION_DEFAULTS,
  type CompactionConfig,
  type CompactionPreset,
  PolicyBudgetError,
  parseCompactionConfig,
  readCompactionConfig,
  resolvePolicy,
} from '../compaction/index.js';
import type { LanguageModel } from '../providers/index.js';
import { layeredPolicy, policyFileConfig } from './compact-policy-layers.js';

export interface ChatCompactionConfig {
  readonly config: CompactionConfig;
  /** What was chosen for the user, to print; absent when nothing was. */
  readonly note?: string;
}

/** `preset`, when given, lies under the policy file: the file's keys replace the preset's. */
export function chatCompactionConfig(
  given: unknown,
  model: LanguageModel,
  reserve: number,
  preset?: CompactionPreset,
): ChatCompactionConfig {
  if (preset !== undefined) return { config: readCompactionConfig(layeredPolicy([{ ...preset.config }, policyFileConfig(given)])) };
  if (given !== undefined) return { config: readCompactionConfig(given) };
  const { contextWindow } = model.limits;
  try {
    resolvePolicy(parseCompactionConfig({}), { provider: model.provider, model: model.modelId, contextWindow, reserve });
    return { config: {} };
  } catch (error) {
    if (!(error instanceof PolicyBudgetError) || error.problem !== 'no-pressure-budget') throw error;
    const headroomTokens = Math.floor((contextWindow - reserve) / 4);
    return {
      config: { headroomTokens },
      note: `compaction: the default headroom (${COMPACTION_DEFAULTS.headroomTokens.toLocaleString('en-US')} tokens) leaves no room in a ${contextWindow}-token window, so this chat uses headroomTokens ${headroomTokens} (a quarter of the ${contextWindow - reserve} tokens left for messages); give --compaction-config to choose`,
    };
  }
}
