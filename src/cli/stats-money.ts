// What `stats` adds to its counts: what the calls cost at the dated price table (by part of the
// usage and by model, unpriced models named), where the tokens of the surface are now (by content
// kind and by tool, measured as the compaction meter measures them), and the client's own
// compactions the proxy recorded.

import { COMPACTION_POLICY } from '../compaction/index.js';
import type { LogEvent } from '../log/index.js';
import {
  createEstimator,
  DEFAULT_ESTIMATOR,
  type EstimatorName,
  isEstimatorName,
  type SessionCost,
  type SurfaceBreakdown,
  surfaceBreakdown,
} from '../meter/index.js';
import { type LogStore, SessionLog } from '../store/index.js';
import type { CommandContext } from './context.js';
import { plural } from './plural.js';
import { formatCount as n } from './record-filter.js';
import { createCliRegistry } from './registry.js';
import { formatUsd } from './session-table.js';

/** A rewrite of its history by a proxied client: the client's own compaction. */
export interface ClientRewrite {
  /** The seq of the model/request that carried it. */
  readonly seq: number;
  /** How many nodes of the surface it shadowed. */
  readonly shadowedNodes: number;
  /** How many messages the client sent in their place. */
  readonly replacementCount: number;
}

/** The client rewrite a proxied model/request records, if it records one. */
export function clientRewriteOf(event: LogEvent): ClientRewrite | undefined {
  if (event.type !== 'model/request') return undefined;
  const proxy = (event.data as { proxy?: unknown }).proxy;
  if (typeof proxy !== 'object' || proxy === null) return undefined;
  const rewrite = (proxy as { rewrite?: unknown }).rewrite;
  if (typeof rewrite !== 'object' || rewrite === null) return undefined;
  const { shadowedSeqs, replacementCount } = rewrite as { shadowedSeqs?: unknown; replacementCount?: unknown };
  return {
    seq: event.seq,
    shadowedNodes: Array.isArray(shadowedSeqs) ? shadowedSeqs.length : 0,
    replacementCount: typeof replacementCount === 'number' ? replacementCount : 0,
  };
}

/** The estimator a session's compaction meter used: its last recorded policy's, else the default. */
export function estimatorOfPolicy(event: LogEvent, current: EstimatorName): EstimatorName {
  if (event.type !== COMPACTION_POLICY) return current;
  const estimator = (event.data as { estimator?: unknown }).estimator;
  return isEstimatorName(estimator) ? estimator : current;
}

/** The surface at the head of the session, its tokens by kind and by tool. */
export async function surfaceNow(
  store: LogStore,
  sessionId: string,
  estimator: EstimatorName = DEFAULT_ESTIMATOR,
): Promise<SurfaceBreakdown> {
  const log = await SessionLog.open(store, sessionId, { registry: createCliRegistry() });
  return surfaceBreakdown(log.fold.toArray(), await createEstimator(estimator));
}

const TOOLS_SHOWN = 8;
const g = { separators: true } as const;

export function printCost(context: CommandContext, cost: SessionCost): void {
  const { total } = cost;
  if (cost.pricedCalls > 0) {
    context.print(
      `cost: ${formatUsd(total.total)} for ${plural(cost.pricedCalls, 'priced call', g)} at the prices of ${cost.prices.date}: input ${formatUsd(total.input)}, cache reads ${formatUsd(total.cacheRead)}, cache writes ${formatUsd(total.cacheWrite)}, output ${formatUsd(total.output)}`,
    );
  } else {
    context.print(`cost: no call could be priced at the prices of ${cost.prices.date}`);
  }
  for (const model of cost.byModel) {
    context.print(
      `  ${model.model}: ${plural(model.calls, 'call', g)}, input ${plural(model.inputTokens, 'token', g)} (${n(model.cacheReadTokens)} cache reads, ${n(model.cacheWriteTokens)} cache writes), output ${n(model.outputTokens)}: ${model.cost === null ? 'unpriced' : formatUsd(model.cost.total)}`,
    );
  }
  if (cost.unpricedCalls > 0) {
    context.print(
      `unpriced: ${plural(cost.unpricedCalls, 'call', g)} of ${cost.unpricedModels.join(', ')}, a model the price table does not know; their cost is left out, not counted as 0 (give its price with --prices FILE)`,
    );
  }
  if (cost.callsWithoutUsage > 0)
    context.print(`${plural(cost.callsWithoutUsage, 'call', g)} reported no usage (failed, or the source kept none)`);
}

export function printSurface(context: CommandContext, surface: SurfaceBreakdown): void {
  const share = (tokens: number) => (surface.tokens === 0 ? '0.0' : ((tokens / surface.tokens) * 100).toFixed(1));
  context.print(
    `surface now: ${plural(surface.nodes, 'node', g)}, ${plural(surface.tokens, 'token', g)} by the ${surface.estimator} estimate`,
  );
  context.print(
    `  by kind: ${surface.byKind.map((kind) => `${kind.kind} ${n(kind.tokens)} (${share(kind.tokens)} %)`).join(', ') || 'nothing'}`,
  );
  const tools = surface.byTool.filter((tool) => tool.results > 0 || tool.calls > 0);
  if (tools.length === 0) return;
  context.print('  by tool (results, then calls):');
  for (const tool of tools.slice(0, TOOLS_SHOWN)) {
    context.print(
      `    ${tool.tool}: ${plural(tool.resultTokens, 'token', g)} in ${plural(tool.results, 'result', g)} (${share(tool.resultTokens)} %), ${n(tool.callTokens)} in ${plural(tool.calls, 'call', g)}`,
    );
  }
  if (tools.length > TOOLS_SHOWN) {
    const rest = tools.slice(TOOLS_SHOWN);
    const tokens = rest.reduce((sum, tool) => sum + tool.resultTokens + tool.callTokens, 0);
    context.print(`    ${plural(rest.length, 'other tool', g)}: ${plural(tokens, 'token', g)} (--json lists them)`);
  }
}
