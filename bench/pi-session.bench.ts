// Benchmark: shadowlog next to pi (@mariozechner/pi-coding-agent, its published package) on
// the same real session, pi's large-session.jsonl from the corpus, and on copies scaled 10× and
// 100× (the session's lines repeated, tool call ids made unique per copy). shadowlog reads the
// session imported into its SQLite store; pi reads its own file. For each: the cold load (open
// + the context a model call is made from) and the bookkeeping of one turn around one model
// call, each median of runs of one process each, interleaved, with the peak RSS of each
// process; ratios shadowlog ÷ pi. See pi-session-child.ts for exactly what each side does.
//
// Durability differs and stays as it is: shadowlog commits each append in a SQLite
// transaction with fsync (WAL, synchronous FULL) and one writer owns a session; pi appends
// with appendFileSync, without fsync, and takes no lock (two pi writers can lose a message).
//
//   npm run bench -- pi-session
//   npx tsx bench/pi-session.bench.ts [--quick]

import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildResult } from './pi-session-child.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  createTempDirectory,
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  median,
  runIfMain,
} from './support.js';

const CHILD = fileURLToPath(new URL('./pi-session-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE = fileURLToPath(new URL('../test/fixtures/corpus/sessions/pi/large-session.jsonl', import.meta.url));
const PI_VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies['@mariozechner/pi-coding-agent'];

interface Sizes {
  readonly scales: readonly number[];
  readonly runs: number;
  readonly turns: number;
}

const FULL: Sizes = { scales: [1, 10, 100], runs: 7, turns: 20 };
const QUICK: Sizes = { scales: [1, 10], runs: 3, turns: 5 };

function runChild<T>(args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = output.trim().split('\n').at(-1);
      if (code !== 0 || last === undefined || last === '')
        reject(new Error(`pi-session benchmark: the child (${args[0]}) exited with code ${code}`));
      else resolve(JSON.parse(last) as T);
    });
  });
}

