// The rule for characters that act on a terminal or show nothing (issue 25, item 6), unit by
// unit: the terminal's escaping and the page's marking agree on every code point, ordinary text
// and ordinary emoji pass unchanged, and a cut never makes half a character.

import { describe, expect, it } from 'vitest';
import { clipText, escapeTerminalText } from '../../src/cli/terminal-text.js';
import { characterName, hiddenTagText, invisibleCount, visible } from '../../src/view/client/invisible-text.js';

describe('invisible characters', () => {
  it('escapes tag characters, zero-width characters, the BOM, soft hyphens and variation selectors', () => {
    expect(escapeTerminalText('a\u{e0049}\u{e0067}b')).toBe('a\\u{e0049}\\u{e0067}b');
    expect(escapeTerminalText('zero\u200bwidth\u200c\u200d')).toBe('zero\\u200bwidth\\u200c\\u200d');
    expect(escapeTerminalText('\ufeffbom soft\u00adhyphen word\u2060joiner')).toBe('\\ufeffbom soft\\xadhyphen word\\u2060joiner');
    expect(escapeTerminalText('x\ufe00\u{e0100}\u{e01ef}')).toBe('x\\ufe00\\u{e0100}\\u{e01ef}');
    expect(escapeTerminalText('\u2066isolate\u2069 \u202eevil')).toBe('\\u2066isolate\\u2069 \\u202eevil');
    expect(escapeTerminalText('hangul\u3164filler \u115f \u034f \u180e \u{1d173}')).toBe(
      'hangul\\u3164filler \\u115f \\u034f \\u180e \\u{1d173}',
    );
    // Half a character (a broken or cut text) is named, not printed as a replacement glyph.
    expect(escapeTerminalText('lone \ud83d high, lone \ude00 low')).toBe('lone \\ud83d high, lone \\ude00 low');
  });

  it('keeps ordinary text, and a single presentation selector after an emoji; joiners are shown even in emoji', () => {
    const ordinary = 'tab\tand\nnewline, 日本語, עברית, العربية, Ünïcödé, emoji 🙂 👍🏽 🇫🇷';
    expect(escapeTerminalText(ordinary)).toBe(ordinary);
    expect(escapeTerminalText('⚠️ ❤️ 1️⃣ ☺︎')).toBe('⚠️ ❤️ 1️⃣ ☺︎');
    expect(escapeTerminalText('a\ufe0f')).toBe('a\\ufe0f');
    expect(escapeTerminalText('😀\ufe0f\ufe0f')).toBe('😀\\ufe0f\\ufe0f');
    expect(escapeTerminalText('😀\ufe0f\ufe01')).toBe('😀\\ufe0f\\ufe01');
    expect(escapeTerminalText('👨\u200d👩\u200d👧')).toBe('👨\\u200d👩\\u200d👧');
    expect(escapeTerminalText('می\u200cخواهم')).toBe('می\\u200cخواهم');
  });

  it('the page marks exactly the characters the terminal escapes, for every code point', () => {
    const differences: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const text = `a${String.fromCodePoint(code)}b`;
      if (escapeTerminalText(text) !== visible(text)) differences.push(code.toString(16));
      if (differences.length > 5) break;
    }
    expect(differences).toEqual([]);
    for (const text of ['⚠️', '😀\ufe0f\ufe0f', 'a\ufe0f', '1️⃣', '👨\u200d👩', '\ud83d', 'x\ud83d', '\u{e0049}\ufe0f'])
      expect(visible(text)).toBe(escapeTerminalText(text));
  });

  it('counts what it marks, names it, and spells out tag characters', () => {
    expect(invisibleCount('ok')).toBe(0);
    expect(invisibleCount('⚠️ a\u200bb\u{e0041}')).toBe(2);
    expect(hiddenTagText('visible\u{e0048}\u{e0069}\u{e0021}\u{e007f} text')).toBe('Hi!');
    expect(characterName(0xe0049)).toBe('TAG LATIN CAPITAL LETTER I');
    expect(characterName(0xe0020)).toBe('TAG SPACE');
    expect(characterName(0xe007e)).toBe('TAG TILDE');
    expect(characterName(0xfe0f)).toBe('VARIATION SELECTOR-16');
    expect(characterName(0xe01ef)).toBe('VARIATION SELECTOR-256');
    expect(characterName(0x200b)).toBe('ZERO WIDTH SPACE');
  });

  it('cuts text without splitting a surrogate pair', () => {
    expect(clipText('ab\u{e0049}c', 3)).toBe('ab');
    expect(clipText('ab\u{e0049}c', 4)).toBe('ab\u{e0049}');
    expect(clipText('abc', 10)).toBe('abc');
    expect(escapeTerminalText(`${clipText('x😀', 2)}…`)).toBe('x…');
  });
});
