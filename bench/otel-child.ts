// The child process of the otel benchmark: one command per process, so that its peak memory is
// its own. `build` writes the synthetic session into a SQLite file; `export` and `otel` run the
// command in-process (export's JSONL counted and dropped, otel's spans sent to `url`) and print
// one JSON line: the time, the bytes or spans, and the process's peak resident size.
//
//   node --import tsx bench/otel-child.ts build <file> <events>
//   node --import tsx bench/otel-child.ts export <file>
//   node --import tsx bench/otel-child.ts otel <file> <url> <protocol>

import { PassThrough, Readable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { clock, elapsedMs } from './support.js';
import { buildViewSession } from './view-session.js';

export const OTEL_SESSION_ID = 'bench-otel';

export interface OtelChildResult {
  readonly ms: number;
  /** Events in the session (build), bytes written (export), spans sent (otel). */
  readonly count: number;
  /** The operating system's peak resident size of this process, in bytes (includes start-up). */
  readonly maxRss: number;
  /** The largest V8 heap seen, sampled every 20 ms. */
  readonly peakHeap: number;
}

const [mode, file, url, protocol] = process.argv.slice(2);
let peakHeap = 0;
const sampler = setInterval(() => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
}, 20);

async function runCli(args: string[]): Promise<{ code: number; stdout: string; bytes: number; ms: number }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let bytes = 0;
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (text.length < 1_000_000) text += chunk.toString('utf8');
  });
  let errors = '';
  stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const start = clock();
  const code = await main(args, { stdout, stderr, stdin: Readable.from([]), cwd: process.cwd() });
  const ms = elapsedMs(start);
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${errors}`);
  return { code, stdout: text, bytes, ms };
}

let result: { ms: number; count: number };
if (mode === 'build' && file !== undefined) {
  const store = await openSqliteStore(file);
  const start = clock();
  const built = await buildViewSession(store, OTEL_SESSION_ID, Number(process.argv[4]));
  result = { ms: elapsedMs(start), count: built.events };
  await store.close();
} else if (mode === 'export' && file !== undefined) {
  const run = await runCli(['--store', `sqlite:${file}`, 'export', OTEL_SESSION_ID]);
  result = { ms: run.ms, count: run.bytes };
} else if (mode === 'otel' && file !== undefined && url !== undefined && protocol !== undefined) {
  const run = await runCli(['--store', `sqlite:${file}`, '--json', 'otel', OTEL_SESSION_ID, '--endpoint', url, '--protocol', protocol]);
  result = { ms: run.ms, count: (JSON.parse(run.stdout) as { spans: number }).spans };
} else {
  throw new Error('usage: otel-child.ts build <file> <events> | export <file> | otel <file> <url> <protocol>');
}
clearInterval(sampler);
peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
const output: OtelChildResult = { ...result, maxRss: process.resourceUsage().maxRSS * 1024, peakHeap };
process.stdout.write(`${JSON.stringify(output)}\n`);
