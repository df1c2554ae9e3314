// Benchmark: opening a 100,000-event session in the audit page, as a ratio to `shadowlog show
// <id> --record --json` of the same session (the whole record printed), measured in the same
// run. "Opening" is `view <id> --out FILE` (read every event, rebuild and digest-check every
// call, write the page) and then loading that file in chromium until the timeline, the chart
// and the first call's panel are drawn; the last call is then selected too. The session is the
// replay benchmark's: real turns of the spine, synthetic turns and compactions (their digests
// are placeholders, so their checks fail, as the page shows), real turns again.
//
//   npm run bench -- view
//   npx tsx bench/view.bench.ts [--quick]

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { main } from '../src/cli/main.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { pageScript } from '../src/view/page-script.js';
import { PAGE_STYLE } from '../src/view/page-style.js';
import { build, type Sizes } from './replay.bench.js';
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
} from './support.js';

const SESSION_ID = 'bench-replay';
const CHROMIUM = process.env.SHADOWLOG_CHROMIUM ?? '/usr/bin/chromium';
const FULL: Sizes = { realFirst: 3_000, syntheticUntil: 94_000, total: 100_000, repeats: 2 };
const QUICK: Sizes = { realFirst: 1_000, syntheticUntil: 9_400, total: 10_000, repeats: 2 };

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

interface BrowserTimes {
  readonly loadMs: number;
  readonly lastCallMs: number;
}

async function timeBrowser(file: string, repeats: number, context: BenchContext): Promise<BrowserTimes[] | string> {
  const { existsSync } = await import('node:fs');
  if (!existsSync(CHROMIUM)) return `not measured: no chromium at ${CHROMIUM}`;
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const times: BrowserTimes[] = [];
  try {
    for (let repeat = 0; repeat <= repeats; repeat++) {
      context.progress(`view: loading the page in chromium (${repeat === 0 ? 'warm-up' : `${repeat} of ${repeats}`})`);
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      let start = clock();
      await page.goto(`file://${file}`, { timeout: 120_000 });
      await page.locator('#panel h2').first().waitFor({ timeout: 120_000 });
      await page.locator('#pressure-chart').waitFor();
      const loadMs = elapsedMs(start);
      start = clock();
      await page.locator('#timeline').focus();
      await page.keyboard.press('End');
      await page.waitForFunction(() => document.querySelector('#timeline [aria-selected="true"]')?.closest('.vlist')?.scrollTop !== 0);
      await page.locator('#panel h2').first().waitFor();
      const lastCallMs = elapsedMs(start);
      if (errors.length > 0) throw new Error(`view benchmark: the page failed: ${errors.join('; ')}`);
      if (repeat > 0) times.push({ loadMs, lastCallMs });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return times;
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('view');
  try {
    const storePath = join(directory.path, 'log.db');
    const store = await openSqliteStore(storePath);
    const built = await (async () => {
      try {
        return await build(store, sizes, context);
      } finally {
        await store.close();
      }
    })();
    const storeArgs = ['--store', `sqlite:${storePath}`];
    const file = join(directory.path, 'view.html');
    const showMs: number[] = [];
    const viewMs: number[] = [];
    let showBytes = 0;
    let viewSummary: Record<string, unknown> = {};
    for (let repeat = 0; repeat <= sizes.repeats; repeat++) {
      context.progress(`view: show --record and view --out (${repeat === 0 ? 'warm-up' : `${repeat} of ${sizes.repeats}`})`);
      const show = await timeCli([...storeArgs, '--json', 'show', SESSION_ID, '--record'], directory.path);
      if (show.code !== 0) throw new Error(`view benchmark: show --record exited ${show.code}`);
      showBytes = show.bytes;
      const view = await timeCli([...storeArgs, '--json', 'view', SESSION_ID, '--out', file], directory.path);
      viewSummary = JSON.parse(view.stdout) as Record<string, unknown>;
      // Exit 1 is the page's own verdict on the synthetic calls' placeholder digests.
      if (view.code !== 0 && view.code !== 1) throw new Error(`view benchmark: view --out exited ${view.code}`);
      if (repeat > 0) {
        showMs.push(show.ms);
        viewMs.push(view.ms);
      }
    }
    const pageBytes = statSync(file).size;
    const browser = await timeBrowser(file, sizes.repeats, context);
    const show = median(showMs);
    const view = median(viewMs);
    const measured = typeof browser === 'string' ? undefined : browser;
    const load = measured === undefined ? undefined : median(measured.map((time) => time.loadMs));
    const lastCall = measured === undefined ? undefined : median(measured.map((time) => time.lastCallMs));
    const rows: string[][] = [
      ['show --record --json (the baseline)', formatBytes(showBytes), formatMs(show), '1.00×'],
      ['view --out (read, check every call, write the page)', formatBytes(pageBytes), formatMs(view), formatRatio(view / show)],
    ];
    if (load !== undefined && lastCall !== undefined) {
      rows.push(['the page opened in chromium (timeline, chart, first call)', '', formatMs(load), formatRatio(load / show)]);
      rows.push(['view --out, then the page opened', '', formatMs(view + load), formatRatio((view + load) / show)]);
      rows.push(['then selecting the last call (End)', '', formatMs(lastCall), formatRatio(lastCall / show)]);
    } else {
      rows.push(['the page opened in chromium', '', String(browser), '']);
    }
    const script = await pageScript();
    return {
      tables: [
        {
          title: `Opening a ${formatCount(built.events)}-event session in the audit page vs show --record, on SQLite (median of ${sizes.repeats})`,
          columns: ['operation', 'output', 'time', 'vs show --record'],
          rows,
        },
      ],
      notes: [
        `The session of the replay benchmark: ${formatCount(built.events)} events, ${formatCount(Number(viewSummary.calls))} model calls (${formatCount(Number(viewSummary.verified))} digest-verified; the ${formatCount(Number(viewSummary.failed))} failed are the synthetic turns' placeholder digests), built in ${formatMs(built.buildMs)}.`,
        `The page's own code: ${formatBytes(Buffer.byteLength(script))} of script and ${formatBytes(Buffer.byteLength(PAGE_STYLE))} of style, no framework; the rest of its ${formatBytes(pageBytes)} is the session's events as JSON. Lists render only the rows in view.`,
        'Both commands run in-process through the CLI against the same store, output counted and dropped; the browser is Debian’s chromium (headless) through playwright-core, timed from navigation until the first call’s panel and the chart are drawn.',
      ],
      figures: {
        sizes: { ...sizes },
        events: built.events,
        calls: Number(viewSummary.calls),
        verified: Number(viewSummary.verified),
        failed: Number(viewSummary.failed),
        showMs: show,
        showSamplesMs: showMs,
        showBytes,
        viewOutMs: view,
        viewOutSamplesMs: viewMs,
        pageBytes,
        scriptBytes: Buffer.byteLength(script),
        styleBytes: Buffer.byteLength(PAGE_STYLE),
        browserLoadMs: load ?? null,
        browserLastCallMs: lastCall ?? null,
        browser: measured === undefined ? String(browser) : measured.map((time) => ({ ...time })),
        ratioViewOutToShow: view / show,
        ratioOpenToShow: load === undefined ? null : (view + load) / show,
      },
    };
  } finally {
    directory.cleanup();
  }
}

export const benchmark: Benchmark = {
  name: 'view',
  description: 'opening a 100,000-event session in the audit page (view --out, then chromium), vs show --record',
  run,
};

// Run alone: `npx tsx bench/view.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
