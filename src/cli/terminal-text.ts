// Text from the log shown to a person in a terminal. Model and tool output may hold control
// sequences (ESC/CSI/OSC, a carriage return, bidi overrides) that would clear, recolour or
// rewrite what the reader sees, so human-readable output shows them escaped; --json is unchanged.

// C0 controls except tab and newline, DEL, C1 controls, the bidi embeddings, overrides and
// isolates (Trojan Source), the implicit direction marks, and the line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every character that could act on a terminal written as a visible escape (`\x1b`, `\u202e`). */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE, (character) => {
    const code = character.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
