// Benchmark: token meter throughput. Each estimator and offline tokenizer counts the meter
// corpus (test/fixtures/corpus/meter/, eight texts in six languages, code, JSON and a log), one
// countText call per file, pass after pass for about a second; throughput is MB of UTF-8 text
// per second, as a ratio to chars4 measured in the same run.
//
//   npm run bench -- meter          through the runner
//   npx tsx bench/meter.bench.ts    alone (add --quick for a short run)

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEstimator, ESTIMATOR_NAMES, type EstimatorName, type TokenEstimator } from '../src/meter/index.js';
import { type BenchContext, type Benchmark, type BenchReport, clock, elapsedMs, formatMs, formatRatio, runIfMain } from './support.js';

const CORPUS = fileURLToPath(new URL('../test/fixtures/corpus/meter/', import.meta.url));

interface Durations {
  readonly warmupMs: number;
  readonly measureMs: number;
}

const FULL: Durations = { warmupMs: 200, measureMs: 1000 };
const QUICK: Durations = { warmupMs: 20, measureMs: 100 };

interface Run {
  readonly name: EstimatorName;
  /** The first createEstimator call: the dynamic import of a tokenizer's vocabulary. */
  readonly loadMs: number;
  readonly passes: number;
  readonly ms: number;
  readonly megabytesPerSecond: number;
  /** Tokens counted in one pass over the corpus. */
  readonly tokensPerPass: number;
}

// gpt-tokenizer keeps a cache of merged pieces across calls; passing the same corpus again and
// again would measure that cache more than the tokenizer, so it is cleared before every pass
// (each pass still reuses what it learns within itself, as a session's messages would).
type CacheClearer = () => void;

async function cacheClearer(name: EstimatorName): Promise<CacheClearer> {
  if (name === 'o200k_base') return (await import('gpt-tokenizer/encoding/o200k_base')).clearMergeCache;
  if (name === 'cl100k_base') return (await import('gpt-tokenizer/encoding/cl100k_base')).clearMergeCache;
  return () => {};
}

/** Counts every text once; returns the tokens, so the work cannot be optimised away. */
function pass(estimator: TokenEstimator, texts: readonly string[]): number {
  let tokens = 0;
  for (const text of texts) tokens += estimator.countText(text);
  return tokens;
}

async function measure(name: EstimatorName, texts: readonly string[], bytesPerPass: number, durations: Durations): Promise<Run> {
  const loadStart = clock();
  const estimator = await createEstimator(name);
  const loadMs = elapsedMs(loadStart);
  const clearCache = await cacheClearer(name);
  const tokensPerPass = pass(estimator, texts);

  const warmupStart = clock();
  while (elapsedMs(warmupStart) < durations.warmupMs) {
    clearCache();
    pass(estimator, texts);
  }
  let passes = 0;
  let sink = 0;
  const start = clock();
  let ms = 0;
  while (ms < durations.measureMs) {
    clearCache();
    sink += pass(estimator, texts);
    passes++;
    ms = elapsedMs(start);
  }
  if (sink !== tokensPerPass * passes) throw new Error(`${name} counted differently from one pass to the next`);
  return { name, loadMs, passes, ms, megabytesPerSecond: (bytesPerPass * passes) / 1e6 / (ms / 1000), tokensPerPass };
}

export const benchmark: Benchmark = {
  name: 'meter',
  description: 'token meter throughput (MB/s) of each estimator and offline tokenizer on the meter corpus, against chars4',
  async run(context: BenchContext): Promise<BenchReport> {
    const durations = context.quick ? QUICK : FULL;
    const files = readdirSync(CORPUS)
      .filter((file) => file.endsWith('.txt'))
      .sort();
    const texts = files.map((file) => readFileSync(join(CORPUS, file), 'utf8'));
    const bytesPerPass = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);

    const runs: Run[] = [];
    for (const name of ESTIMATOR_NAMES) {
      context.progress(`${name}: about ${formatMs(durations.warmupMs + durations.measureMs)}`);
      runs.push(await measure(name, texts, bytesPerPass, durations));
    }
    const baseline = runs.find((run) => run.name === 'chars4') as Run;
    const exact = runs.find((run) => run.name === 'o200k_base') as Run;
    const rows = runs.map((run) => [
      run.name,
      run.megabytesPerSecond.toFixed(run.megabytesPerSecond >= 100 ? 0 : 2),
      // chars4 is nearly free (a length and a division): the others take many times its time.
      formatRatio(baseline.megabytesPerSecond / run.megabytesPerSecond),
      formatRatio(run.megabytesPerSecond / exact.megabytesPerSecond),
      String(run.tokensPerPass),
      run.loadMs < 1 ? '–' : formatMs(run.loadMs),
    ]);
    return {
      tables: [
        {
          title: `Meter throughput: ${files.length} corpus files (${bytesPerPass} bytes), one call per file, about ${formatMs(durations.measureMs)} each`,
          columns: ['estimator', 'MB/s', 'time × chars4', 'speed × o200k_base', 'tokens/pass', 'first load'],
          rows,
        },
      ],
      notes: [
        'MB/s is megabytes of UTF-8 text counted per second; time × chars4 is how many times longer than chars4 (measured in the same run) the same text takes; speed × o200k_base compares with the exact tokenizer.',
        "gpt-tokenizer's merge cache is cleared before every pass, so repeated passes do not measure the cache.",
        'first load is the dynamic import of the tokenizer on first use, which the CLI and library skip until a tokenizer is asked for.',
      ],
      figures: Object.fromEntries(
        runs.map((run) => [
          run.name,
          {
            megabytesPerSecond: run.megabytesPerSecond,
            ratioToChars4: run.megabytesPerSecond / baseline.megabytesPerSecond,
            ratioToO200kBase: run.megabytesPerSecond / exact.megabytesPerSecond,
            passes: run.passes,
            ms: run.ms,
            loadMs: run.loadMs,
            tokensPerPass: run.tokensPerPass,
          },
        ]),
      ),
    };
  },
};

// Run alone: `npx tsx bench/meter.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
