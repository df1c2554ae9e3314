// Benchmark: opening a long session in the audit page, as a ratio to `shadowlog show <id>
// --surface` on the same session, measured in the same run. For a 100,000-event session and,
// when asked (SHADOWLOG_VIEW_BENCH_EVENTS=100000,1000000), a 1,000,000-event one (synthetic
// turns and compactions, bench/view-session.ts, written
// through SessionLog so that fold checkpoints stand every 10,000 events, as a harness leaves
// them), in chromium until the first call's panel and the chart are drawn:
//   - the served page (`view <id>`): from the request for the page (the server reads the log
//     once and builds the first document) to the first call shown;
//   - the written page (`view <id> --out FILE`, written beforehand; its time is shown too):
//     from opening the file to the first call shown.
// The baseline `show --surface` is timed twice: as it runs (from the newest fold checkpoint,
// reading the events after it), and reading the whole log (the checkpoints' key withheld).
//
//   npm run bench -- view
//   SHADOWLOG_VIEW_BENCH_EVENTS=100000,1000000 npm run bench -- view
//   npx tsx bench/view.bench.ts [--quick]

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createCallPricer } from '../src/cli/call-price.js';
import { main } from '../src/cli/main.js';
import { createCliRegistry } from '../src/cli/registry.js';
import { rendererFor } from '../src/cli/renderers.js';
import { CHECKPOINT_KEY_FILE_VARIABLE } from '../src/store/checkpoint-key.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { pageScript } from '../src/view/page-script.js';
import { PAGE_STYLE } from '../src/view/page-style.js';
import { startViewServer } from '../src/view/view-server.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  type Figures,
  formatBytes,
  formatCount,
  formatMs,
  formatRatio,
  median,
  runIfMain,
} from './support.js';
import { buildViewSession } from './view-session.js';

const SESSION_ID = 'bench-view';
const CHROMIUM = process.env.SHADOWLOG_CHROMIUM ?? '/usr/bin/chromium';

interface Size {
  readonly events: number;
  readonly repeats: number;
}

const FULL: readonly Size[] = [{ events: 100_000, repeats: 3 }];
/**
 * Measured only when named (SHADOWLOG_VIEW_BENCH_EVENTS=100000,1000000): writing the session and
 * its page takes about 20 minutes of a quiet 2-core machine, too long for every `npm run bench`.
 */
const OPT_IN: readonly Size[] = [{ events: 1_000_000, repeats: 1 }];
const QUICK: readonly Size[] = [
  { events: 5_000, repeats: 1 },
  { events: 20_000, repeats: 1 },
];

/** Runs the CLI in-process, its output counted and dropped; returns the exit code, the bytes printed and the time. */
async function timeCli(args: string[], cwd: string): Promise<{ code: number; bytes: number; ms: number; stdout: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let bytes = 0;
  let head = '';
  stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (head.length < 4_096) head += chunk.toString('utf8');
  });
  stderr.resume();
  const start = clock();
  const code = await main(args, { stdout, stderr, stdin: Readable.from([]), cwd });
  return { code, bytes, ms: elapsedMs(start), stdout: head };
}

/** show --surface, from the checkpoints or (`whole`) with their key withheld, so that the whole log is read. */
async function timeShow(storeArgs: string[], cwd: string, whole: boolean): Promise<number> {
  const key = process.env[CHECKPOINT_KEY_FILE_VARIABLE];
  if (whole) process.env[CHECKPOINT_KEY_FILE_VARIABLE] = join(cwd, 'no-such-key');
  try {
    const show = await timeCli([...storeArgs, 'show', SESSION_ID, '--surface'], cwd);
    if (show.code !== 0) throw new Error(`view benchmark: show --surface exited ${show.code}`);
    return show.ms;
  } finally {
    if (key === undefined) delete process.env[CHECKPOINT_KEY_FILE_VARIABLE];
    else process.env[CHECKPOINT_KEY_FILE_VARIABLE] = key;
  }
}

