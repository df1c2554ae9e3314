// Shared helpers of the benchmarks: timing, the report each benchmark returns, number
// formatting and the table printer. Figures are ratios against a baseline measured in the
// same run; absolute times are printed too, but are not comparable across machines.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BenchContext {
  /** A much shorter run, for checking that the benchmarks work. */
  readonly quick: boolean;
  /** Progress for the person watching (stderr); results go in the report. */
  readonly progress: (message: string) => void;
}

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

export type Figures = { [key: string]: Figure };
export type Figure = string | number | boolean | null | Figure[] | Figures;

export interface BenchReport {
  readonly tables: readonly Table[];
  /** What the figures mean and how they were obtained. */
  readonly notes: readonly string[];
  /** The same figures, unformatted, for bench/results/latest.json. */
  readonly figures: Figures;
}

export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(context: BenchContext): Promise<BenchReport>;
}

/** A monotonic clock reading in nanoseconds. */
export function clock(): bigint {
  return process.hrtime.bigint();
}

/** Milliseconds since a `clock()` reading. */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Runs `work` and returns its result with the milliseconds it took. */
export async function timed<T>(work: () => T | Promise<T>): Promise<{ result: T; ms: number }> {
  const start = clock();
  const result = await work();
  return { result, ms: elapsedMs(start) };
}

/** Events (or operations) per second. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : Number.POSITIVE_INFINITY;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Asks V8 for a full collection when the process runs with --expose-gc. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
}

/** A fresh directory under the OS temp dir, removed by `cleanup`. */
export function createTempDirectory(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), `shadowlog-bench-${prefix}-`));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(value: number): string {
  return integer.format(value);
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatMicros(ms: number): string {
  return `${(ms * 1000).toFixed(1)} µs`;
}

export function formatRate(perSecondValue: number, unit = 'events'): string {
  return `${integer.format(perSecondValue)} ${unit}/s`;
}

export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return value >= 100 ? `${value.toFixed(0)}×` : `${value.toFixed(2)}×`;
}

export function formatBytes(bytes: number): string {
  const sign = bytes < 0 ? '-' : '';
  const size = Math.abs(bytes);
  if (size >= 1024 * 1024 * 1024) return `${sign}${(size / 1024 / 1024 / 1024).toFixed(2)} GiB`;
  if (size >= 1024 * 1024) return `${sign}${(size / 1024 / 1024).toFixed(1)} MiB`;
  if (size >= 1024) return `${sign}${(size / 1024).toFixed(1)} KiB`;
  return `${sign}${size} B`;
}

/** Renders a table with aligned columns; the first column is left-aligned, the rest right-aligned. */
export function renderTable(table: Table): string {
  const widths = table.columns.map((column, index) => Math.max(column.length, ...table.rows.map((row) => (row[index] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (index === 0 ? cell.padEnd(widths[index] as number) : cell.padStart(widths[index] as number)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [table.title, line(table.columns), rule, ...table.rows.map(line)].join('\n');
}

/**
 * Runs `benchmark` and prints its tables when `moduleUrl` is the script node was started with
 * (`npx tsx bench/NAME.bench.ts [--quick]`); does nothing when the file is imported by run.ts.
 */
export async function runIfMain(moduleUrl: string, benchmark: Benchmark): Promise<void> {
  if (process.argv[1] === undefined || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  const started = Date.now();
  const report = await benchmark.run({
    quick: process.argv.includes('--quick'),
    progress: (message) => process.stderr.write(`  … ${message}\n`),
  });
  for (const table of report.tables) console.log(`\n${renderTable(table)}`);
  console.log(`\n${report.notes.map((note) => `note: ${note}`).join('\n')}`);
  console.log(`(${benchmark.name} took ${formatMs(Date.now() - started)})`);
}

const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Runs one measurement in a fresh Node process (`node ...nodeArgs`, from the project's root) and
 * resolves to the JSON of the last line it prints; rejects, naming `label`, when it fails or
 * prints nothing. With `limitMs`, a child still running then is killed and resolves to undefined.
 */
export function runJsonChild<T>(label: string, nodeArgs: readonly string[], limitMs?: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stopped = false;
    const timer =
      limitMs === undefined
        ? undefined
        : setTimeout(() => {
            stopped = true;
            child.kill('SIGKILL');
          }, limitMs);
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (stopped) {
        resolve(undefined as T);
        return;
      }
      const last = output.trim().split('\n').at(-1);
      if (code !== 0 || last === undefined || last === '') reject(new Error(`${label} exited with code ${code}`));
      else resolve(JSON.parse(last) as T);
    });
  });
}
