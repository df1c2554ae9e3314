// Benchmark: shadowlog next to pi (@mariozechner/pi-coding-agent, its published package) on
// the same real session, pi's large-session.jsonl from the corpus, and on copies scaled 10× and
// 113× (the session's lines repeated, tool call ids made unique per copy; 113 copies are the
// fewest whose surface passes 100,000 nodes). shadowlog reads the session imported into its
// SQLite store; pi reads its own file. For each: the cold load (what each does to resume the
// session) and the cost of one model call's turn (the request built and serialized, a short
// answer taken, both messages persisted), each median of runs of one process each, pi and
// shadowlog interleaved, with the peak RSS of each process; ratios shadowlog ÷ pi. See
// pi-session-child.ts for exactly what each side does.
//
// Durability differs and stays as it is: shadowlog commits a turn in two SQLite transactions
// with fsync (WAL, synchronous FULL) and one writer owns a session; pi appends with
// appendFileSync, without fsync, and takes no lock (two pi writers can lose a message).
//
//   npm run bench -- pi-session
//   npx tsx bench/pi-session.bench.ts [--quick]

import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildResult } from './pi-session-child.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  median,
  runIfMain,
  runJsonChild,
} from './support.js';

const CHILD = fileURLToPath(new URL('./pi-session-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE = fileURLToPath(new URL('../test/fixtures/corpus/sessions/pi/large-session.jsonl', import.meta.url));
const PI_VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> })
  .devDependencies['@mariozechner/pi-coding-agent'];

interface Scale {
  readonly scale: number;
  readonly runs: number;
  readonly turns: number;
}

interface Sizes {
  readonly scales: readonly Scale[];
  /**
   * From this scale on, pi's agent starts from the session's message entries (the same list),
   * and pi's buildSessionContext is timed alone, stopped after `piColdLimitMs`: it builds the
   * path to the leaf with Array.unshift, which is quadratic in the session's entries.
   */
  readonly piEntriesFrom: number;
  readonly piColdLimitMs: number;
}

const FULL: Sizes = {
  scales: [
    { scale: 1, runs: 7, turns: 20 },
    { scale: 10, runs: 7, turns: 20 },
    { scale: 113, runs: 5, turns: 10 },
  ],
  piEntriesFrom: 100,
  piColdLimitMs: 180_000,
};
const QUICK: Sizes = {
  scales: [
    { scale: 1, runs: 3, turns: 5 },
    { scale: 10, runs: 3, turns: 5 },
  ],
  piEntriesFrom: 100,
  piColdLimitMs: 60_000,
};

/** The session's lines repeated `scale` times after its header; each copy's tool call ids get a suffix of their own. */
/** The child's last line, parsed; undefined when it was stopped after `limitMs`. */
const runChild = <T>(args: readonly string[], limitMs?: number) =>
  runJsonChild<T>(`pi-session benchmark: the child (${args[0]})`, ['--import', 'tsx', CHILD, ...args], limitMs);

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
  readonly turns: number;
  readonly runs: number;
  readonly lines: number;
  readonly events: number;
  readonly importMs: number;
  readonly pi: ChildResult[];
  readonly shadowlog: ChildResult[];
  /** pi's cold load timed alone (entries-seeded scales): its milliseconds, or null when it was stopped at the limit. */
  readonly piCold?: { readonly ms: number | null; readonly limitMs: number };
}

