// Splits the read text into sentences with Intl.Segmenter, which breaks at 。！？ as well as
// at . ! ? and at line ends, so tool output falls into lines and CJK prose into sentences.
// Inline code is masked while segmenting, so `if (field !== '')` is never split at its "!".

import { maskCodeSpans } from './code-spans.js';
import { segmenterFor } from './language.js';
import type { SourceRole, SourceText } from './read-messages.js';
import { safeEnd } from './unicode.js';

/** Longer sentences (minified code, base64) are cut: they are rarely worth keeping whole, and
 * capping them keeps every later regular expression linear in practice. */
const ANALYSIS_CODE_UNITS = 600;

export const EXTRACTIVE_LABEL = '[extractive summary: sentences selected from the original messages, no model wrote this]';

export interface Sentence {
  /** Reading order over the whole range. */
  readonly position: number;
  readonly messageIndex: number;
  readonly role: SourceRole;
  readonly toolName: string | undefined;
  /** Whitespace collapsed, markdown list markers removed, cut to ANALYSIS_CODE_UNITS. */
  readonly text: string;
  /** For a tool result: the id of its call. */
  readonly callId: string | undefined;
  /** From a tool result that reported an error. */
  readonly inErrorResult: boolean;
  /** The first sentence of its message. */
  readonly isFirst: boolean;
}

/** Stack frames ("    at f (x.js:1:2)", Python's 'File "x", line 3'): the head line says it all. */
const STACK_FRAME = /^\s*(?:at\s+(?:async\s+)?\S+(?:\s+\(.*\))?\s*$|at\s+.*:\d+:\d+\)?\s*$|File ".*", line \d+)/;
const CODE_FENCE = /^\s*(?:```|~~~)/;
const LIST_MARKER = /^(?:[#>*+-]+\s+|\d+[.)]\s+)+/;
const TWO_LETTERS = /\p{L}.*\p{L}/su;

function clean(raw: string): string | undefined {
  if (STACK_FRAME.test(raw) || CODE_FENCE.test(raw)) return undefined;
  const collapsed = raw.replace(/\s+/g, ' ').trim().replace(LIST_MARKER, '');
  const text = collapsed.slice(0, safeEnd(collapsed, ANALYSIS_CODE_UNITS));
  if (!TWO_LETTERS.test(text) || text === EXTRACTIVE_LABEL) return undefined;
  return text;
}

/** Every sentence of every text, in reading order. */
export function splitSentences(texts: readonly SourceText[], locale: string): Sentence[] {
  const segmenter = segmenterFor(locale, 'sentence');
  const sentences: Sentence[] = [];
  for (const source of texts) {
    let first = true;
    for (const part of source.parts) {
      for (const { segment, index } of segmenter.segment(maskCodeSpans(part))) {
        const text = clean(part.slice(index, index + segment.length));
        if (text === undefined) continue;
        sentences.push({
          position: sentences.length,
          messageIndex: source.messageIndex,
          role: source.role,
          toolName: source.toolName,
          callId: source.callId,
          text,
          inErrorResult: source.isError,
          isFirst: first,
        });
        first = false;
      }
    }
  }
  return sentences;
}
