// Duplicate object keys in JSON text (issue 9). JSON.parse keeps the last of two equal keys and
// says nothing, so a line could show one value to a reader that keeps the first and have its
// hash cover the other. This scan runs on every line an import reads, after JSON.parse has
// accepted it, so it trusts the syntax and only tracks where keys stand: a string right after
// `{` or an object's `,` is a key. Strings are skipped with indexOf (native speed over long
// tool outputs); only the structure between them is read a character at a time.

export interface DuplicateKey {
  readonly key: string;
  /** Where the object holding it stands, as `$`, `$.data`, `$.data.content[0]`. */
  readonly path: string;
}

interface Frame {
  /** The keys of an object seen so far; undefined for an array. */
  readonly keys: Set<string> | undefined;
  /** The key (object) or index (array) of the value being read. */
  key: string;
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The first duplicate key in `text`, a JSON document JSON.parse has accepted; undefined when it has none. */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  let expectKey = false;
  let position = 0;
  const length = text.length;
  while (position < length) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) {
      const end = closingQuote(text, position);
      if (expectKey) {
        const frame = stack[stack.length - 1] as Frame;
        const raw = text.slice(position + 1, end);
        // An escaped key is compared by what it spells: "a" and "\u0061" are the same key.
        const key = raw.includes('\\') ? (JSON.parse(text.slice(position, end + 1)) as string) : raw;
        const keys = frame.keys as Set<string>;
        if (keys.has(key)) return { key, path: pathOf(stack) };
        keys.add(key);
        frame.key = key;
        expectKey = false;
      }
      position = end + 1;
      continue;
    }
    if (code === OPEN_OBJECT) {
      stack.push({ keys: new Set(), key: '', index: 0 });
      expectKey = true;
    } else if (code === OPEN_ARRAY) {
      stack.push({ keys: undefined, key: '', index: 0 });
      expectKey = false;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      stack.pop();
      expectKey = false;
    } else if (code === COMMA) {
      const frame = stack[stack.length - 1] as Frame;
      if (frame.keys === undefined) frame.index++;
      else expectKey = true;
    }
    position++;
  }
  return undefined;
}

/** The index of the quote that closes the string opening at `open`. */
function closingQuote(text: string, open: number): number {
  let search = open + 1;
  for (;;) {
    const quote = text.indexOf('"', search);
    if (quote === -1) return text.length; // unreachable for text JSON.parse accepted
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    search = quote + 1;
  }
}

/** The path of the innermost frame: each outer frame contributes the key or index it is reading. */
function pathOf(stack: readonly Frame[]): string {
  let path = '$';
  for (let depth = 0; depth < stack.length - 1; depth++) {
    const frame = stack[depth] as Frame;
    path +=
      frame.keys === undefined
        ? `[${frame.index}]`
        : /^[A-Za-z_$][\w$]*$/.test(frame.key)
          ? `.${frame.key}`
          : `[${JSON.stringify(frame.key)}]`;
  }
  return path;
}