async function runScale(size: Scale, sizes: Sizes, directory: string, context: BenchContext): Promise<ScaleRun> {
  const { scale } = size;
  const source = join(directory, `x${scale}.jsonl`);
  const lines = writeScaled(source, scale);
  context.progress(`pi-session: ×${scale} (${formatCount(lines)} lines): importing into SQLite`);
  const database = join(directory, `x${scale}.db`);
  const importStart = clock();
  const imported = await runChild<{ sessionId: string; events: number }>(['import', source, database]);
  const importMs = elapsedMs(importStart);
  // pi rewrites a version-1 file when it first opens it (adding entry ids): once, unmeasured.
  const piFile = join(directory, `x${scale}-pi.jsonl`);
  copyFileSync(source, piFile);
  await runChild(['prepare-pi', piFile]);
  const seed = scale >= sizes.piEntriesFrom ? 'entries' : 'context';
  let piCold: ScaleRun['piCold'];
  if (seed === 'entries') {
    context.progress(`pi-session: ×${scale}: pi's cold load alone (stopped after ${formatMs(sizes.piColdLimitMs)})`);
    const cold = await runChild<{ coldMs: number } | undefined>(['pi-cold', piFile], sizes.piColdLimitMs);
    piCold = { ms: cold?.coldMs ?? null, limitMs: sizes.piColdLimitMs };
  }
  const pi: ChildResult[] = [];
  const shadowlog: ChildResult[] = [];
  for (let run = 0; run < size.runs; run++) {
    context.progress(`pi-session: ×${scale}: run ${run + 1} of ${size.runs}`);
    // Each run starts from the same session: the turns of the last run are not carried over.
    const piRun = join(directory, 'run-pi.jsonl');
    copyFileSync(piFile, piRun);
    pi.push(await runChild<ChildResult>(['pi', piRun, String(size.turns), seed]));
    const databaseRun = join(directory, 'run.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseRun}${suffix}`, { force: true });
    copyFileSync(database, databaseRun);
    shadowlog.push(await runChild<ChildResult>(['shadowlog', databaseRun, imported.sessionId, String(size.turns)]));
  }
  return {
    scale,
    turns: size.turns,
    runs: size.runs,
    lines,
    events: imported.events,
    importMs,
    pi,
    shadowlog,
    ...(piCold === undefined ? {} : { piCold }),
  };
}

const med = (results: readonly ChildResult[], pick: (result: ChildResult) => number) => median(results.map(pick));

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('pi-session');
  const runs: ScaleRun[] = [];
  try {
    for (const size of sizes.scales) runs.push(await runScale(size, sizes, directory.path, context));
  } finally {
    directory.cleanup();
  }
  const rows = runs.map((result) => {
    const coldShadowlog = med(result.shadowlog, (r) => r.coldMs ?? Number.NaN);
    const coldPi = result.piCold === undefined ? med(result.pi, (r) => r.coldMs ?? Number.NaN) : result.piCold.ms;
    const turn = [med(result.shadowlog, (r) => r.turnMs), med(result.pi, (r) => r.turnMs)] as const;
    const rss = [med(result.shadowlog, (r) => r.peakRssBytes), med(result.pi, (r) => r.peakRssBytes)] as const;
    const requestChars = [med(result.shadowlog, (r) => r.requestChars), med(result.pi, (r) => r.requestChars)] as const;
    const coldLimit = result.piCold?.limitMs ?? 0;
    return {
      result,
      cells: [
        `×${result.scale}`,
        formatCount(result.lines),
        formatCount(med(result.shadowlog, (r) => r.contextSize)),
        `${formatBytes(requestChars[0])} / ${formatBytes(requestChars[1])}`,
        formatMs(coldShadowlog),
        coldPi === null ? `> ${formatMs(coldLimit)} (stopped)` : formatMs(coldPi),
        coldPi === null ? `< ${formatRatio(coldShadowlog / coldLimit)}` : formatRatio(coldShadowlog / coldPi),
        formatMs(turn[0]),
        formatMs(turn[1]),
        formatRatio(turn[0] / turn[1]),
        formatBytes(rss[0]),
        formatBytes(rss[1]),
        formatRatio(rss[0] / rss[1]),
        `${result.runs} × ${result.turns}`,
      ],
      figures: {
        scale: result.scale,
        lines: result.lines,
        events: result.events,
        importMs: result.importMs,
        runs: result.runs,
        turns: result.turns,
        surfaceNodes: med(result.shadowlog, (r) => r.contextSize),
        piMessages: med(result.pi, (r) => r.contextSize),
        requestChars: { shadowlog: requestChars[0], pi: requestChars[1] },
        coldMs: {
          shadowlog: coldShadowlog,
          pi: coldPi,
          ratio: coldPi === null ? null : coldShadowlog / coldPi,
          ...(result.piCold === undefined ? {} : { piStoppedAfterMs: coldPi === null ? coldLimit : null }),
        },
        turnMs: { shadowlog: turn[0], pi: turn[1], ratio: turn[0] / turn[1] },
        peakRssBytes: { shadowlog: rss[0], pi: rss[1], ratio: rss[0] / rss[1] },
      },
    };
  });
  return {
    tables: [
      {
        title: `shadowlog (SQLite) next to pi ${PI_VERSION} on pi's large-session.jsonl and scaled copies (medians of runs of one process each)`,
        columns: [
          'session',
          'lines',
          'surface nodes',
          'request (shadowlog / pi)',
          'cold load',
          'pi',
          'ratio',
          'per call',
          'pi',
          'ratio',
          'peak RSS',
          'pi',
          'ratio',
          'runs × turns',
        ],
        rows: rows.map((row) => row.cells),
      },
    ],
    notes: [
      'Cold load: shadowlog opens the SQLite store, opens the session with the harness (SessionLog.open: the surface fold) and renders the surface to messages; pi runs SessionManager.open and buildSessionContext, as it does to resume a session. Module loading is not counted (each process loads its modules before the clock starts).',
      `pi's buildSessionContext builds the path from the leaf to the root with Array.unshift, which is quadratic in the session's entries; from ×${sizes.piEntriesFrom} on it is timed alone and stopped after ${formatMs(sizes.piColdLimitMs)}, and pi's agent starts from the session's message entries in order (the same list for these sessions, which the smaller scales check).`,
      'Per call: one turn around one model call, the answer a short streamed text. shadowlog runs session.send() with the Anthropic adapter: turn/start + user/message, the request rendered, written and hashed (the digest recorded), model/request, the request text joined as a send does, the answer, turn/end. pi runs its agent (pi-agent-core’s Agent, pi’s convertToLlm): pi-ai’s Anthropic provider builds the request from the agent’s messages, the Anthropic SDK serializes it and hands it to a fetch that answers in process, the provider parses the streamed answer, and each message is persisted with SessionManager.appendMessage. Request: characters of the last request body each serialized.',
      'Durability: shadowlog commits a turn in two SQLite transactions with fsync (WAL, synchronous FULL): the turn’s start with its model/request before the call, the answer with turn/end before send() returns; one writer owns the session (a second is refused). pi appends with appendFileSync: no fsync and no lock, so a crash can lose its last messages and two pi writers silently lose one.',
      'Peak RSS is each process’s maxRSS, modules included (pi’s package loads its whole agent and TUI).',
      'Scaled copies repeat the session’s lines after its header, with each copy’s tool call ids suffixed so that they stay unique; pi migrates each file to its current format once before the runs (unmeasured), and each run starts from a fresh copy of the session file or database.',
    ],
    figures: {
      piVersion: PI_VERSION ?? null,
      sizes: { scales: sizes.scales.map((size) => ({ ...size })), piEntriesFrom: sizes.piEntriesFrom, piColdLimitMs: sizes.piColdLimitMs },
      scales: rows.map((row) => row.figures),
    },
  };
}

export const benchmark: Benchmark = {
  name: 'pi-session',
  description: 'cold load, per-call cost and peak RSS next to pi’s own session and agent code, on pi’s large session and 10×/113× copies',
  run,
};

// Run alone: `npx tsx bench/pi-session.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
