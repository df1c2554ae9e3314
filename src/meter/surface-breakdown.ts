// Where the tokens of a surface are: by content kind (system, user text, assistant text,
// reasoning, tool calls, tool results, summaries, …) and by tool (whose calls and results fill
// the window). Each node is priced as SurfaceMeter prices it, its parts apart, so the kinds add up
// to the meter's estimate of the surface, and each node's overhead goes to the kind of the node.

import { canonicalJson } from '../log/canonical-json.js';
import type { ContentBlock } from '../log/content-block.js';
import type { AssistantMessageData, ToolResultData } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';
import { MESSAGE_OVERHEAD_TOKENS, priceOfBlock } from './measure.js';
import type { TokenEstimator } from './token-estimator.js';

export const SURFACE_KINDS = [
  'system',
  'user text',
  'assistant text',
  'reasoning',
  'tool calls',
  'tool results',
  'replaced tool results',
  'summaries',
  'images',
  'other',
] as const;
export type SurfaceKind = (typeof SURFACE_KINDS)[number];

export interface KindTokens {
  readonly kind: SurfaceKind;
  readonly tokens: number;
}

export interface ToolTokens {
  readonly tool: string;
  /** Its calls on the surface (a call's name and arguments). */
  readonly calls: number;
  readonly callTokens: number;
  /** Its results on the surface, placeholders of replaced ones included. */
  readonly results: number;
  readonly resultTokens: number;
}

export interface SurfaceBreakdown {
  readonly estimator: string;
  readonly nodes: number;
  readonly tokens: number;
  /** Every kind with tokens, largest first. */
  readonly byKind: readonly KindTokens[];
  /** Every tool with a call or result on the surface, by the tokens of its results then its calls. */
  readonly byTool: readonly ToolTokens[];
}

/** The name a result is filed under when the call that asked for it is not on the surface. */
export const UNKNOWN_TOOL = '(call not on the surface)';

export function surfaceBreakdown(nodes: Iterable<SurfaceNode>, estimator: TokenEstimator): SurfaceBreakdown {
  const kinds = new Map<SurfaceKind, number>();
  const tools = new Map<string, { calls: number; callTokens: number; results: number; resultTokens: number }>();
  const toolOf = new Map<string, string>();
  let count = 0;
  let total = 0;
  const add = (kind: SurfaceKind, tokens: number) => {
    kinds.set(kind, (kinds.get(kind) ?? 0) + tokens);
    total += tokens;
  };
  const tool = (name: string) => {
    const entry = tools.get(name) ?? { calls: 0, callTokens: 0, results: 0, resultTokens: 0 };
    tools.set(name, entry);
    return entry;
  };
  for (const node of nodes) {
    count++;
    const data = node.event.data as { content?: unknown };
    const blocks = Array.isArray(data.content) ? (data.content as ContentBlock[]) : [];
    const replaced = node.sourceEventSeqs.length > 0;
    const own = kindOf(node.type, replaced);
    let ownTokens = MESSAGE_OVERHEAD_TOKENS;
    for (const block of blocks) {
      const tokens = priceOfBlock(block, estimator);
      const kind = blockKind(block, own);
      if (kind === own) ownTokens += tokens;
      else add(kind, tokens);
    }
    if (node.type === 'assistant/message') {
      for (const call of (data as Partial<AssistantMessageData>).toolCalls ?? []) {
        const tokens = estimator.countText(call.name) + estimator.countText(canonicalJson(call.arguments));
        add('tool calls', tokens);
        toolOf.set(call.callId, call.name);
        const entry = tool(call.name);
        entry.calls++;
        entry.callTokens += tokens;
      }
    } else if (node.type === 'tool/result') {
      const result = data as Partial<ToolResultData>;
      if (result.error !== undefined && result.error !== true) ownTokens += estimator.countText(result.error.message);
      const entry = tool((result.callId === undefined ? undefined : toolOf.get(result.callId)) ?? UNKNOWN_TOOL);
      entry.results++;
      entry.resultTokens += ownTokens;
    }
    add(own, ownTokens);
  }
  return {
    estimator: estimator.name,
    nodes: count,
    tokens: total,
    byKind: [...kinds]
      .filter(([, tokens]) => tokens > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, tokens]) => ({ kind, tokens })),
    byTool: [...tools]
      .sort((a, b) => b[1].resultTokens - a[1].resultTokens || b[1].callTokens - a[1].callTokens || a[0].localeCompare(b[0]))
      .map(([name, entry]) => ({ tool: name, ...entry })),
  };
}

function kindOf(type: string, replaced: boolean): SurfaceKind {
  switch (type) {
    case 'system/message':
      return 'system';
    case 'user/message':
      return replaced ? 'summaries' : 'user text';
    case 'assistant/message':
      return replaced ? 'summaries' : 'assistant text';
    case 'tool/result':
      return replaced ? 'replaced tool results' : 'tool results';
    default:
      return replaced ? 'summaries' : 'other';
  }
}

/** Reasoning and images are their own kinds wherever they are; other blocks count as their node. */
function blockKind(block: ContentBlock, own: SurfaceKind): SurfaceKind {
  if (block.type === 'reasoning') return 'reasoning';
  if (block.type === 'image') return 'images';
  if ((block.type === 'server-tool-call' || block.type === 'server-tool-result') && own === 'assistant text') return 'tool calls';
  return own;
}