type Browser = Awaited<ReturnType<typeof import('playwright-core')['chromium']['launch']>>;

/** Opens `url` and waits for the first call's panel and the chart; the time from navigation. */
async function timeOpen(browser: Browser, url: string): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    const start = clock();
    await page.goto(url, { timeout: 600_000, waitUntil: 'commit' });
    await page.waitForFunction(
      () => performance.getEntriesByName('shadowlog-first-call').length > 0 && document.querySelector('#pressure-chart polyline') !== null,
      null,
      { timeout: 600_000, polling: 20 },
    );
    const ms = elapsedMs(start);
    if (errors.length > 0) throw new Error(`view benchmark: the page failed: ${errors.join('; ')}`);
    if ((await page.locator('#surface').count()) !== 1) throw new Error('view benchmark: the first call shows no surface');
    return ms;
  } finally {
    await page.close();
  }
}

interface Measured {
  readonly events: number;
  readonly calls: number;
  readonly buildMs: number;
  readonly showCheckpointMs: number;
  readonly showWholeMs: number;
  readonly servedMs: number;
  readonly servedBytes: number;
  readonly viewOutMs: number;
  readonly fileMs: number;
  readonly fileBytes: number;
}

async function measure(size: Size, browser: Browser, context: BenchContext): Promise<Measured> {
  const directory = createTempDirectory('view');
  try {
    const storePath = join(directory.path, 'log.db');
    const storeArgs = ['--store', `sqlite:${storePath}`];
    context.progress(`view: writing a ${formatCount(size.events)}-event session`);
    const buildStart = clock();
    const store = await openSqliteStore(storePath);
    let built: Awaited<ReturnType<typeof buildViewSession>>;
    try {
      built = await buildViewSession(store, SESSION_ID, size.events);
    } finally {
      await store.close();
    }
    const buildMs = elapsedMs(buildStart);
    const file = join(directory.path, 'view.html');
    context.progress(`view: view --out on ${formatCount(built.events)} events (every call checked)`);
    const view = await timeCli([...storeArgs, '--json', 'view', SESSION_ID, '--out', file], directory.path);
    // Exit 1 is the page's own verdict on the synthetic calls' placeholder digests.
    if (view.code !== 0 && view.code !== 1) throw new Error(`view benchmark: view --out exited ${view.code}`);
    const summary = JSON.parse(view.stdout) as { calls: number };
    const showCheckpoint: number[] = [];
    const showWhole: number[] = [];
    const served: number[] = [];
    const opened: number[] = [];
    let servedBytes = 0;
    const reader = await openSqliteStore(storePath);
    try {
      // A warm-up first where there are repeats to take the median of; the million-event session runs once.
      const warmUps = size.repeats > 1 ? 1 : 0;
      for (let repeat = 0; repeat < warmUps + size.repeats; repeat++) {
        const warm = repeat < warmUps;
        context.progress(`view: ${formatCount(built.events)} events, ${warm ? 'warm-up' : `${repeat + 1 - warmUps} of ${size.repeats}`}`);
        const checkpoint = await timeShow(storeArgs, directory.path, false);
        const whole = await timeShow(storeArgs, directory.path, true);
        const server = await startViewServer({
          store: reader,
          sessionId: SESSION_ID,
          resolveRenderer: rendererFor,
          registry: createCliRegistry(),
          priceCall: createCallPricer(),
        });
        let servedMs: number;
        try {
          servedMs = await timeOpen(browser, server.url);
          if (repeat === 0) servedBytes = Buffer.byteLength(await (await fetch(server.url)).text());
        } finally {
          await server.close();
        }
        const fileMs = await timeOpen(browser, `file://${file}`);
        if (warm) continue;
        showCheckpoint.push(checkpoint);
        showWhole.push(whole);
        served.push(servedMs);
        opened.push(fileMs);
      }
    } finally {
      await reader.close();
    }
    return {
      events: built.events,
      calls: summary.calls,
      buildMs,
      showCheckpointMs: median(showCheckpoint),
      showWholeMs: median(showWhole),
      servedMs: median(served),
      servedBytes,
      viewOutMs: view.ms,
      fileMs: median(opened),
      fileBytes: statSync(file).size,
    };
  } finally {
    directory.cleanup();
  }
}

