// Two records written onto one line (a writer that lost its newline, two processes appending at
// once) are a known defect of real harness files. This splits such a line back into its
// records when it is nothing but complete JSON objects one after another; anything less clean
// (a torn record followed by a whole one) is left to be refused as malformed.

/**
 * The records of a line holding two or more complete JSON objects back to back, each part's
 * text running to the start of the next so that the parts put together give the line back
 * exactly; undefined when the line is not such a join.
 */
export function splitJoinedRecords(text: string): string[] | undefined {
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      if (depth === 0) return undefined;
      inString = true;
    } else if (char === '{' || char === '[') {
      if (depth === 0) {
        if (char !== '{') return undefined;
        starts.push(index);
      }
      depth++;
    } else if (char === '}' || char === ']') {
      depth--;
      if (depth < 0) return undefined;
    } else if (depth === 0 && !isJsonWhitespace(char)) {
      return undefined;
    }
  }
  if (depth !== 0 || inString || starts.length < 2) return undefined;
  const parts = starts.map((start, index) => text.slice(index === 0 ? 0 : start, starts[index + 1] ?? text.length));
  for (const part of parts) {
    try {
      const value: unknown = JSON.parse(part);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    } catch {
      return undefined;
    }
  }
  return parts;
}

function isJsonWhitespace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r';
}
