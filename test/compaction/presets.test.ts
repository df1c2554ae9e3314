// Named compaction presets: `dsh` holds DSH's numbers (the defaults before docs/evidence.md chose
// new ones), every preset is a configuration the policy and the pruner accept, and an unknown
// name is a typed error that lists the known ones.

import { describe, expect, it } from 'vitest';
import { parseCompactionConfig, resolvePolicy } from '../../src/compaction/policy.js';
import { COMPACTION_PRESETS, compactionPreset, UnknownPresetError } from '../../src/compaction/presets.js';
import { parsePrunerConfig } from '../../src/compaction/pruner-config.js';
import { ConfigError } from '../../src/log/errors.js';
import { tunePolicies } from '../../src/tune/tune-policies.js';

describe('compaction presets', () => {
  it('dsh is 0.8, 65,536, 0.16 and the pruner at 8,192 / 4,096 / 1,024', () => {
    const preset = compactionPreset('dsh');
    expect(preset.config).toEqual({ thresholdRatio: 0.8, headroomTokens: 65_536, retainRatio: 0.16 });
    expect(preset.pruner).toEqual({ thresholdChars: 8_192, headChars: 4_096, tailChars: 1_024 });
    // SPEC §6's vector for DSH's numbers: W 1,000,000, reserve 256,000 → 678,464 and 119,040.
    const policy = resolvePolicy(parseCompactionConfig(preset.config), { contextWindow: 1_000_000, reserve: 256_000 });
    expect([policy.threshold, policy.retain]).toEqual([678_464, 119_040]);
  });

  it('every preset parses as a policy and as a pruner', () => {
    for (const preset of COMPACTION_PRESETS) {
      expect(() => parseCompactionConfig(preset.config)).not.toThrow();
      expect(parsePrunerConfig(preset.pruner)).toEqual(preset.pruner);
    }
  });

  it('refuses an unknown name with a typed error naming the known ones', () => {
    expect(() => compactionPreset('DSH')).toThrow(UnknownPresetError);
    try {
      compactionPreset('claude');
      expect.unreachable();
    } catch (error) {
      expect(ConfigError.isInstance(error)).toBe(true);
      expect((error as UnknownPresetError).preset).toBe('claude');
      expect((error as UnknownPresetError).code).toBe('INVALID_CONFIG');
      expect((error as Error).message).toBe('expected a compaction preset among dsh, found "claude"');
    }
  });

  it('tune replays a named preset beside the defaults, with its pruner', () => {
    const policies = tunePolicies({ presets: ['dsh'], baselines: [] });
    expect(policies.map((policy) => policy.name)).toEqual(['defaults', 'preset dsh']);
    expect(policies[1]?.config?.({ contextWindow: 200_000, reserve: 0 })).toEqual(compactionPreset('dsh').config);
    expect(policies[1]?.pruner).toEqual(compactionPreset('dsh').pruner);
    expect(() => tunePolicies({ presets: ['nope'] })).toThrow(UnknownPresetError);
  });
});
