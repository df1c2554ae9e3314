// The policies `tune` compares: shadowlog's compaction at its defaults and at each point of a
// grid (one per strategy), and the baselines of other harnesses by name. Each says how it runs
// for a window: compaction with a threshold and a tail, dropping the oldest turns, or nothing.

import { PEER_POLICIES, type PeerPlan, type PeerPolicyName, type PolicyWindow, peerPolicy } from '../compaction/peer-policies.js';
import { type CompactionConfig, parseCompactionConfig, resolvePolicy } from '../compaction/policy.js';
import { compactionPreset } from '../compaction/presets.js';
import { type PrunerConfig, parsePrunerConfig } from '../compaction/pruner-config.js';
import { TuneConfigError } from './tune-errors.js';

/**
 * What replaces a compacted range: a summary (extractive, offline); `mask`, observation
 * masking (sent tool results older than the retained tail become placeholders; no summary); or
 * `recall`, a compact handle with an outline (the extractive summary) in place of the range,
 * whose originals the recall tool can read back.
 */
export type TuneStrategy = 'summary' | 'mask' | 'recall';
export const TUNE_STRATEGIES: readonly TuneStrategy[] = ['summary', 'mask', 'recall'];

export interface TunePolicy {
  /** Unique within a run: `defaults`, `summary thresholdRatio=0.7`, or a baseline's name. */
  readonly name: string;
  /** What it is, for the report. */
  readonly description: string;
  /** shadowlog's own policy (a grid point), or another harness's. */
  readonly origin: 'shadowlog' | 'baseline';
  readonly strategy: TuneStrategy | PeerPolicyName;
  /** The configuration a policy file would hold; undefined for a baseline with no shadowlog equivalent. */
  readonly config: ((window: PolicyWindow) => CompactionConfig) | undefined;
  /** The tool-result pruner, or null for none. */
  readonly pruner: PrunerConfig | null;
  plan(window: PolicyWindow): PeerPlan;
}

export const BASELINE_NAMES: readonly PeerPolicyName[] = PEER_POLICIES.map((policy) => policy.name);

/** The grid's keys: the policy's numbers, and the pruner's (pruner=off leaves it out). */
const GRID_KEYS = [
  'thresholdRatio',
  'headroomTokens',
  'retainRatio',
  'retainTokens',
  'maxSummaryTokens',
  'compactionRetries',
  'pruner',
] as const;
type GridKey = (typeof GRID_KEYS)[number];

export type Grid = ReadonlyArray<readonly [GridKey, readonly (number | 'on' | 'off')[]]>;

/** `key=v1,v2` arguments as a grid; an unknown key or a value that is no number is a TuneConfigError. */
export function parseGrid(specs: readonly string[]): Grid {
  const grid: Array<[GridKey, Array<number | 'on' | 'off'>]> = [];
  for (const spec of specs) {
    const equals = spec.indexOf('=');
    const key = spec.slice(0, equals) as GridKey;
    if (equals < 1 || !GRID_KEYS.includes(key)) {
      throw new TuneConfigError('grid', `expected key=v1,v2 with key one of ${GRID_KEYS.join(', ')}, found ${JSON.stringify(spec)}`);
    }
    if (grid.some(([seen]) => seen === key))
      throw new TuneConfigError('grid', `${key} is given twice in the grid; give its values once, comma-separated`);
    const values = spec
      .slice(equals + 1)
      .split(',')
      .map((text) => {
        if (key === 'pruner') {
          if (text !== 'on' && text !== 'off') throw new TuneConfigError('grid', `pruner takes on or off, found ${JSON.stringify(text)}`);
          return text;
        }
        const number = Number(text.replace(/_/g, ''));
        if (text.trim() === '' || !Number.isFinite(number))
          throw new TuneConfigError('grid', `${key} takes numbers, found ${JSON.stringify(text)}`);
        return number;
      });
    grid.push([key, values]);
  }
  if (grid.some(([key]) => key === 'retainRatio') && grid.some(([key]) => key === 'retainTokens')) {
    throw new TuneConfigError('grid', 'retainRatio and retainTokens exclude each other (as in the policy); grid over one of them');
  }
  return grid;
}

