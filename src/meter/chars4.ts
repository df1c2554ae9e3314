// The classic four-characters-per-token estimate (SPEC §10): ceil(UTF-16 length / 4), plus 4
// per content block and 4 per message. Cheap and biased (it underprices CJK about threefold);
// kept for comparison and as the spine's default until a better meter is chosen.

import { type ContentBlock, pricedText } from '../log/content-block.js';

export function chars4Text(text: string): number {
  return Math.ceil(text.length / 4);
}

export function chars4Blocks(blocks: readonly ContentBlock[]): number {
  let total = 0;
  for (const block of blocks) total += 4 + chars4Text(pricedText(block));
  return total;
}

/** A message: its blocks, 4 for the message, and its tool calls' names and arguments as text. */
export function chars4Message(blocks: readonly ContentBlock[], extraText = ''): number {
  return 4 + chars4Blocks(blocks) + (extraText === '' ? 0 : chars4Text(extraText));
}
