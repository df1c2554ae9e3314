// What a person reading shadowlog's output should never meet: a placeholder where a number
// exists ("?", NaN, undefined, Infinity, [object Object]), a negative count, a stack trace. Each
// check returns the offending lines (empty when the output reads well), so that a failing journey
// prints the exact line. `ownLines` leaves out lines that quote the session (a tool result may
// well say "undefined"): only what shadowlog itself wrote is judged.

export interface ReadingOptions {
  /** Which lines shadowlog wrote itself; the others quote the session and are not judged. */
  readonly ownLines?: (line: string) => boolean;
}

/** Lines of `show` that shadowlog writes itself: the ones not indented (content is indented). */
export const unindented = (line: string): boolean => !/^\s/.test(line);

const COUNT_NOUNS =
  'events?|model calls?|calls?|tokens?|nodes?|compactions?|prunes?|turns?|steps?|lines?|sessions?|messages?|results?|drops?|parts?|bytes?';

const PLACEHOLDERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/(^|[\s(/:=])\?($|[\s),%/:;])/, 'a "?" where a value belongs'],
  [/\bNaN\b/, 'NaN'],
  [/\bundefined\b/, 'undefined'],
  [/\bnull\b/, 'null'],
  [/(^|[^\w])-?Infinity\b/, 'Infinity'],
  [/\[object \w+\]/, 'an object printed as [object …]'],
  [new RegExp(`(^|[^\\w.+\\-−])[-−]\\d[\\d,]*(\\.\\d+)?\\s+(${COUNT_NOUNS})\\b`), 'a negative count'],
  [/^\s+at\s.+(:\d+:\d+\)?|\(native\)|<anonymous>\)?)$/, 'a stack trace line'],
  [/\b(TypeError|ReferenceError|RangeError|SyntaxError|AssertionError)\b:/, 'an uncaught JavaScript error'],
  [/\bnode:internal\//, 'a Node.js internal frame'],
];

function judged(text: string, options: ReadingOptions): string[] {
  const lines = text.split('\n');
  return options.ownLines === undefined ? lines : lines.filter(options.ownLines);
}

/** Each line that shows a placeholder, a negative count or a stack trace, with what is wrong in it. */
export function unreadableLines(text: string, options: ReadingOptions = {}): string[] {
  const problems: string[] = [];
  for (const line of judged(text, options)) {
    for (const [pattern, what] of PLACEHOLDERS) if (pattern.test(line)) problems.push(`${what}: ${line}`);
  }
  return problems;
}

/** Each "1 calls" or "2 call": a count whose noun does not agree with it in number. */
export function countsThatDisagree(text: string, options: ReadingOptions = {}): string[] {
  const problems: string[] = [];
  const singular = new RegExp(`(^|[^\\d.,])1\\s+((?:[a-z-]+\\s)?(?:${COUNT_NOUNS}))\\b`, 'g');
  for (const line of judged(text, options)) {
    for (const match of line.matchAll(singular)) {
      const noun = match[2] as string;
      if (noun.endsWith('s')) problems.push(`"1 ${noun}": ${line}`);
    }
  }
  return problems;
}

/** Every number of four digits or more that is written without the thousands separator the rest of the output uses. */
export function numbersWithoutSeparators(text: string, options: ReadingOptions = {}): string[] {
  const problems: string[] = [];
  for (const line of judged(text, options)) {
    // Hex ids, seqs (#1544), dates and times, versions and percentages are not counts.
    const cleaned = line
      .replace(/\b[0-9a-f]{8,}\b/g, '')
      .replace(/#\d+/g, '')
      .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z?/g, '')
      .replace(/\d{4}-\d{2}-\d{2}/g, '');
    if (/(^|[^\d.,\w-])\d{4,}(?![\d.,]*\s*%)($|[^\d\w-])/.test(cleaned)) problems.push(line);
  }
  return problems;
}
