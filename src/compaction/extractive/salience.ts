// How much a sentence says about the range: TF-IDF over the range, with words from
// Intl.Segmenter so that Chinese and Japanese (no spaces) are scored by words, not by lines.

import { segmenterFor } from './language.js';
import type { Sentence } from './sentences.js';

/** Function words the segmenter reports as words; in a short range IDF alone would not damp them. */
const STOP_WORDS = new Set(
  (
    'the a an and or but of to in on at for with from by as is are was were be been being it its this that these those ' +
    'i you he she we they me my your our their not no yes do does did have has had can could would should may might ' +
    'then than so if else there here what which who when where how all any some just also very into out up about over'
  ).split(' '),
);
const ASCII_ONLY = /^[!-~]*$/;

function termsOf(text: string, segmenter: Intl.Segmenter): string[] {
  const terms: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(text)) {
    if (isWordLike !== true) continue;
    const term = segment.toLowerCase();
    // One ASCII character ("a", "1") says nothing, but one Han character can be a whole word.
    if ((term.length < 2 && ASCII_ONLY.test(term)) || STOP_WORDS.has(term)) continue;
    terms.push(term);
  }
  return terms;
}

/**
 * One score in [0, 1] per sentence: the sum of its distinct terms' weights, divided by the
 * square root of how many there are so that long sentences do not win by length alone. A
 * term weighs more when it recurs in the range (log of its count) but not everywhere (IDF).
 */
export function salienceOf(sentences: readonly Sentence[], locale: string): number[] {
  const segmenter = segmenterFor(locale, 'word');
  const termSets = sentences.map((sentence) => new Set(termsOf(sentence.text, segmenter)));
  const documentFrequency = new Map<string, number>();
  for (const terms of termSets) for (const term of terms) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const total = Math.max(1, sentences.length);
  // Counting each term once per sentence makes its frequency and document frequency equal;
  // their product log(1 + df) * log(1 + N / df) still favours terms that recur but are not everywhere.
  const weight = (term: string): number => {
    const frequency = documentFrequency.get(term) ?? 1;
    return Math.log(1 + frequency) * Math.log(1 + total / frequency);
  };
  const raw = termSets.map((terms) => {
    let sum = 0;
    for (const term of terms) sum += weight(term);
    return terms.size === 0 ? 0 : sum / Math.sqrt(terms.size);
  });
  const highest = raw.reduce((best, value) => Math.max(best, value), 0);
  return raw.map((value) => (highest === 0 ? 0 : value / highest));
}
