// The audit page in a real browser (Debian's chromium through playwright-core): the demo's
// session clicked and keyed through — every call's digest badge, both compactions expanded to
// their originals, the chart drawn, a screenshot that is not blank — a hostile session that
// runs none of its script, and a served page that follows the demo while it writes.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent } from '../../src/log/event.js';
import { origins } from '../../src/log/origins.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { buildViewDocument, renderViewPage, startViewServer, type ViewDocument } from '../../src/view/index.js';
import { type Child, killChildren, startChild } from '../support/child-process.js';
import { distinctColours, HAS_CHROMIUM, launchChromium, MUST_HAVE_CHROMIUM, watchedPage } from './browser.js';
import { HOSTILE_LINES, hostileStore, readAll, TUNE_REPORT, writeDemoSession } from './view-sessions.js';

// Written pages carry their content, as `view --out` writes them.
const options = { resolveRenderer: rendererFor, registry: createCliRegistry(), packContent: true };
const directory = mkdtempSync(join(tmpdir(), 'shadowlog-view-browser-'));

describe.runIf(MUST_HAVE_CHROMIUM && !HAS_CHROMIUM)('under CI', () => {
  it('has chromium to run the browser tests (.ci/run installs it)', () => {
    expect(HAS_CHROMIUM).toBe(true);
  });
});

/** Writes the page of `viewDocument` to a file and returns its file:// URL. */
async function pageFile(name: string, viewDocument: ViewDocument): Promise<string> {
  const file = join(directory, name);
  writeFileSync(file, (await renderViewPage(viewDocument)).html);
  return `file://${file}`;
}

const text = async (page: Page, selector: string) => (await page.locator(selector).first().textContent()) ?? '';

