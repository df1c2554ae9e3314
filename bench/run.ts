// Runs the benchmarks and prints their tables; writes the figures to bench/results/latest.json.
//
//   npm run bench                      all benchmarks (a few minutes on 2 cores)
//   npm run bench -- --quick           a much shorter run, to check that they work
//   npm run bench -- fold sqlite-open  only the named ones
//
// Figures are ratios against a baseline measured in the same run. Nothing here passes or
// fails on time: machines are noisy, and the ratios are for people to read.

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECKPOINT_KEY_FILE_VARIABLE } from '../src/store/checkpoint-key.js';
import {
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  type Figures,
  formatBytes,
  formatMs,
  renderTable,
} from './support.js';

const BENCHMARKS: Record<string, () => Promise<Benchmark>> = {
  fold: async () => (await import('./fold.bench.js')).benchmark,
  'sqlite-append': async () => (await import('./sqlite-append.bench.js')).benchmark,
  'sqlite-open': async () => (await import('./sqlite-open.bench.js')).benchmark,
  'open-checkpoint': async () => (await import('./open-checkpoint.bench.js')).benchmark,
  'open-harness': async () => (await import('./open-harness.bench.js')).benchmark,
  meter: async () => (await import('./meter.bench.js')).benchmark,
  'meter-calibration': async () => (await import('./meter-calibration.bench.js')).benchmark,
  'spine-step': async () => (await import('./spine-step.bench.js')).benchmark,
  replay: async () => (await import('./replay.bench.js')).benchmark,
  'compaction-session': async () => (await import('./compaction-session.bench.js')).benchmark,
  'compaction-strategies': async () => (await import('./compaction-strategies.bench.js')).benchmark,
  'surface-encoding': async () => (await import('./surface-encoding.bench.js')).benchmark,
  'prompt-cache': async () => (await import('./prompt-cache.bench.js')).benchmark,
  tune: async () => (await import('./tune.bench.js')).benchmark,
  postgres: async () => (await import('./postgres.bench.js')).benchmark,
  'postgres-append': async () => (await import('./postgres-append.bench.js')).benchmark,
  proxy: async () => (await import('./proxy.bench.js')).benchmark,
  view: async () => (await import('./view.bench.js')).benchmark,
  'pi-session': async () => (await import('./pi-session.bench.js')).benchmark,
  search: async () => (await import('./search.bench.js')).benchmark,
  otel: async () => (await import('./otel.bench.js')).benchmark,
  'ai-sdk': async () => (await import('./ai-sdk.bench.js')).benchmark,
};

const USAGE = `usage: npm run bench -- [--quick] [${Object.keys(BENCHMARKS).join('|')} ...]`;

interface Arguments {
  readonly quick: boolean;
  readonly names: readonly string[];
}

function parseArguments(args: readonly string[]): Arguments | undefined {
  let quick = false;
  const names: string[] = [];
  for (const arg of args) {
    if (arg === '--quick') quick = true;
    else if (arg === '--help' || arg === '-h') return undefined;
    else if (arg in BENCHMARKS) names.push(arg);
    else
      throw new UsageError(`unknown benchmark or option ${JSON.stringify(arg)}; the benchmarks are ${Object.keys(BENCHMARKS).join(', ')}`);
  }
  return { quick, names: names.length > 0 ? [...new Set(names)] : Object.keys(BENCHMARKS) };
}

class UsageError extends Error {}

function describeMachine(): Figures {
  const processors = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpu: processors[0]?.model ?? 'unknown',
    cpus: processors.length,
    memory: formatBytes(totalmem()),
  };
}

async function main(): Promise<void> {
  let parsed: Arguments | undefined;
  try {
    parsed = parseArguments(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (parsed === undefined) {
    console.log(USAGE);
    for (const [name, load] of Object.entries(BENCHMARKS)) console.log(`  ${name.padEnd(14)} ${(await load()).description}`);
    return;
  }

  // The benchmarks write fold checkpoints: under a key of this run's own, never the user's
  // (~/.config/shadowlog/checkpoint-key), and the child processes they start inherit it.
  const keyDirectory = createTempDirectory('checkpoint-key');
  process.env[CHECKPOINT_KEY_FILE_VARIABLE] = join(keyDirectory.path, 'checkpoint-key');
  process.on('exit', keyDirectory.cleanup);

  const machine = describeMachine();
  const startedAt = new Date().toISOString();
  const start = clock();
  console.log(`shadowlog benchmarks${parsed.quick ? ' (--quick)' : ''}: ${parsed.names.join(', ')}`);
  console.log(`${machine.node} on ${machine.platform}, ${machine.cpus} × ${machine.cpu}, ${machine.memory}`);
  console.log(
    `load average at the start: ${loadavg()
      .map((value) => value.toFixed(2))
      .join(', ')}`,
  );
  const results: Record<string, Figures> = {};
  const context = { quick: parsed.quick, progress: (message: string) => process.stderr.write(`  … ${message}\n`) };

  for (const name of parsed.names) {
    const benchmark = await (BENCHMARKS[name] as () => Promise<Benchmark>)();
    console.log(`\n=== ${benchmark.name}: ${benchmark.description}`);
    const benchStart = clock();
    const report: BenchReport = await benchmark.run(context);
    const seconds = elapsedMs(benchStart) / 1000;
    const load = loadavg().map((value) => value.toFixed(2));
    for (const table of report.tables) console.log(`\n${renderTable(table)}`);
    if (report.notes.length > 0) console.log(`\n${report.notes.map((note) => `note: ${note}`).join('\n')}`);
    // Other work on the machine shows up here; ratios are fairer than times, but not immune.
    console.log(`(${benchmark.name} took ${seconds.toFixed(1)} s; load average at its end ${load.join(', ')} on ${machine.cpus} cpus)`);
    results[name] = { seconds, loadAverageAtEnd: load.map(Number), ...report.figures };
  }

  const totalMs = elapsedMs(start);
  const directory = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(directory, { recursive: true });
  const file = `${directory}latest.json`;
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt, quick: parsed.quick, machine, totalSeconds: totalMs / 1000, benchmarks: results }, null, 2)}\n`,
  );
  console.log(`\ntotal ${formatMs(totalMs)}; figures written to ${file}`);
}

await main();
