// The policy `shadowlog compact` runs under, in layers: the session's recorded policy, then a
// policy file (--compaction-config), then the flags, each layer over the ones before it.

import { UsageError } from './usage-error.js';

/** A policy file's keys; one that is not a JSON object is bad usage. */
export function policyFileConfig(config: unknown): Record<string, unknown> {
  if (config === undefined) return {};
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new UsageError('--compaction-config must hold a JSON object of policy keys (thresholdRatio, headroomTokens, retainRatio, …)');
  return config as Record<string, unknown>;
}

/**
 * The policy's layers merged, each over the ones before it (the recorded policy, the file, the
 * flags): a key replaces the same key below, in the top level and in the model policies below,
 * which would otherwise still decide for the session's model. The retained tail is one setting:
 * a layer that gives retainRatio or retainTokens replaces both below (a flag's --retain-ratio
 * over a file's retainTokens is the ratio). Within one layer, both are still refused.
 */
export function layeredPolicy(layers: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> {
  let merged: Record<string, unknown> = {};
  for (const layer of layers) {
    const replaced = Object.keys(layer).flatMap((key) => (RETAIN_KEYS.includes(key) ? RETAIN_KEYS : [key]));
    const below = Object.fromEntries(Object.entries(merged).filter(([key]) => !replaced.includes(key)));
    if (Array.isArray(below.modelPolicies))
      below.modelPolicies = below.modelPolicies.map((policy: unknown) =>
        typeof policy === 'object' && policy !== null && !Array.isArray(policy)
          ? Object.fromEntries(Object.entries(policy).filter(([key]) => key === 'provider' || key === 'model' || !replaced.includes(key)))
          : policy,
      );
    merged = { ...below, ...layer };
  }
  return merged;
}

const RETAIN_KEYS = ['retainRatio', 'retainTokens'];

/** The mask options the flags give; none keeps what the recorded policy says. */
export function maskConfig(options: { readonly keepResults?: number; readonly keepTokens?: number }): { mask?: Record<string, number> } {
  const mask: Record<string, number> = {};
  if (options.keepResults !== undefined) mask.keepResults = options.keepResults;
  if (options.keepTokens !== undefined) mask.keepTokens = options.keepTokens;
  return Object.keys(mask).length === 0 ? {} : { mask };
}
