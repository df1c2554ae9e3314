// The characters the audit page marks in log text, and their names. No DOM here: text.ts turns
// each into a marked element.

// The same characters as the terminal's escaping (cli/terminal-text.ts, which says why each is
// there; a test holds the two to the same answer for every code point): C0 and C1 controls but
// tab and newline, DEL, the line and paragraph separators, the interlinear annotation
// characters, lone surrogates, and every default-ignorable code point, but for a single U+FE0E
// or U+FE0F right after an emoji.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const MARKED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufff9-\ufffb\ud800-\udfff\p{Default_Ignorable_Code_Point}]/gu;
const EMOJI = /^\p{Emoji}$/u;
const VARIATION_SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;

/** Where `text` has characters to mark: [offset, character] in order. */
export function markedCharacters(text: string): Array<[number, string]> {
  const found: Array<[number, string]> = [];
  MARKED.lastIndex = 0;
  for (let match = MARKED.exec(text); match !== null; match = MARKED.exec(text)) {
    if (!isEmojiPresentation(text, match[0], match.index)) found.push([match.index, match[0]]);
  }
  return found;
}

function isEmojiPresentation(text: string, character: string, offset: number): boolean {
  if (character !== '\ufe0e' && character !== '\ufe0f') return false;
  const before = codePointBefore(text, offset);
  if (before === undefined || !EMOJI.test(before) || VARIATION_SELECTOR.test(before)) return false;
  const after = text.codePointAt(offset + 1);
  return after === undefined || !VARIATION_SELECTOR.test(String.fromCodePoint(after));
}