/** Every combination of the grid's values, in order, as configuration keys. */
function gridPoints(grid: Grid): Array<Array<readonly [GridKey, number | 'on' | 'off']>> {
  let points: Array<Array<readonly [GridKey, number | 'on' | 'off']>> = [[]];
  for (const [key, values] of grid) points = points.flatMap((point) => values.map((value) => [...point, [key, value] as const]));
  return points;
}

/** shadowlog's policy for `config` (the defaults filled in), with the pruner or not. */
export function shadowlogPolicy(
  name: string,
  config: CompactionConfig,
  pruner: PrunerConfig | null,
  strategy: TuneStrategy = 'summary',
): TunePolicy {
  const written: CompactionConfig = strategy === 'summary' ? config : { ...config, strategy };
  const parsed = parseCompactionConfig({ ...written, summarizer: { kind: 'extractive' } });
  const pruned = pruner === null ? 'no pruner' : 'pruner';
  return {
    name,
    description: `shadowlog's compaction (${strategy}) with ${Object.keys(config).length === 0 ? 'its defaults' : JSON.stringify(config)}, ${pruned}`,
    origin: 'shadowlog',
    strategy,
    config: () => written,
    pruner,
    plan: (window) => ({ kind: 'compaction', config: written, resolved: resolvePolicy(parsed, window) }),
  };
}

export function baselinePolicy(name: string): TunePolicy {
  const peer = peerPolicy(name);
  if (peer === undefined)
    throw new TuneConfigError('baselines', `expected baselines among ${BASELINE_NAMES.join(', ')}, found ${JSON.stringify(name)}`);
  return {
    name: peer.name,
    description: peer.description,
    origin: 'baseline',
    strategy: peer.name,
    config: (window) => {
      const plan = peer.plan(window);
      return plan.kind === 'compaction' ? plan.config : (undefined as never);
    },
    pruner: null,
    plan: (window) => peer.plan(window),
  };
}

export interface PolicySetOptions {
  readonly grid?: Grid;
  readonly strategies?: readonly string[];
  /** Baselines by name; default all of them. */
  readonly baselines?: readonly string[];
  /** Named presets (`dsh`), each replayed as `preset NAME` with its pruner; an unknown name is an UnknownPresetError. */
  readonly presets?: readonly string[];
}

/** The defaults (with the pruner), the presets named, each grid point for each strategy, then the baselines. */
export function tunePolicies(options: PolicySetOptions = {}): TunePolicy[] {
  const strategies = (options.strategies ?? ['summary']).map((name) => {
    if (!(TUNE_STRATEGIES as readonly string[]).includes(name)) {
      throw new TuneConfigError('strategies', `expected strategies among ${TUNE_STRATEGIES.join(', ')}, found ${JSON.stringify(name)}`);
    }
    return name as TuneStrategy;
  });
  const policies: TunePolicy[] = [shadowlogPolicy('defaults', {}, parsePrunerConfig(undefined))];
  for (const name of options.presets ?? []) {
    const preset = compactionPreset(name);
    policies.push(shadowlogPolicy(`preset ${preset.name}`, { ...preset.config }, preset.pruner));
  }
  const grid = options.grid ?? [];
  if (grid.length === 0) {
    // Without a grid, each strategy besides summary runs at the defaults.
    for (const strategy of strategies)
      if (strategy !== 'summary') policies.push(shadowlogPolicy(`${strategy} defaults`, {}, parsePrunerConfig(undefined), strategy));
  } else {
    for (const strategy of strategies) {
      for (const point of gridPoints(grid)) {
        const config: Record<string, number> = {};
        let pruner: PrunerConfig | null = parsePrunerConfig(undefined);
        for (const [key, value] of point) {
          if (key === 'pruner') pruner = value === 'on' ? parsePrunerConfig(undefined) : null;
          else config[key] = value as number;
        }
        const label = point.map(([key, value]) => `${key}=${value}`).join(' ');
        policies.push(shadowlogPolicy(`${strategy} ${label}`, config as CompactionConfig, pruner, strategy));
      }
    }
  }
  for (const name of options.baselines ?? BASELINE_NAMES) policies.push(baselinePolicy(name));
  const names = new Set<string>();
  for (const policy of policies) {
    if (names.has(policy.name)) throw new TuneConfigError('baselines', `policy ${policy.name} is named twice`);
    names.add(policy.name);
  }
  return policies;
}
