// Where Anthropic Messages renderer version 2 puts cache_control, so that the stable prefix of a
// session is read from the prompt cache instead of paid for in full on every call. Anthropic
// caches only up to a marked block (at most four), by exact prefix, in the order tools, system,
// messages. The rule, which the renderer version names and replay repeats:
//
// 1. the last tool definition (the tools change only with the harness);
// 2. the last system block (the system prompt changes only by a compaction of position 0);
// 3. the last block of the turn before the last assistant turn: the end of the surface as the
//    previous call sent it, when the surface only grew since (a tool loop, or a new user turn),
//    so that this call reads back everything the previous one wrote, however long the new part;
// 4. the last block of the final turn: written now, for the next call to read.
//
// Thinking blocks cannot carry cache_control: a turn's last other block is marked instead. The
// digest covers the exact bytes, markers included.

import type { AnthropicBlock, AnthropicCacheControl, AnthropicTextBlock, AnthropicTool } from './wire-types.js';

export interface Turn {
  readonly role: 'user' | 'assistant';
  readonly content: AnthropicBlock[];
}

export interface CacheablePrefix {
  readonly tools: readonly AnthropicTool[];
  readonly system: readonly AnthropicTextBlock[];
  readonly turns: readonly Turn[];
}

type Markable = { cache_control?: AnthropicCacheControl };

/**
 * Marks the blocks of the rule above, each at most once: the tools' and the system's in place
 * (a render makes them anew), the turns' on copies, returned in a new list (the turns are kept
 * from one render to the next, message-memo.ts, and must stay unmarked).
 */
export function placeCacheBreakpoints(prefix: CacheablePrefix): Turn[] {
  mark(prefix.tools.at(-1));
  mark(prefix.system.at(-1));
  const turns = [...prefix.turns];
  const lastAssistant = turns.findLastIndex((turn) => turn.role === 'assistant');
  if (lastAssistant > 0) markTurn(turns, lastAssistant - 1);
  markTurn(turns, turns.length - 1);
  return turns;
}

/** Replaces turns[index] by a copy whose last markable block carries cache_control. */
function markTurn(turns: Turn[], index: number): void {
  const turn = turns[index];
  if (turn === undefined) return;
  // A turn's last block that may carry cache_control: thinking blocks may not.
  const at = turn.content.findLastIndex((candidate) => candidate.type !== 'thinking' && candidate.type !== 'redacted_thinking');
  const block = turn.content[at] as (AnthropicBlock & Markable) | undefined;
  if (block === undefined || block.cache_control !== undefined) return;
  const content = [...turn.content];
  content[at] = { ...block, cache_control: { type: 'ephemeral' } } as AnthropicBlock;
  turns[index] = { role: turn.role, content };
}

function mark(block: Markable | undefined): void {
  if (block !== undefined && block.cache_control === undefined) block.cache_control = { type: 'ephemeral' };
}