function codePointBefore(text: string, offset: number): string | undefined {
  if (offset === 0) return undefined;
  const low = text.charCodeAt(offset - 1);
  const high = offset >= 2 ? text.charCodeAt(offset - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return pair ? text.slice(offset - 2, offset) : text.slice(offset - 1, offset);
}

/** `\xHH` up to U+00FF, `\uHHHH` in the BMP, `\u{HHHHH}` beyond it, as the terminal writes them. */
export function escapeCodePoint(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** `text` with every marked character written as its escape: for text that cannot hold a marked element (a title, an attribute). */
export function visible(text: string): string {
  const found = markedCharacters(text);
  if (found.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [offset, character] of found) {
    out += text.slice(at, offset) + escapeCodePoint(character.codePointAt(0) ?? 0);
    at = offset + character.length;
  }
  return out + text.slice(at);
}

/** How many characters of `text` the page marks as invisible or controlling. */
export function invisibleCount(text: string): number {
  return markedCharacters(text).length;
}

/**
 * The text that tag characters (U+E0020–U+E007E, each the ASCII character 0xE0000 below it)
 * spell in `text`: what a model reads there and a person does not see; '' when there are none.
 */
export function hiddenTagText(text: string): string {
  let out = '';
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (code >= 0xe0020 && code <= 0xe007e) out += String.fromCharCode(code - 0xe0000);
  }
  return out;
}

export function codePointLabel(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

const NAMES: Record<number, string> = {
  0: 'NULL',
  7: 'BELL',
  8: 'BACKSPACE',
  11: 'LINE TABULATION',
  12: 'FORM FEED',
  13: 'CARRIAGE RETURN',
  27: 'ESCAPE',
  127: 'DELETE',
  155: 'CONTROL SEQUENCE INTRODUCER',
  157: 'OPERATING SYSTEM COMMAND',
  173: 'SOFT HYPHEN',
  847: 'COMBINING GRAPHEME JOINER',
  1564: 'ARABIC LETTER MARK',
  4447: 'HANGUL CHOSEONG FILLER',
  4448: 'HANGUL JUNGSEONG FILLER',
  6068: 'KHMER VOWEL INHERENT AQ',
  6069: 'KHMER VOWEL INHERENT AA',
  6155: 'MONGOLIAN FREE VARIATION SELECTOR ONE',
  6156: 'MONGOLIAN FREE VARIATION SELECTOR TWO',
  6157: 'MONGOLIAN FREE VARIATION SELECTOR THREE',
  6158: 'MONGOLIAN VOWEL SEPARATOR',
  6159: 'MONGOLIAN FREE VARIATION SELECTOR FOUR',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8232: 'LINE SEPARATOR',
  8233: 'PARAGRAPH SEPARATOR',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8288: 'WORD JOINER',
  8289: 'FUNCTION APPLICATION',
  8290: 'INVISIBLE TIMES',
  8291: 'INVISIBLE SEPARATOR',
  8292: 'INVISIBLE PLUS',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  8298: 'INHIBIT SYMMETRIC SWAPPING',
  8299: 'ACTIVATE SYMMETRIC SWAPPING',
  8300: 'INHIBIT ARABIC FORM SHAPING',
  8301: 'ACTIVATE ARABIC FORM SHAPING',
  8302: 'NATIONAL DIGIT SHAPES',
  8303: 'NOMINAL DIGIT SHAPES',
  12644: 'HANGUL FILLER',
  65279: 'ZERO WIDTH NO-BREAK SPACE (BYTE ORDER MARK)',
  65440: 'HALFWIDTH HANGUL FILLER',
  65529: 'INTERLINEAR ANNOTATION ANCHOR',
  65530: 'INTERLINEAR ANNOTATION SEPARATOR',
  65531: 'INTERLINEAR ANNOTATION TERMINATOR',
  113824: 'SHORTHAND FORMAT LETTER OVERLAP',
  113825: 'SHORTHAND FORMAT CONTINUING OVERLAP',
  113826: 'SHORTHAND FORMAT DOWN STEP',
  113827: 'SHORTHAND FORMAT UP STEP',
  917505: 'LANGUAGE TAG',
  917631: 'CANCEL TAG',
};

const MUSICAL = ['BEGIN BEAM', 'END BEAM', 'BEGIN TIE', 'END TIE', 'BEGIN SLUR', 'END SLUR', 'BEGIN PHRASE', 'END PHRASE'];

// The names of the printable ASCII characters, U+0020 to U+007E: a tag character is named after its ASCII twin.
const ASCII_NAMES = [
  'SPACE',
  'EXCLAMATION MARK',
  'QUOTATION MARK',
  'NUMBER SIGN',
  'DOLLAR SIGN',
  'PERCENT SIGN',
  'AMPERSAND',
  'APOSTROPHE',
  'LEFT PARENTHESIS',
  'RIGHT PARENTHESIS',
  'ASTERISK',
  'PLUS SIGN',
  'COMMA',
  'HYPHEN-MINUS',
  'FULL STOP',
  'SOLIDUS',
  ...'0123456789'
    .split('')
    .map((digit) => `DIGIT ${['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'][Number(digit)]}`),
  'COLON',
  'SEMICOLON',
  'LESS-THAN SIGN',
  'EQUALS SIGN',
  'GREATER-THAN SIGN',
  'QUESTION MARK',
  'COMMERCIAL AT',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map((letter) => `LATIN CAPITAL LETTER ${letter}`),
  'LEFT SQUARE BRACKET',
  'REVERSE SOLIDUS',
  'RIGHT SQUARE BRACKET',
  'CIRCUMFLEX ACCENT',
  'LOW LINE',
  'GRAVE ACCENT',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map((letter) => `LATIN SMALL LETTER ${letter}`),
  'LEFT CURLY BRACKET',
  'VERTICAL LINE',
  'RIGHT CURLY BRACKET',
  'TILDE',
];

/** The Unicode name of a character the page marks (a description where it has none). */
export function characterName(code: number): string {
  const named = NAMES[code];
  if (named !== undefined) return named;
  if (code >= 0xe0020 && code <= 0xe007e) return `TAG ${ASCII_NAMES[code - 0xe0020]}`;
  if (code >= 0xfe00 && code <= 0xfe0f) return `VARIATION SELECTOR-${code - 0xfe00 + 1}`;
  if (code >= 0xe0100 && code <= 0xe01ef) return `VARIATION SELECTOR-${code - 0xe0100 + 17}`;
  if (code >= 0x1d173 && code <= 0x1d17a) return `MUSICAL SYMBOL ${MUSICAL[code - 0x1d173]}`;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  if (code >= 0xd800 && code <= 0xdbff) return 'a lone high surrogate: half a character';
  if (code >= 0xdc00 && code <= 0xdfff) return 'a lone low surrogate: half a character';
  return 'an invisible (default-ignorable) character with no name yet';
}