async function run(context: BenchContext): Promise<BenchReport> {
  if (!existsSync(CHROMIUM)) throw new Error(`view benchmark: no chromium at ${CHROMIUM} (apt-get install chromium, as .ci/run does)`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const results: Measured[] = [];
  try {
    // SHADOWLOG_VIEW_BENCH_EVENTS=100000,1000000 measures the sizes named (comma-separated), the million-event one included.
    const only = process.env.SHADOWLOG_VIEW_BENCH_EVENTS?.split(',').map(Number);
    const sizes =
      only === undefined ? (context.quick ? QUICK : FULL) : [...QUICK, ...FULL, ...OPT_IN].filter((size) => only.includes(size.events));
    for (const size of sizes) results.push(await measure(size, browser, context));
  } finally {
    await browser.close();
  }
  const rows = results.flatMap((result) => {
    const label = `${formatCount(result.events)} events`;
    const ratio = (ms: number) => `${formatRatio(ms / result.showWholeMs)} / ${formatRatio(ms / result.showCheckpointMs)}`;
    return [
      [label, 'show --surface, reading the whole log (the baseline)', '', formatMs(result.showWholeMs), '1.00×'],
      [
        label,
        'show --surface, from its fold checkpoint',
        '',
        formatMs(result.showCheckpointMs),
        formatRatio(result.showCheckpointMs / result.showWholeMs),
      ],
      [
        label,
        'served page: request → first call shown, chart drawn',
        formatBytes(result.servedBytes),
        formatMs(result.servedMs),
        ratio(result.servedMs),
      ],
      [
        label,
        'written page: open → first call shown, chart drawn',
        formatBytes(result.fileBytes),
        formatMs(result.fileMs),
        ratio(result.fileMs),
      ],
      [
        label,
        'view --out: read, check every call, write the page',
        formatBytes(result.fileBytes),
        formatMs(result.viewOutMs),
        ratio(result.viewOutMs),
      ],
    ];
  });
  const script = await pageScript();
  const figures: Figures = {};
  for (const result of results) figures[String(result.events)] = { ...result };
  return {
    tables: [
      {
        title:
          'Opening a long session in the audit page, vs show --surface on it (chromium; ratios: to the whole-log show / to the checkpointed show)',
        columns: ['session', 'operation', 'page', 'time', 'vs show --surface'],
        rows,
      },
    ],
    notes: [
      ...results.map(
        (result) =>
          `${formatCount(result.events)} events: ${formatCount(result.calls)} model calls (their digests are placeholders, so their checks fail, as the page shows), written in ${formatMs(result.buildMs)}.`,
      ),
      `Times are medians of the runs after a warm-up${results.some((result) => result.events >= 1_000_000) ? ' (at 1,000,000 events one run, without a warm-up)' : ''}; show runs in-process through the CLI, output counted and dropped; the served page is served in-process, as \`view <id>\` serves it, and timed from the request for the page, which builds its first document then (one read of the log); the browser is Debian’s chromium (headless) through playwright-core.`,
      `The page's own code: ${formatBytes(Buffer.byteLength(script))} of script and ${formatBytes(Buffer.byteLength(PAGE_STYLE))} of style. A served page holds the session's structure and every call's figures; a written page the same, then its content in deflated blocks, inflated when a list shows them.`,
    ],
    figures,
  };
}

export const benchmark: Benchmark = {
  name: 'view',
  description:
    'opening a 100,000-event session (and, with SHADOWLOG_VIEW_BENCH_EVENTS=100000,1000000, a 1,000,000-event one) in the audit page (served, and written with --out), vs show --surface',
  run,
};

// Run alone: `npx tsx bench/view.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
