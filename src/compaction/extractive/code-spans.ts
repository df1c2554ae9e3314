// Inline code (`…`) is one unit: a sentence never ends inside it, an error word inside it is
// code, not an error report, and a line cut to fit never stops inside it.

import { truncateGraphemes } from './unicode.js';

const CODE_SPAN = /`[^`\n]+`/g;

/** `text` with the inside of each code span replaced by letters: same length, no punctuation to split at. */
export function maskCodeSpans(text: string): string {
  return text.replace(CODE_SPAN, (span) => `\`${'x'.repeat(span.length - 2)}\``);
}

/** `text` without its code spans (each replaced by spaces), for telling prose from code. */
export function proseOf(text: string): string {
  return text.replace(CODE_SPAN, (span) => ' '.repeat(span.length));
}

/**
 * At most about `limit` graphemes, ending in an ellipsis when cut; a cut that would fall inside a
 * code span moves before the span, unless the span starts the text (then the span is kept whole).
 */
export function truncateOutsideCode(text: string, limit: number): string {
  const cut = truncateGraphemes(text, limit);
  if (cut === text) return text;
  const kept = cut.slice(0, -1).trimEnd();
  let open = -1;
  for (const match of text.matchAll(CODE_SPAN)) {
    const start = match.index;
    const end = start + match[0].length;
    if (start < kept.length && end > kept.length) open = start;
  }
  if (open < 0) return cut;
  if (open === 0) return text.slice(0, text.indexOf('`', 1) + 1) + (text.length > text.indexOf('`', 1) + 1 ? '…' : '');
  return `${text.slice(0, open).trimEnd()}…`;
}