describe.runIf(HAS_CHROMIUM)('the page in chromium', () => {
  let browser: Browser;
  let demoDocument: ViewDocument;
  let demoEvents: LogEvent[];
  let demoUrl: string;
  let cleanupDemo: () => void;
  beforeAll(async () => {
    browser = await launchChromium();
    const demo = await writeDemoSession('demo-browser');
    cleanupDemo = () => demo.workspace.cleanup();
    const store = await openSqliteStore(demo.storePath);
    demoDocument = await buildViewDocument(store, 'demo-browser', { ...options, tune: TUNE_REPORT });
    demoEvents = await readAll(store, 'demo-browser');
    await store.close();
    demoUrl = await pageFile('demo.html', demoDocument);
  });
  afterAll(async () => {
    await browser?.close();
    cleanupDemo?.();
    rmSync(directory, { recursive: true, force: true });
  });

  it("walks the demo's timeline by keyboard: every call's digest badge shows the digest replay proves", async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    expect(await text(page, '#chain-badge')).toBe('✓ hash chain intact');
    expect(await text(page, '#summary')).toContain('93 events · 20 model calls (20 digest-verified, 0 failed) · 2 compactions');
    await page.locator('#timeline').focus();
    await page.keyboard.press('Home');
    const seen: string[] = [];
    const rows = await page.locator('#timeline').evaluate(() => document.querySelectorAll('#timeline .vrow').length);
    expect(rows).toBeGreaterThan(10);
    for (let index = 0; index < 60; index++) {
      const heading = await text(page, '#panel h2');
      if (heading.startsWith('Model call ')) {
        const call = demoDocument.session.calls.find((candidate) => `Model call ${candidate.turn}.${candidate.step}` === heading);
        expect(call, heading).toBeDefined();
        expect(await text(page, '#digest-badge')).toBe(`✓ digest verified · sha256 ${call?.check.digest?.slice(0, 12)}…`);
        expect(await page.locator('#digest-badge').getAttribute('title')).toBe(call?.check.digest);
        seen.push(heading);
      }
      await page.keyboard.press('ArrowDown');
    }
    expect(new Set(seen).size).toBe(20);
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  it('offers the command that asks a call again with the originals, on calls whose surface holds a replacement only', async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    await page.locator('#timeline .vrow', { hasText: 'call 1.1' }).first().click();
    expect(await page.locator('#panel h2').first().textContent()).toBe('Model call 1.1');
    expect(await page.locator('#ask-again').count()).toBe(0);
    const first = demoDocument.session.compactions[0];
    const after = demoDocument.session.calls.find((call) => call.seq > (first?.startSeq ?? Number.POSITIVE_INFINITY));
    await page
      .locator('#timeline .vrow', { hasText: `call ${after?.turn}.${after?.step}` })
      .first()
      .click();
    expect(await page.locator('#ask-again').textContent()).toBe(
      `shadowlog whatif demo-browser --turn ${after?.turn} --step ${after?.step} --restore all`,
    );
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  it('expands both compactions to their originals, by click and by keyboard', async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    const compactions = demoDocument.session.compactions;
    for (const [position, compaction] of compactions.entries()) {
      await page.locator('#timeline .t-compaction').nth(position).scrollIntoViewIfNeeded();
      await page.locator('#timeline .t-compaction').nth(position).click();
      expect(await text(page, '#compaction-badge')).toBe('✓ compacted');
      const facts = await text(page, '#panel dl.facts');
      expect(facts).toContain(`pressure in turn ${compaction.turn}`);
      expect(facts).toContain('threshold 2,560, retained tail 1,200');
      expect(facts).toContain(`surface ${compaction.summary?.tokensBefore} → ${compaction.summary?.tokensAfter}`);
      expect(facts).toContain('the extractive summarizer sends no model request');
      const origins = await originsIn(demoEvents, compaction.replacementSeq as number);
      expect(await text(page, '#panel h3')).toBe(
        `Replaced by #${compaction.replacementSeq}, which stands for these ${origins.length} originals`,
      );
      expect(await text(page, '#originals .vrow')).toContain(`#${origins[0]}`);
      expect(await text(page, '#node-detail')).toContain('<compacted-summary>');
    }
    // The first call after the second compaction: the surface holds the second summary, which stands for the first.
    const second = compactions[1];
    const after = demoDocument.session.calls.find((call) => call.seq > (second?.replacementSeq ?? 0));
    await page
      .locator('#timeline .vrow', { hasText: `call ${after?.turn}.${after?.step}` })
      .first()
      .click();
    expect(await text(page, '#diff')).toContain(`▤ compacted:`);
    expect(await text(page, '#diff')).toContain(`→ #${second?.replacementSeq}`);
    const replacement = page.locator('#surface .vrow.replacement').first();
    expect(await replacement.textContent()).toContain(`#${second?.replacementSeq}`);
    await replacement.locator('.toggle').click();
    const origins = await originsIn(demoEvents, second?.replacementSeq as number);
    await expect.poll(() => page.locator('#surface .vrow.origin').count()).toBeGreaterThan(5);
    expect(await text(page, '#surface .vrow.origin')).toContain(`#${origins[0]}`);
    expect(await text(page, '#surface .vrow.origin')).toContain(`original, shadowed by #${second?.replacementSeq}`);
    // Keyboard: collapse with ArrowLeft from an original, open again with ArrowRight.
    await page.locator('#surface .vrow.origin').first().click();
    expect(await text(page, '#node-detail')).toContain('an original, shadowed by');
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#surface .vrow.origin').count()).toBe(0);
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#surface .vrow.origin').count()).toBeGreaterThan(5);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('timeline');
    // Enter from the timeline goes into the surface with its first row selected; → and Enter expand a replacement.
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('surface');
    expect(await page.locator('#surface .vrow[aria-selected="true"]').count()).toBe(1);
    const selectedRow = page.locator('#surface .vrow[aria-selected="true"]');
    for (let step = 0; step < 20 && !((await selectedRow.getAttribute('class')) ?? '').includes('replacement'); step++) {
      await page.keyboard.press('ArrowDown');
    }
    expect(await selectedRow.getAttribute('class')).toContain('replacement');
    await page.keyboard.press('ArrowRight');
    expect(await page.locator('#surface .vrow.origin').count()).toBeGreaterThan(5);
    await page.keyboard.press('ArrowLeft');
    expect(await page.locator('#surface .vrow.origin').count()).toBe(0);
    await page.keyboard.press('Enter');
    expect(await page.locator('#surface .vrow.origin').count()).toBeGreaterThan(5);
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  it('draws the chart with both compactions, and a screenshot that is not blank', async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    expect(await page.locator('#pressure-chart polyline').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('#pressure-chart line.m-compaction').count()).toBe(2);
    expect(await page.locator('#pressure-chart line.m-prune').count()).toBe(1);
    // A click on the chart selects the call under it: the last one at the right edge.
    const box = (await page.locator('#pressure-chart').boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.mouse.click(box.x + box.width - 13, box.y + box.height / 2);
    const last = demoDocument.session.calls.at(-1);
    expect(await text(page, '#panel h2')).toBe(`Model call ${last?.turn}.${last?.step}`);
    expect(await text(page, '#tune-recommendation')).toContain('Recommended: defaults');
    expect(await page.locator('#tune-policies tr').count()).toBe(3);
    const png = await page.screenshot({ fullPage: true });
    writeFileSync(join(tmpdir(), 'shadowlog-view-demo.png'), png);
    expect(await distinctColours(browser, png)).toBeGreaterThan(200);
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  it("never clips a compaction's tag in the timeline, nor a mark's glyph on the chart", async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    await page.locator('#pressure-chart').waitFor();
    const boxes = await page.evaluate(() => {
      const inside = (inner: DOMRect, outer: DOMRect) =>
        inner.left >= outer.left - 0.5 &&
        inner.right <= outer.right + 0.5 &&
        inner.top >= outer.top - 0.5 &&
        inner.bottom <= outer.bottom + 0.5;
      const svg = (document.querySelector('#pressure-chart') as SVGSVGElement).getBoundingClientRect();
      const glyphs = Array.from(document.querySelectorAll('#pressure-chart .mark-glyph')).map((glyph) =>
        inside(glyph.getBoundingClientRect(), svg),
      );
      const tags = Array.from(document.querySelectorAll('#timeline .t-compaction')).map((row) => {
        const tag = row.querySelector('.tag') as HTMLElement;
        return {
          text: tag.textContent,
          whole: tag.scrollWidth <= tag.clientWidth && inside(tag.getBoundingClientRect(), row.getBoundingClientRect()),
        };
      });
      return { glyphs, tags };
    });
    expect(boxes.glyphs).toHaveLength(3);
    expect(boxes.glyphs.every(Boolean)).toBe(true);
    expect(boxes.tags.map((tag) => tag.text)).toEqual(
      demoDocument.session.compactions.map(
        (compaction) =>
          `compacted ${compaction.summary?.tokensBefore?.toLocaleString('en-US')}→${compaction.summary?.tokensAfter?.toLocaleString('en-US')}`,
      ),
    );
    expect(boxes.tags.every((tag) => tag.whole)).toBe(true);
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  it("labels its axes, shows a call's figures on hover and on focus, and lets series be switched off", async () => {
    const { page, incidents } = await watchedPage(browser);
    await page.goto(demoUrl);
    const chart = page.locator('#pressure-chart');
    expect(await chart.locator('.axis-title').allTextContents()).toEqual(['model call (in log order)', 'tokens']);
    const ticks = await chart.locator('text.axis').allTextContents();
    expect(ticks).toContain('1');
    expect(ticks.some((tick) => /^\d{1,3}(,\d{3})+$/.test(tick))).toBe(true);
    expect(ticks.every((tick) => /^\d{1,3}(,\d{3})*$/.test(tick))).toBe(true);
    // Hover: the figures of the call under the pointer.
    const box = (await chart.boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.mouse.move(box.x + 72, box.y + box.height / 2);
    const first = demoDocument.session.calls[0];
    await expect.poll(() => text(page, '#chart-tooltip')).toContain(`call 1 of ${demoDocument.session.calls.length}`);
    expect(await text(page, '#chart-tooltip')).toContain(`reported input: ${first?.usage?.inputTokens.toLocaleString('en-US')}`);
    expect(await text(page, '#chart-tooltip')).toContain('estimated input: ~');
    // Focus: ← → walk the calls, Enter opens one.
    await page.mouse.move(0, 0);
    await chart.focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    expect(await text(page, '#chart-tooltip')).toContain('call 2 of');
    await page.keyboard.press('Enter');
    const second = demoDocument.session.calls[1];
    expect(await text(page, '#panel h2')).toBe(`Model call ${second?.turn}.${second?.step}`);
    // The legend lists only what is drawn, and a click switches a series off and on.
    const keys = await page.locator('.legend button.key').allTextContents();
    expect(keys).toEqual(['estimated input (meter)', 'reported input', 'window', 'threshold', 'retained tail']);
    const before = await chart.locator('polyline.s-reported').count();
    expect(before).toBeGreaterThan(0);
    await page.locator('.legend button.s-reported').click();
    expect(await page.locator('#pressure-chart polyline.s-reported').count()).toBe(0);
    expect(await page.locator('.legend button.s-reported').getAttribute('aria-pressed')).toBe('false');
    await page.locator('.legend button.s-reported').press('Enter');
    expect(await page.locator('#pressure-chart polyline.s-reported').count()).toBe(before);
    expect(incidents.errors).toEqual([]);
    await page.close();
  });

  describe('a hostile session', () => {
    let store: LogStore;
    let hostileUrl: string;
    beforeAll(async () => {
      ({ store } = await hostileStore(directory, 'hostile'));
      hostileUrl = await pageFile('hostile.html', await buildViewDocument(store, 'hostile', options));
    });
    afterAll(() => store?.close());

    // Hundreds of clicks, each a round trip to the browser: on a busy machine more than the default 30 s.
    it('renders every message, call and result as text, and runs none of it', async () => {
      const { page, incidents } = await watchedPage(browser);
      await page.goto(hostileUrl);
      await page.locator('#timeline').focus();
      await page.keyboard.press('Home');
      const count = await page.evaluate(() => document.querySelectorAll('#timeline .vrow').length);
      for (let index = 0; index < count; index++) {
        // Open every replacement on the surface and show each row's whole text.
        for (const toggle of await page.locator('#surface .toggle[aria-expanded="false"]').all()) await toggle.click();
        for (const row of await page.locator('#surface .vrow, #record .vrow, #originals .vrow').all()) await row.click();
        await page.locator('#timeline').focus();
        await page.keyboard.press('ArrowDown');
      }
      await page.locator('#timeline .vrow', { hasText: 'call 1.2' }).click();
      await page.locator('#surface .vrow', { hasText: 'user' }).first().click();
      const detail = await text(page, '#node-detail');
      for (const line of HOSTILE_LINES.slice(0, 5)) expect(detail).toContain(line);
      expect(detail).toContain('\\x1b[2J\\x1b[31mred\\x1b]8;;https://example.invalid\\x07link');
      expect(detail).toContain('\\u202eevil');
      const state = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: unknown }).__pwned,
        violations: (window as unknown as { __violations: string[] }).__violations,
        // The one script that runs; the others are data (the first document, the content's blocks).
        scripts: document.querySelectorAll('script:not([type="application/json"]):not([type="application/octet-stream"])').length,
        data: document.querySelectorAll('script[type="application/json"], script[type="application/octet-stream"]').length > 1,
        foreign: document.querySelectorAll('img, iframe, a, object, embed, [onerror], [onload], [onmouseover], [href], [srcdoc]').length,
        svgs: document.querySelectorAll('svg').length,
      }));
      expect(state).toEqual({ pwned: undefined, violations: [], scripts: 1, data: true, foreign: 0, svgs: 1 });
      expect(incidents.errors).toEqual([]);
      await page.close();
    }, 120_000);

    it('is guarded by its Content-Security-Policy too: markup injected into it cannot run script', async () => {
      const { page } = await watchedPage(browser);
      await page.goto(hostileUrl);
      await page.evaluate(() => {
        document.body.insertAdjacentHTML(
          'beforeend',
          '<img src="x" onerror="window.__pwned = \'img\'"><div onclick="window.__pwned = 1"></div>',
        );
        const script = document.createElement('script');
        script.textContent = 'window.__pwned = "script"';
        document.body.append(script);
      });
      await expect
        .poll(() => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations.length))
        .toBeGreaterThanOrEqual(2);
      const state = await page.evaluate(() => ({
        pwned: (window as unknown as { __pwned?: unknown }).__pwned,
        violations: (window as unknown as { __violations: string[] }).__violations.map((line) => line.split(':')[0]),
      }));
      expect(state.pwned).toBeUndefined();
      expect(state.violations).toEqual(expect.arrayContaining(['img-src', 'script-src-elem']));
      await page.close();
    });

    it('shows CJK text in a font that has it', async () => {
      const { page } = await watchedPage(browser);
      await page.goto(hostileUrl);
      expect(await page.evaluate(() => document.fonts.check('14px "WenQuanYi Micro Hei"', '你好'))).toBe(true);
      await page.close();
    });
  });

  describe('served, following the demo while it writes', () => {
    const children: Child[] = [];
    afterAll(() => killChildren(children));

    it('shows events as they land, every call verified at the end, under its CSP header', async () => {
      const storePath = join(directory, 'live.db');
      const child = startChild(
        'test/support/cli-entry.ts',
        ['--store', `sqlite:${storePath}`, 'demo', '--session', 'live-demo', '--model-latency', '150', '--json'],
        60_000,
      );
      children.push(child);
      let store: LogStore | undefined;
      await expect
        .poll(
          async () => {
            store ??= await openSqliteStore(storePath).catch(() => undefined);
            return store === undefined ? undefined : (await store.head('live-demo'))?.nextSeq;
          },
          { timeout: 20_000, interval: 50 },
        )
        .toBeGreaterThan(0);
      const reader = store as LogStore;
      const server = await startViewServer({ store: reader, sessionId: 'live-demo', ...options, pollMs: 50 });
      try {
        expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        const { page, incidents } = await watchedPage(browser);
        const response = await page.goto(server.url);
        expect(response?.headers()['content-security-policy']).toMatch(
          /^default-src 'none'; script-src 'sha256-[^']+'; .*connect-src 'self'; .*frame-ancestors 'none'$/,
        );
        const first = Number(/^(\d+) events/.exec(await text(page, '#summary .facts-line'))?.[1]);
        const { code } = await child.exited;
        expect(code).toBe(0);
        const head = (await reader.head('live-demo'))?.nextSeq as number;
        expect(first).toBeLessThan(head);
        await expect
          .poll(() => text(page, '#summary .facts-line'), { timeout: 15_000 })
          .toContain(`${head} events · 20 model calls (20 digest-verified, 0 failed) · 2 compactions`);
        expect(await text(page, '#follow-status')).toBe(`following: live · ${head} events`);
        expect(await page.locator('#pressure-chart line.m-compaction').count()).toBe(2);
        expect(incidents.errors).toEqual([]);
        await page.close();
        expect(await status(server.url, 'evil.example')).toBe(421);
        expect(await status(`${server.url}events?from=x`, undefined)).toBe(400);
        expect(await status(`${server.url}nothing`, undefined)).toBe(404);
      } finally {
        await server.close();
        await reader.close();
      }
    });
  });
});

/** What the library's origins() says event `seq` of the session stands for. */
function originsIn(events: readonly LogEvent[], seq: number): Promise<number[]> {
  return origins(seq as never, (at) => events[at] as LogEvent);
}

/** The status of a GET to `url`, with another Host header when given. */
function status(url: string, host: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: host === undefined ? {} : { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}
