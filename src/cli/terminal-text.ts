// Text from the log shown to a person in a terminal. Model and tool output may hold control
// sequences (ESC/CSI/OSC, a carriage return, bidi overrides) that would clear, recolour or
// rewrite what the reader sees, and characters that show nothing at all while a model reads them
// (tag characters spelling hidden instructions, zero-width spaces and joiners), so human-readable
// output shows all of them escaped; --json is unchanged (the exact text; its escapes are JSON's).
// The audit page marks the same characters (view/client/text.ts keeps the same rule).

// C0 controls except tab and newline, DEL, C1 controls, the line and paragraph separators, the
// interlinear annotation characters, lone surrogates (half a character: a cut or broken text),
// and every default-ignorable code point: what Unicode says renders as nothing. That is the soft
// hyphen, the combining grapheme joiner, the zero-width space, non-joiner and joiner, the
// direction marks, the bidi embeddings, overrides and isolates (Trojan Source), the word joiner
// and invisible operators, the Hangul fillers, the Mongolian and other variation selectors, the
// byte order mark, and the whole tag block U+E0000–U+E0FFF. Joiners are shown inside emoji and
// Persian or Indic words too: in an audit record, seeing every hidden character is worth an odd
// looking emoji. One exception keeps ordinary emoji readable: a single U+FE0E or U+FE0F (text or
// emoji presentation) right after an emoji, which can carry at most one bit per emoji.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufff9-\ufffb\ud800-\udfff\p{Default_Ignorable_Code_Point}]/gu;
const EMOJI = /^\p{Emoji}$/u;
const VARIATION_SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;

/** `text` with every character that could act on a terminal, or shows nothing, written as a visible escape (`\x1b`, `\u202e`, `\u{e0049}`). */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE, (character: string, offset: number) =>
    isEmojiPresentation(text, character, offset) ? character : escapeCodePoint(character.codePointAt(0) ?? 0),
  );
}

/** `\xHH` up to U+00FF, `\uHHHH` in the BMP, `\u{HHHHH}` beyond it. */
export function escapeCodePoint(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** A lone U+FE0E or U+FE0F after an emoji character: the ordinary way to ask for an emoji's look. */
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

/** The first `length` UTF-16 units of `text`, one fewer where that would cut a character in two. */
export function clipText(text: string, length: number): string {
  if (length >= text.length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}
