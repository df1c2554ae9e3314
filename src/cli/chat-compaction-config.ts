// The compaction policy of a chat: the policy file the user gave, over a named preset when one is
// given, else the defaults. The defaults keep no headroom (docs/evidence.md), so they fit small
// local windows (llama.cpp, vLLM, Ollama at 32k) as they are; DSH's 65,536-token headroom did not,
// and a chat in a window below about 82,000 tokens once had to get a smaller one chosen for it.

import { type CompactionConfig, type CompactionPreset, readCompactionConfig } from '../compaction/index.js';
import { layeredPolicy, policyFileConfig } from './compact-policy-layers.js';

export interface ChatCompactionConfig {
  readonly config: CompactionConfig;
}

/** `preset`, when given, lies under the policy file: the file's keys replace the preset's. */
export function chatCompactionConfig(given: unknown, preset?: CompactionPreset): ChatCompactionConfig {
  if (preset !== undefined) return { config: readCompactionConfig(layeredPolicy([{ ...preset.config }, policyFileConfig(given)])) };
  return { config: given === undefined ? {} : readCompactionConfig(given) };
}
