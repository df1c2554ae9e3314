// Character classes for the script-aware estimator: one byte per UTF-16 code unit, so the
// estimator classifies a character with one table lookup instead of a regular expression.

// Letters are the classes FIRST_LETTER..LAST_LETTER; a high surrogate is resolved by astralClass.
export const SYMBOL = 0;
export const SPACE = 1;
export const NEWLINE = 2;
export const DIGIT = 3;
export const LOWER = 4;
export const UPPER = 5;
export const MARKED = 6;
export const CYRILLIC = 7;
export const ALPHABET = 8;
export const BRAHMIC = 9;
export const HAN = 10;
export const KANA = 11;
export const HANGUL = 12;
export const HIGH_SURROGATE = 13;
export const WIDE_SYMBOL = 14;

export const FIRST_LETTER = LOWER;
export const LAST_LETTER = HANGUL;

/** [first, last, class] over UTF-16 code units; later ranges override earlier ones. */
const RANGES: ReadonlyArray<readonly [number, number, number]> = [
  [0x0080, 0xffff, WIDE_SYMBOL],
  [0x0009, 0x0009, SPACE],
  [0x000a, 0x000a, NEWLINE],
  [0x000b, 0x000c, SPACE],
  [0x000d, 0x000d, NEWLINE],
  [0x0020, 0x0020, SPACE],
  [0x0030, 0x0039, DIGIT],
  [0x0041, 0x005a, UPPER],
  [0x0061, 0x007a, LOWER],
  [0x00a0, 0x00a0, SPACE],
  [0x00aa, 0x00aa, MARKED],
  [0x00b5, 0x00b5, MARKED],
  [0x00ba, 0x00ba, MARKED],
  [0x00c0, 0x02ff, MARKED],
  [0x00d7, 0x00d7, WIDE_SYMBOL],
  [0x00f7, 0x00f7, WIDE_SYMBOL],
  [0x0300, 0x036f, MARKED],
  [0x0370, 0x03ff, ALPHABET],
  [0x0400, 0x052f, CYRILLIC],
  [0x0530, 0x08ff, ALPHABET],
  [0x0660, 0x0669, DIGIT],
  [0x06f0, 0x06f9, DIGIT],
  [0x0900, 0x109f, BRAHMIC],
  [0x10a0, 0x10ff, ALPHABET],
  [0x1100, 0x11ff, HANGUL],
  [0x1200, 0x139f, BRAHMIC],
  [0x1780, 0x17ff, BRAHMIC],
  [0x1ab0, 0x1aff, MARKED],
  [0x1c80, 0x1c8f, CYRILLIC],
  [0x1dc0, 0x1eff, MARKED],
  [0x1f00, 0x1fff, ALPHABET],
  [0x2000, 0x200a, SPACE],
  [0x2028, 0x2029, SPACE],
  [0x202f, 0x202f, SPACE],
  [0x205f, 0x205f, SPACE],
  [0x2c60, 0x2c7f, MARKED],
  [0x2de0, 0x2dff, CYRILLIC],
  [0x2e80, 0x2fdf, HAN],
  [0x3000, 0x3000, SPACE],
  [0x3005, 0x3005, HAN],
  [0x3040, 0x30ff, KANA],
  [0x30fb, 0x30fb, WIDE_SYMBOL],
  [0x3100, 0x312f, KANA],
  [0x3130, 0x318f, HANGUL],
  [0x31f0, 0x31ff, KANA],
  [0x3400, 0x4dbf, HAN],
  [0x4e00, 0xa4cf, HAN],
  [0xa640, 0xa69f, CYRILLIC],
  [0xa700, 0xa7ff, MARKED],
  [0xa960, 0xa97f, HANGUL],
  [0xac00, 0xd7ff, HANGUL],
  [0xd800, 0xdbff, HIGH_SURROGATE],
  [0xf900, 0xfaff, HAN],
  [0xfb00, 0xfb4f, MARKED],
  [0xfb50, 0xfdff, ALPHABET],
  [0xfe00, 0xfe0f, MARKED],
  [0xfe70, 0xfefe, ALPHABET],
  [0xfeff, 0xfeff, SPACE],
  [0xff10, 0xff19, DIGIT],
  [0xff21, 0xff3a, HAN],
  [0xff41, 0xff5a, HAN],
  [0xff66, 0xff9f, KANA],
  [0xffa0, 0xffdc, HANGUL],
];

/** One byte per UTF-16 code unit: a table lookup instead of a regular expression per character. */
export const CLASS_OF: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  for (const [first, last, characterClass] of RANGES) table.fill(characterClass, first, last + 1);
  return table;
})();

/** The class of the code point at a high surrogate: CJK extension ideographs, else a symbol (emoji). */
export function astralClass(text: string, index: number): number {
  const codePoint = text.codePointAt(index) as number;
  return codePoint >= 0x20000 && codePoint <= 0x3ffff ? HAN : HIGH_SURROGATE;
}

export function isLetterAt(text: string, index: number): boolean {
  let characterClass = CLASS_OF[text.charCodeAt(index)] as number;
  if (characterClass === HIGH_SURROGATE) characterClass = astralClass(text, index);
  return characterClass >= FIRST_LETTER && characterClass <= LAST_LETTER;
}
