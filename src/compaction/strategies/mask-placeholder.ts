// The text that stands for a masked tool result: it names the tool, the original's size, and
// the seq that holds it, so that the model (and a reader of the surface) knows what was there
// and where the log keeps it.

import { formatCount } from '../policy/format-count.js';

export const MASK_PREFIX = '[masked tool result: ';

export interface MaskedResult {
  readonly tool: string;
  readonly chars: number;
  readonly tokens: number;
  readonly seq: number;
}

export function maskPlaceholder({ tool, chars, tokens, seq }: MaskedResult): string {
  return `${MASK_PREFIX}${tool} returned ${formatCount(chars)} characters (${formatCount(tokens)} tokens); the original is event #${seq} of the log]`;
}

/** Whether `text` is a placeholder this strategy wrote (a masked result is not masked again). */
export function isMaskPlaceholder(text: string): boolean {
  return text.startsWith(MASK_PREFIX) && text.endsWith(' of the log]');
}
