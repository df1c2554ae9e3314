// `whatif --policy FILE`: the surface the policy in FILE (a JSON policy file, as chat takes it
// and tune writes it) would have sent at the call, replayed offline (src/whatif/policy-surface.ts).

import type { CompactionConfig } from '../compaction/index.js';
import { parseCompactionConfig } from '../compaction/index.js';
import { policySurface, type WhatIfQuestion } from '../whatif/index.js';
import { readJsonFile } from './command-kit.js';
import { policyFileConfig } from './compact-policy-layers.js';
import type { CommandContext } from './context.js';
import { createCliRegistry } from './registry.js';

export function policyQuestion(context: CommandContext, file: string): WhatIfQuestion {
  const config = policyFileConfig(readJsonFile(file, context.io.cwd, 'a JSON policy file')) as CompactionConfig;
  // Refused here, before the session is read, when the file holds a key or value no policy takes.
  parseCompactionConfig(config);
  const registry = createCliRegistry();
  return {
    label: { policy: { file, config: config as unknown as Record<string, never> } },
    surface: (audit, call, target, params) => policySurface(audit, call, config, { registry, model: target.model, params }),
  };
}
