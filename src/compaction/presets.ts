// Named compaction presets: a policy and a pruner kept under a name, for a user who wants them
// instead of the defaults. `dsh` is DSH's numbers, shadowlog's defaults before the evidence of
// docs/evidence.md replaced them (0.8, 65,536, 0.16, and the pruner at 8,192 / 4,096 / 1,024).

import { ConfigError } from '../log/errors.js';
import type { PrunerConfig } from './pruner-config.js';

export interface CompactionPreset {
  readonly name: string;
  readonly description: string;
  /** Policy keys, as a policy file holds them. */
  readonly config: { readonly thresholdRatio: number; readonly headroomTokens: number; readonly retainRatio: number };
  readonly pruner: PrunerConfig;
}

export const COMPACTION_PRESETS: readonly CompactionPreset[] = Object.freeze([
  Object.freeze({
    name: 'dsh',
    description: "DSH's numbers: compact at 0.8 of the window or 65,536 tokens below the message budget, keep 0.16 verbatim",
    config: Object.freeze({ thresholdRatio: 0.8, headroomTokens: 65_536, retainRatio: 0.16 }),
    pruner: Object.freeze({ thresholdChars: 8_192, headChars: 4_096, tailChars: 1_024 }),
  }),
]);

/** A preset name that is not one of COMPACTION_PRESETS. */
export class UnknownPresetError extends ConfigError {
  readonly preset: string;
  constructor(preset: string) {
    super(
      'preset',
      `expected a compaction preset among ${COMPACTION_PRESETS.map((known) => known.name).join(', ')}, found ${JSON.stringify(preset)}`,
    );
    this.preset = preset;
  }
}

/** The preset named `name`; an UnknownPresetError for any other name. */
export function compactionPreset(name: string): CompactionPreset {
  const preset = COMPACTION_PRESETS.find((known) => known.name === name);
  if (preset === undefined) throw new UnknownPresetError(name);
  return preset;
}
