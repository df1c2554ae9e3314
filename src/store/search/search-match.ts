// The plain-text match of `shadowlog search`: control characters read as spaces, case ignored.
// A module that imports nothing, so that the audit page's script joins it as it is (its record
// search finds what `search` finds) and every store decides a hit with it.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text as search reads it: every control character (line breaks and tabs included) a space, so a hit shows on one line. */
export function normalizeSearchText(text: string): string {
  return text.replace(CONTROL, ' ');
}

/** Where a text matches, in UTF-16 offsets. */
export interface TextMatch {
  readonly start: number;
  readonly length: number;
}

/**
 * The matcher of a plain (not --regex) search for `text`: a case-insensitive substring of a
 * part's text, both read as normalizeSearchText reads them. `text` must hold more than spaces.
 */
export function plainTextMatcher(text: string): (candidate: string) => TextMatch | undefined {
  const needle = normalizeSearchText(text).toLowerCase();
  return (candidate) => {
    const lowered = candidate.toLowerCase();
    const start = lowered.indexOf(needle);
    if (start < 0) return undefined;
    // Lower-casing kept the offsets unless a character changed length (rare: İ); then the snippet starts at the front.
    return lowered.length === candidate.length ? { start, length: needle.length } : { start: 0, length: 0 };
  };
}
