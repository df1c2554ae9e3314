// Deterministic text for the synthetic session: a seeded PRNG, a word list and a corpus of
// prose and code-like lines from which message and tool-result texts are sliced.

/** mulberry32: a small, fast, seeded PRNG; the stream is the same on every machine. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words for paths, queries and the corpus; the non-ASCII ones are all in the BMP, so a slice never splits a surrogate pair. */
export const WORDS: readonly string[] = `
  parser token session surface fold render request compaction summary config index store schema
  migration buffer stream handler client server retry timeout cache hash digest event append replace
  range test fixture error result value the a of to and in is for that with function returns when null
  undefined const await async import export interface type class naïve café résumé — → ✓ 测试 日志 ファイル 요약
`
  .trim()
  .split(/\s+/);

/** About 256 KiB of prose and code-like lines from which event texts are sliced. */
export function buildCorpus(random: () => number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < 256 * 1024) {
    const wordCount = 3 + Math.floor(random() * 14);
    const words = Array.from({ length: wordCount }, () => WORDS[Math.floor(random() * WORDS.length)] as string);
    const kind = random();
    const line =
      kind < 0.3
        ? `${' '.repeat(2 * Math.floor(random() * 4))}const ${words[0]}${Math.floor(random() * 100)} = ${words.slice(1).join('.')}(${Math.floor(random() * 1000)});`
        : kind < 0.4
          ? `src/${words[0]}/${words[1] ?? 'index'}.ts:${Math.floor(random() * 900)}:${Math.floor(random() * 80)}  ${words.slice(2).join(' ')}`
          : `${words.join(' ')}.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