/** The session's lines repeated `scale` times after its header; each copy's tool call ids get a suffix of their own. */
function writeScaled(path: string, scale: number): number {
  const [header, ...lines] = readFileSync(SOURCE, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const out: string[] = [header as string];
  for (let copy = 0; copy < scale; copy++) {
    for (const line of lines) {
      if (copy === 0) {
        out.push(line);
        continue;
      }
      const entry = JSON.parse(line) as { message?: { role?: string; toolCallId?: string; content?: unknown } };
      const message = entry.message;
      if (message?.role === 'toolResult' && message.toolCallId !== undefined) message.toolCallId = `${message.toolCallId}_x${copy}`;
      if (Array.isArray(message?.content)) {
        for (const block of message.content as Array<{ type?: string; id?: string }>) {
          if (block.type === 'toolCall' && block.id !== undefined) block.id = `${block.id}_x${copy}`;
        }
      }
      out.push(JSON.stringify(entry));
    }
  }
  writeFileSync(path, `${out.join('\n')}\n`);
  return out.length;
}

interface ScaleRun {
  readonly scale: number;
  readonly lines: number;
  readonly events: number;
  readonly pi: ChildResult[];
  readonly shadowlog: ChildResult[];
}

async function runScale(scale: number, sizes: Sizes, directory: string, context: BenchContext): Promise<ScaleRun> {
  const source = join(directory, `x${scale}.jsonl`);
  const lines = writeScaled(source, scale);
  context.progress(`pi-session: ×${scale} (${formatCount(lines)} lines): importing into SQLite`);
  const database = join(directory, `x${scale}.db`);
  const imported = await runChild<{ sessionId: string; events: number }>(['import', source, database]);
  // pi rewrites a version-1 file when it first opens it (adding entry ids): once, unmeasured.
  const piFile = join(directory, `x${scale}-pi.jsonl`);
  copyFileSync(source, piFile);
  await runChild(['prepare-pi', piFile]);
  const pi: ChildResult[] = [];
  const shadowlog: ChildResult[] = [];
  for (let run = 0; run < sizes.runs; run++) {
    context.progress(`pi-session: ×${scale}: run ${run + 1} of ${sizes.runs}`);
    // Each run starts from the same session: the turns of the last run are not carried over.
    const piRun = join(directory, 'run-pi.jsonl');
    copyFileSync(piFile, piRun);
    pi.push(await runChild<ChildResult>(['pi', piRun, String(sizes.turns)]));
    const databaseRun = join(directory, 'run.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseRun}${suffix}`, { force: true });
    copyFileSync(database, databaseRun);
    shadowlog.push(await runChild<ChildResult>(['shadowlog', databaseRun, imported.sessionId, String(sizes.turns)]));
  }
  return { scale, lines, events: imported.events, pi, shadowlog };
}

const med = (results: readonly ChildResult[], pick: (result: ChildResult) => number) => median(results.map(pick));

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('pi-session');
  const runs: ScaleRun[] = [];
  try {
    for (const scale of sizes.scales) runs.push(await runScale(scale, sizes, directory.path, context));
  } finally {
    directory.cleanup();
  }
  const rows = runs.map((result) => {
    const cold = [med(result.shadowlog, (r) => r.coldMs), med(result.pi, (r) => r.coldMs)] as const;
    const turn = [med(result.shadowlog, (r) => r.turnMs), med(result.pi, (r) => r.turnMs)] as const;
    const rss = [med(result.shadowlog, (r) => r.peakRssBytes), med(result.pi, (r) => r.peakRssBytes)] as const;
    const grown = [
      med(result.shadowlog, (r) => r.peakRssBytes - r.baseRssBytes),
      med(result.pi, (r) => r.peakRssBytes - r.baseRssBytes),
    ] as const;
    return {
      result,
      cells: [
        `×${result.scale}`,
        formatCount(result.lines),
        formatCount(med(result.shadowlog, (r) => r.contextSize)),
        formatMs(cold[0]),
        formatMs(cold[1]),
        formatRatio(cold[0] / cold[1]),
        formatMs(turn[0]),
        formatMs(turn[1]),
        formatRatio(turn[0] / turn[1]),
        formatBytes(rss[0]),
        formatBytes(rss[1]),
        formatRatio(rss[0] / rss[1]),
        `${formatBytes(grown[0])} / ${formatBytes(grown[1])}`,
      ],
      figures: {
        scale: result.scale,
        lines: result.lines,
        events: result.events,
        surfaceNodes: med(result.shadowlog, (r) => r.contextSize),
        piMessages: med(result.pi, (r) => r.contextSize),
        coldMs: { shadowlog: cold[0], pi: cold[1], ratio: cold[0] / cold[1] },
        turnMs: { shadowlog: turn[0], pi: turn[1], ratio: turn[0] / turn[1] },
        peakRssBytes: { shadowlog: rss[0], pi: rss[1], ratio: rss[0] / rss[1] },
        rssGrowthBytes: { shadowlog: grown[0], pi: grown[1] },
      },
    };
  });
  return {
    tables: [
      {
        title: `shadowlog (SQLite) next to pi ${PI_VERSION} on pi's large-session.jsonl and scaled copies (medians of ${sizes.runs} runs, one process each; ${sizes.turns} turns per run)`,
        columns: [
          'session',
          'lines',
          'surface nodes',
          'cold load',
          'pi',
          'ratio',
          'per turn',
          'pi',
          'ratio',
          'peak RSS',
          'pi',
          'ratio',
          'RSS growth (shadowlog / pi)',
        ],
        rows: rows.map((row) => row.cells),
      },
    ],
    notes: [
      'Cold load: shadowlog opens the SQLite store, opens the session with the harness (SessionLog.open: the surface fold) and renders the surface to messages; pi runs SessionManager.open and buildSessionContext. Module loading is not counted (each process loads its modules before the clock starts).',
      'Per turn: shadowlog runs session.send() with the Anthropic adapter’s render and an in-process answer: turn/start + user/message, the request rendered, written and hashed (the digest recorded), model/request, the answer, turn/end, in 4 appends. pi does appendMessage(user), buildSessionContext, appendMessage(assistant): it neither renders nor serializes a provider request here (its provider client does that after), so this favours pi.',
      'Durability: each shadowlog append is a SQLite transaction with fsync (WAL, synchronous FULL), and one writer owns the session (a second is refused). pi appends with appendFileSync: no fsync and no lock, so a crash can lose its last messages and two pi writers silently lose one.',
      'Peak RSS is each process’s maxRSS, modules included (pi’s package loads its whole agent and TUI); RSS growth is the peak minus the RSS before the session was opened.',
      'Scaled copies repeat the session’s lines after its header, with each copy’s tool call ids suffixed so that they stay unique; pi migrates each file to its current format once before the runs (unmeasured), and each run starts from a fresh copy of the session file or database.',
    ],
    figures: { piVersion: PI_VERSION ?? null, sizes: { ...sizes, scales: [...sizes.scales] }, scales: rows.map((row) => row.figures) },
  };
}

export const benchmark: Benchmark = {
  name: 'pi-session',
  description: 'cold load, per-turn cost and peak RSS next to pi’s own session code, on pi’s large session and 10×/100× copies',
  run,
};

// Run alone: `npx tsx bench/pi-session.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
