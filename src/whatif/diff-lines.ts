// A line diff of two short texts (two answers): the longest common subsequence of their lines,
// then each line kept, removed or added. Answers are short; past a few thousand lines each the
// diff gives up on alignment and lists every line of both.

export interface DiffLine {
  readonly op: ' ' | '-' | '+';
  readonly line: string;
}

const MAX_CELLS = 4_000_000;

export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  const n = before.length;
  const m = after.length;
  if (n * m > MAX_CELLS)
    return [...before.map((line) => ({ op: '-' as const, line })), ...after.map((line) => ({ op: '+' as const, line }))];
  // lengths[i][j]: the LCS of before[i..] and after[j..], row by row in one array.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[at(i, j)] =
        before[i] === after[j]
          ? (lengths[at(i + 1, j + 1)] as number) + 1
          : Math.max(lengths[at(i + 1, j)] as number, lengths[at(i, j + 1)] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      out.push({ op: ' ', line: before[i] as string });
      i++;
      j++;
    } else if ((lengths[at(i + 1, j)] as number) >= (lengths[at(i, j + 1)] as number)) out.push({ op: '-', line: before[i++] as string });
    else out.push({ op: '+', line: after[j++] as string });
  }
  while (i < n) out.push({ op: '-', line: before[i++] as string });
  while (j < m) out.push({ op: '+', line: after[j++] as string });
  return out;
}
