// The source text of one value inside a JSON document, found by its path. JSON.parse keeps no
// trace of how a value was written, and a number such as 1e400 comes out as Infinity, which
// canonical JSON cannot hold; this finds what the provider actually wrote, so that it can be
// kept as text instead of being lost.

/**
 * The text of the value at `path` (object keys and array indexes) in `text`, which must be
 * valid JSON; undefined when there is no such value. A key that occurs twice names its last
 * occurrence, as JSON.parse reads it.
 */
export function jsonSourceAt(text: string, path: readonly (string | number)[]): string | undefined {
  let start = skipSpace(text, 0);
  for (const step of path) {
    const child = childAt(text, start, step);
    if (child === undefined) return undefined;
    start = child;
  }
  if (start >= text.length) return undefined;
  return text.slice(start, valueEnd(text, start));
}

/** Where the value of member `step` of the container at `start` begins. */
function childAt(text: string, start: number, step: string | number): number | undefined {
  const opener = text[start];
  if (opener !== (typeof step === 'number' ? '[' : '{')) return undefined;
  let position = skipSpace(text, start + 1);
  let found: number | undefined;
  for (let index = 0; text[position] !== '}' && text[position] !== ']' && position < text.length; index++) {
    if (opener === '{') {
      const keyEnd = stringEnd(text, position);
      const key = JSON.parse(text.slice(position, keyEnd)) as string;
      position = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
      if (key === step) found = position;
    } else if (index === step) {
      return position;
    }
    position = skipSpace(text, valueEnd(text, position));
    if (text[position] === ',') position = skipSpace(text, position + 1);
  }
  return found;
}

/** The position just after the value that begins at `start`. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== '{' && first !== '[') {
    let position = start;
    while (position < text.length && !',}] \t\n\r'.includes(text[position] as string)) position++;
    return position;
  }
  let depth = 0;
  for (let position = start; position < text.length; position++) {
    const character = text[position];
    if (character === '"') position = stringEnd(text, position) - 1;
    else if (character === '{' || character === '[') depth++;
    else if (character === '}' || character === ']') {
      depth--;
      if (depth === 0) return position + 1;
    }
  }
  return text.length;
}

/** The position just after the string literal that begins at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  for (let position = start + 1; position < text.length; position++) {
    const character = text[position];
    if (character === '\\') position++;
    else if (character === '"') return position + 1;
  }
  return text.length;
}

function skipSpace(text: string, start: number): number {
  let position = start;
  while (position < text.length && ' \t\n\r'.includes(text[position] as string)) position++;
  return position;
}
