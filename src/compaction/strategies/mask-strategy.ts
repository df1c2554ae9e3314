// The `mask` strategy, observation masking: tool results older than a kept tail become a
// placeholder naming the tool, the size, and the seq that holds the original; no model call.
// Each masked result is its own replacement (a compaction/mask event, then the placeholder
// tool/result), like the pruner's, and all of one compaction are appended in one batch.

import type { AssistantMessageData, ContentBlock, EventDraft, ToolResultData } from '../../log/event.js';
import type { SurfaceFold, SurfaceNode } from '../../log/surface-fold.js';
import { COMPACTION_MASK, type CompactionMaskData } from '../event-types.js';
import type { MaskSetting } from '../policy/policy-config.js';
import type { Selection } from '../select-range.js';
import { codePointLength } from '../tool-result-pruner.js';
import { isMaskPlaceholder, maskPlaceholder } from './mask-placeholder.js';
import type { CompactionStrategy, SelectInput } from './strategy.js';

interface Candidate {
  readonly node: SurfaceNode;
  readonly price: number;
  readonly index: number;
}

/** The tool each call on the surface named, by call id. */
function toolNames(nodes: readonly SurfaceNode[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const node of nodes) {
    if (node.type !== 'assistant/message') continue;
    for (const call of (node.event.data as unknown as AssistantMessageData).toolCalls) names.set(call.callId, call.name);
  }
  return names;
}

function textLength(content: readonly ContentBlock[]): number {
  return content.reduce((sum, block) => sum + (block.type === 'text' ? codePointLength(block.text) : 0), 0);
}

function isMasked(node: SurfaceNode): boolean {
  if (node.sourceEventSeqs.length === 0) return false;
  const content = (node.event.data as unknown as ToolResultData).content;
  const first = content[0];
  return content.length === 1 && first?.type === 'text' && isMaskPlaceholder(first.text);
}

/** The index of the first node of the retained tail: as many nodes from the end as fit in `retain` tokens. */
function tailStart(prices: readonly number[], retain: number): number {
  let cut = prices.length;
  let tail = 0;
  while (cut > 0 && tail + (prices[cut - 1] ?? 0) <= retain) tail += prices[--cut] ?? 0;
  return cut;
}

/** The tool results that stay whole under `keep`, out of all the results on the surface (oldest first). */
function keptResults(results: readonly Candidate[], keep: MaskSetting, prices: readonly number[], retain: number): Set<number> {
  const kept = new Set<number>();
  if (keep.kind === 'tail') {
    const start = tailStart(prices, retain);
    for (const result of results) if (result.index >= start) kept.add(result.node.seq);
  } else if (keep.kind === 'results') {
    for (const result of results.slice(Math.max(0, results.length - keep.results))) kept.add(result.node.seq);
  } else {
    let tokens = 0;
    for (let index = results.length - 1; index >= 0; index--) {
      const result = results[index] as Candidate;
      if (tokens + result.price > keep.tokens) break;
      tokens += result.price;
      kept.add(result.node.seq);
    }
  }
  return kept;
}

interface Masked {
  readonly seq: number;
  readonly price: number;
  readonly tool: string;
  readonly chars: number;
  readonly placeholder: ToolResultData;
  readonly placeholderTokens: number;
}

/** The placeholder for the tool result `node`, whose price is `price`. */
function maskOf(node: SurfaceNode, price: number, tools: ReadonlyMap<string, string>, priceOfData: SelectInput['priceOfData']): Masked {
  const original = node.event.data as unknown as ToolResultData;
  const tool = tools.get(original.callId) ?? 'a tool';
  const chars = textLength(original.content);
  const placeholder: ToolResultData = {
    callId: original.callId,
    content: [{ type: 'text', text: maskPlaceholder({ tool, chars, tokens: price, seq: node.seq }) }],
    ...(original.error === undefined ? {} : { error: original.error }),
  };
  return { seq: node.seq, price, tool, chars, placeholder, placeholderTokens: priceOfData('tool/result', placeholder) };
}

export interface MaskStrategyOptions {
  /** Which recent tool results stay whole. Default: those within the policy's retained tail. */
  readonly keep?: MaskSetting;
}

export function createMaskStrategy(options: MaskStrategyOptions = {}): CompactionStrategy {
  const keep = options.keep ?? { kind: 'tail' };
  return {
    name: 'mask',
    select(input: SelectInput): Selection | undefined {
      const { nodes, prices } = input;
      const results: Candidate[] = [];
      nodes.forEach((node, index) => {
        if (node.type === 'tool/result') results.push({ node, price: prices[index] ?? 0, index });
      });
      const kept = keptResults(results, keep, prices, input.retain);
      const tools = toolNames(nodes);
      const chosen = results.filter(({ node, price }) => {
        // Never a result the model has not been sent: it would never see what it asked for.
        if (kept.has(node.seq) || isMasked(node) || !input.sent(node.seq)) return false;
        // A short result costs less than its placeholder.
        return maskOf(node, price, tools, input.priceOfData).placeholderTokens < price;
      });
      if (chosen.length === 0) return undefined;
      return {
        startSeq: (chosen[0] as Candidate).node.seq,
        endSeq: (chosen[chosen.length - 1] as Candidate).node.seq,
        seqs: chosen.map((result) => result.node.seq),
        prices: chosen.map((result) => result.price),
      };
    },
    problem(fold: SurfaceFold, selection: Selection): string | undefined {
      for (const seq of selection.seqs) if (fold.node(seq)?.seq !== seq) return `tool result #${seq} is no longer on the surface`;
      return undefined;
    },
    async plan(input) {
      const tools = toolNames(input.log.fold.toArray());
      const masked = input.nodes.map((node, index) => maskOf(node, input.selection.prices[index] ?? 0, tools, input.priceOfData));
      const replacing = masked.reduce((sum, result) => sum + result.placeholderTokens, 0);
      return {
        tokensAfter: input.measureAfter(replacing),
        drafts: (firstSeq) =>
          masked.flatMap((result, index): EventDraft[] => {
            const data: CompactionMaskData = {
              compactionId: input.compactionId,
              shadowedSeqs: [result.seq],
              shadowedTokenCount: result.price,
              replacementTokenCount: result.placeholderTokens,
              tool: result.tool,
              chars: result.chars,
            };
            return [
              { type: COMPACTION_MASK, data: { ...data }, ignorable: true },
              {
                type: 'tool/result',
                data: { ...result.placeholder },
                surfaceOp: { op: 'replace', startSeq: result.seq as never, endSeq: result.seq as never },
                // Each placeholder lists its original and the compaction/mask just before it.
                sourceEventSeqs: [result.seq, firstSeq + 2 * index],
              },
            ];
          }),
      };
    },
  };
}
