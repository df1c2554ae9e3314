// Cutting text without breaking characters: code-unit cuts step off surrogate pairs, and
// cuts made to fit a token budget fall between grapheme clusters, so emoji and CJK survive.

const ELLIPSIS = '…';
const JOINER = ' … ';
/** Generous: no tokenizer we know packs more code units than this into one token. */
const MAX_CODE_UNITS_PER_TOKEN = 32;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// Grapheme clusters do not depend on the locale; a fixed one keeps the output deterministic.
const graphemeSegmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

export type CountTokens = (text: string) => number;

/** Input may already hold lone surrogates; U+FFFD (also one code unit) keeps the output well formed. */
export function replaceLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** An end index at or before `end` that does not cut a surrogate pair in two. */
export function safeEnd(text: string, end: number): number {
  if (end <= 0) return 0;
  if (end >= text.length) return text.length;
  return isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end;
}

/** A start index at or after `start` that does not cut a surrogate pair in two. */
export function safeStart(text: string, start: number): number {
  if (start <= 0) return 0;
  if (start >= text.length) return text.length;
  return isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start;
}

/** At most `limit` grapheme clusters, with an ellipsis when something was cut. */
export function truncateGraphemes(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let count = 0;
  for (const { index } of graphemeSegmenter.segment(text)) {
    if (count === limit) return `${text.slice(0, index).trimEnd()}${ELLIPSIS}`;
    count += 1;
  }
  return text;
}

function graphemesOf(text: string): string[] {
  return Array.from(graphemeSegmenter.segment(text), (segment) => segment.segment);
}

/** The largest n in [0, upper] for which `fits(n)` holds, assuming fits is monotone and fits(0). */
function largestFitting(upper: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = upper;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

function headOf(units: readonly string[], count: number): string {
  return units.slice(0, count).join('').trimEnd();
}

function tailOf(units: readonly string[], count: number): string {
  return count === 0
    ? ''
    : units
        .slice(units.length - count)
        .join('')
        .trimStart();
}

/** The longest head of `text`, ending in an ellipsis, that fits `maxTokens`; undefined when none does. */
function trimHead(text: string, maxTokens: number, countTokens: CountTokens): string | undefined {
  const units = graphemesOf(text.slice(0, safeEnd(text, maxTokens * MAX_CODE_UNITS_PER_TOKEN)));
  const kept = largestFitting(units.length, (n) => countTokens(`${headOf(units, n)}${ELLIPSIS}`) <= maxTokens);
  const head = headOf(units, kept);
  return head === '' ? undefined : `${head}${ELLIPSIS}`;
}

/**
 * `text` if it fits `maxTokens`; otherwise as much as fits, cut between graphemes. 'head-and-tail'
 * keeps about two thirds from the start and the rest from the end, because a long request often
 * ends with the actual question. Undefined when not even one grapheme fits.
 */
export function trimToTokens(
  text: string,
  maxTokens: number,
  countTokens: CountTokens,
  keep: 'head' | 'head-and-tail',
): string | undefined {
  if (maxTokens <= 0) return undefined;
  if (countTokens(text) <= maxTokens) return text;
  if (keep === 'head') return trimHead(text, maxTokens, countTokens);
  const reach = maxTokens * MAX_CODE_UNITS_PER_TOKEN;
  const overlapping = text.length <= 2 * reach;
  const headUnits = graphemesOf(overlapping ? text : text.slice(0, safeEnd(text, reach)));
  const tailUnits = overlapping ? headUnits : graphemesOf(text.slice(safeStart(text, text.length - reach)));
  const headBudget = Math.floor((maxTokens * 2) / 3);
  const headCount = largestFitting(headUnits.length, (n) => countTokens(`${headOf(headUnits, n)}${JOINER}`) <= headBudget);
  const head = headOf(headUnits, headCount);
  if (head === '') return trimHead(text, maxTokens, countTokens);
  const tailRoom = overlapping ? headUnits.length - headCount : tailUnits.length;
  const tailCount = largestFitting(tailRoom, (n) => countTokens(`${head}${JOINER}${tailOf(tailUnits, n)}`) <= maxTokens);
  const tail = tailOf(tailUnits, tailCount);
  if (tail === '') return trimHead(text, maxTokens, countTokens);
  return `${head}${JOINER}${tail}`;
}
