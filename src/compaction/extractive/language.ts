// Picks the locale the segmenters work in. Chinese, Japanese and Thai put no spaces between
// words, so words come from Intl.Segmenter, which needs to know what it is reading.

import type { SourceText } from './read-messages.js';
import { safeEnd } from './unicode.js';

/** Enough text to tell scripts apart; reading more changes nothing. */
const SAMPLE_CODE_UNITS = 20_000;

const SCRIPTS = {
  latin: /\p{Script=Latin}/gu,
  han: /\p{Script=Han}/gu,
  kana: /[\p{Script=Hiragana}\p{Script=Katakana}]/gu,
  hangul: /\p{Script=Hangul}/gu,
  thai: /\p{Script=Thai}/gu,
  vietnamese: /[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]/giu,
} as const;

const segmenters = new Map<string, Intl.Segmenter>();

/** Segmenters are costly to build and hold no state between calls, so they are shared. */
export function segmenterFor(locale: string, granularity: 'sentence' | 'word'): Intl.Segmenter {
  const key = `${locale}|${granularity}`;
  let segmenter = segmenters.get(key);
  if (segmenter === undefined) {
    segmenter = new Intl.Segmenter(locale, { granularity });
    segmenters.set(key, segmenter);
  }
  return segmenter;
}

function supportedLocale(locale: string): string | undefined {
  try {
    return Intl.Segmenter.supportedLocalesOf([locale])[0];
  } catch {
    // A malformed tag is the caller's mistake, but a summary can still be made: detect instead.
    return undefined;
  }
}

function countOf(pattern: RegExp, text: string): number {
  return text.match(pattern)?.length ?? 0;
}

function sampleOf(texts: readonly SourceText[]): string {
  const fromUsers = texts.filter((text) => text.role === 'user');
  let sample = '';
  for (const text of fromUsers.length > 0 ? fromUsers : texts) {
    for (const part of text.parts) {
      const room = SAMPLE_CODE_UNITS - sample.length;
      if (room <= 0) return sample;
      sample += `${part.slice(0, safeEnd(part, room))}\n`;
    }
  }
  return sample;
}

/**
 * The dominant language of the sample, by script. Characters are weighed by about how many
 * make a word (five Latin letters, one or two Han characters), so that the file names and
 * identifiers in a Chinese request do not outvote its Chinese.
 */
export function detectLocale(sample: string): string {
  const latin = countOf(SCRIPTS.latin, sample);
  const han = countOf(SCRIPTS.han, sample);
  const kana = countOf(SCRIPTS.kana, sample);
  const scores: [string, number][] = [
    [countOf(SCRIPTS.vietnamese, sample) >= Math.max(3, latin * 0.03) ? 'vi' : 'en', latin / 5],
    [kana >= (han + kana) * 0.1 ? 'ja' : 'zh', han / 1.5 + kana / 2],
    ['ko', countOf(SCRIPTS.hangul, sample) / 2.5],
    ['th', countOf(SCRIPTS.thai, sample) / 5],
  ];
  let best: [string, number] = ['en', 0];
  for (const score of scores) if (score[1] > best[1]) best = score;
  return best[0];
}

/** The caller's locale when Intl.Segmenter supports it; otherwise the one the user messages are written in. */
export function chooseLocale(requested: string | undefined, texts: readonly SourceText[]): string {
  const supported = requested === undefined ? undefined : supportedLocale(requested);
  return supported ?? detectLocale(sampleOf(texts));
}
