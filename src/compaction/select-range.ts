// Range selection (SPEC §7 step 3): everything after a position-0 system message, minus a
// verbatim tail of at most `retain` tokens, with the cut moved toward the head until no tool
// call is separated from its result.

import type { AssistantMessageData, ToolResultData } from '../log/event.js';
import type { SurfaceNode } from '../log/surface-fold.js';

export interface Selection {
  readonly startSeq: number;
  readonly endSeq: number;
  /** The shadowed nodes, in surface order. */
  readonly seqs: readonly number[];
  /** The price of each shadowed node. */
  readonly prices: readonly number[];
}

/**
 * @param prices the price of each node, in the same order as `nodes`
 * @returns undefined when nothing is selectable
 */
export function selectRange(nodes: readonly SurfaceNode[], prices: readonly number[], retain: number): Selection | undefined {
  const head = nodes[0]?.type === 'system/message' ? 1 : 0;
  let cut = nodes.length;
  let tail = 0;
  while (cut > head && tail + (prices[cut - 1] ?? 0) <= retain) tail += prices[--cut] ?? 0;

  // reach[c]: the furthest index that a tool call standing before c pairs with.
  const reach = pairReach(nodes);
  while (cut > head && (reach[cut] ?? -1) >= cut) cut--;
  if (cut <= head) return undefined;
  const shadowed = nodes.slice(head, cut);
  return {
    startSeq: (shadowed[0] as SurfaceNode).seq,
    endSeq: (shadowed[shadowed.length - 1] as SurfaceNode).seq,
    seqs: shadowed.map((node) => node.seq),
    prices: prices.slice(head, cut),
  };
}

/** reach[c] = max over calls at index < c of the index of their result (nodes.length for a call still waiting). */
function pairReach(nodes: readonly SurfaceNode[]): number[] {
  const resultIndex = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (node.type === 'tool/result') resultIndex.set((node.event.data as unknown as ToolResultData).callId, index);
  });
  const reach: number[] = [-1];
  let furthest = -1;
  nodes.forEach((node, index) => {
    if (node.type === 'assistant/message') {
      for (const call of (node.event.data as unknown as AssistantMessageData).toolCalls) {
        furthest = Math.max(furthest, resultIndex.get(call.callId) ?? nodes.length);
      }
    }
    reach[index + 1] = furthest;
  });
  return reach;
}
