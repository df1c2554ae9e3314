// The grid `npm run evidence` replays to choose shadowlog's compaction defaults: the windows, and
// the values of thresholdRatio, headroomTokens, retainRatio and the tool-result pruner. Each grid
// point is one of tune's own policies (shadowlogPolicy), so the evidence is tune's replay.

import type { PrunerConfig } from '../compaction/pruner-config.js';
import { parsePrunerConfig } from '../compaction/pruner-config.js';
import { shadowlogPolicy, type TunePolicy } from './tune-policies.js';

/** 32k, 64k and 128k as local models state them (2^15, 2^16, 2^17); 200k, 400k and 1M as the hosted ones do. */
export const EVIDENCE_WINDOWS: readonly number[] = [32_768, 65_536, 131_072, 200_000, 400_000, 1_000_000];

export interface EvidenceGrid {
  readonly thresholdRatio: readonly number[];
  readonly headroomTokens: readonly number[];
  readonly retainRatio: readonly number[];
  /** Pruner settings; null replays without the pruner. */
  readonly pruner: ReadonlyArray<PrunerConfig | null>;
}

export const EVIDENCE_GRID: EvidenceGrid = {
  thresholdRatio: [0.5, 0.6, 0.7, 0.8, 0.9],
  headroomTokens: [0, 16_384, 65_536],
  retainRatio: [0.05, 0.16, 0.3],
  pruner: [
    null,
    { thresholdChars: 4_096, headChars: 2_048, tailChars: 512 },
    { thresholdChars: 8_192, headChars: 4_096, tailChars: 1_024 },
  ],
};

/** One grid point: the policy file's values and the pruner. */
export interface EvidencePolicy {
  readonly name: string;
  readonly config: { readonly thresholdRatio: number; readonly headroomTokens: number; readonly retainRatio: number };
  readonly pruner: PrunerConfig | null;
}

export const prunerLabel = (pruner: PrunerConfig | null) =>
  pruner === null ? 'off' : `${pruner.thresholdChars}/${pruner.headChars}/${pruner.tailChars}`;

export function evidencePolicyName(config: EvidencePolicy['config'], pruner: PrunerConfig | null): string {
  return `ratio ${config.thresholdRatio} headroom ${config.headroomTokens} retain ${config.retainRatio} pruner ${prunerLabel(pruner)}`;
}

/** Every combination of the grid's values, in the grid's order (the pruner varies fastest). */
export function evidencePolicies(grid: EvidenceGrid = EVIDENCE_GRID): EvidencePolicy[] {
  const policies: EvidencePolicy[] = [];
  for (const thresholdRatio of grid.thresholdRatio)
    for (const headroomTokens of grid.headroomTokens)
      for (const retainRatio of grid.retainRatio)
        for (const given of grid.pruner) {
          // Checked as the pruner's own configuration is (head + marker + tail within the threshold).
          const pruner = given === null ? null : parsePrunerConfig(given);
          const config = { thresholdRatio, headroomTokens, retainRatio };
          policies.push({ name: evidencePolicyName(config, pruner), config, pruner });
        }
  return policies;
}

/** The grid point as tune's policy: summary compaction with the extractive summarizer, offline. */
export function evidenceTunePolicy(policy: EvidencePolicy): TunePolicy {
  return shadowlogPolicy(policy.name, { ...policy.config }, policy.pruner);
}
