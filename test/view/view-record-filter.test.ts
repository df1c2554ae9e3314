// The record pane's filter in chromium, on a written page and on a served one: the source's
// noise (foreign lines kept whole) hidden by default with a count, a checkbox that shows it, a
// type filter, and a search that finds what `shadowlog search` finds (the store's own search,
// and in a written page the same match over the same text, read from the file's blocks).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import { ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { defineTool } from '../../src/spine/tool.js';
import type { LogStore } from '../../src/store/log-store.js';
import { searchStore } from '../../src/store/search/scan-search.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { buildViewDocument, renderViewPage, startViewServer, type ViewServer } from '../../src/view/index.js';
import { HAS_CHROMIUM, launchChromium, watchedPage } from './browser.js';
import { readAll } from './view-sessions.js';

const SESSION = 'record-filter';
const NOISE = 12;
const directory = mkdtempSync(join(tmpdir(), 'shadowlog-view-record-'));

/** Two turns with a tool call each, and between them a dozen progress lines of another harness, one of them naming the needle. */
async function writeSession(store: LogStore): Promise<void> {
  const model = new ScriptedModel({
    modelId: 'scripted',
    replies: ({ messages }) =>
      messages.at(-1)?.role === 'tool'
        ? { text: 'The haystack holds a Needle.' }
        : { text: 'Looking.', toolCalls: [{ name: 'grep', arguments: { pattern: 'needle' } }] },
  });
  const harness = createHarness({
    store,
    model,
    tools: [
      defineTool({ name: 'grep', description: 'grep', input: z.object({ pattern: z.string() }), execute: () => 'src/hay.ts: no match' }),
    ],
    systemPrompt: 'You search.',
  });
  const session = await harness.createSession(SESSION);
  try {
    await session.send('find it');
    await session.log.append(
      Array.from({ length: NOISE }, (_, index) => ({
        type: 'claude-code/progress',
        data: { text: JSON.stringify({ type: 'progress', message: index === 3 ? 'scanning for the needle' : `step ${index}` }) },
        ignorable: true as const,
      })),
    );
    await session.send('again');
  } finally {
    await session.close();
  }
}

const rows = (page: Page) => page.locator('#record .vrow .seq').allTextContents();

describe.runIf(HAS_CHROMIUM)("the record's filter in chromium", () => {
  let browser: Browser;
  let store: LogStore;
  let fileUrl: string;
  let server: ViewServer;
  let lastCallSeq: number;
  let seqs: number[];
  beforeAll(async () => {
    browser = await launchChromium();
    store = await openSqliteStore(join(directory, 'log.db'));
    await writeSession(store);
    const events = await readAll(store, SESSION);
    lastCallSeq = events.filter((event) => event.type === 'model/request').at(-1)?.seq as number;
    seqs = events.map((event) => event.seq);
    const options = { resolveRenderer: rendererFor, registry: createCliRegistry() };
    const file = join(directory, 'page.html');
    writeFileSync(file, (await renderViewPage(await buildViewDocument(store, SESSION, { ...options, packContent: true }))).html);
    fileUrl = `file://${file}`;
    server = await startViewServer({ store, sessionId: SESSION, ...options });
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
    await store?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  for (const served of [false, true]) {
    it(`hides the noise with a count, filters by type, and finds what search finds (${served ? 'served' : 'written'})`, async () => {
      const { page, incidents } = await watchedPage(browser);
      await page.goto(served ? server.url : fileUrl);
      await page.locator('#timeline .vrow', { hasText: 'call 2.2' }).click();
      await page.locator('#record').waitFor();
      const upTo = seqs.filter((seq) => seq <= lastCallSeq);
      // Hidden by default, and counted.
      expect(await page.locator('.noise-label').textContent()).toBe(` ${NOISE} source-noise events hidden`);
      expect(await page.locator('#record-count').textContent()).toBe(`${upTo.length - NOISE} shown`);
      await page.locator('#record').evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      expect((await page.locator('#record .vrow').allTextContents()).join('\n')).not.toContain('claude-code/progress');
      // Shown on demand.
      await page.locator('#record-noise').check();
      expect(await page.locator('#record-count').textContent()).toBe(`${upTo.length} shown`);
      expect(await page.locator('#record-type option').allTextContents()).toContain('claude-code/progress');
      // One type.
      await page.locator('#record-type').selectOption('tool/result');
      await expect.poll(() => page.locator('#record-count').textContent()).toBe('2 shown');
      expect(await page.locator('#record .vrow .role').allTextContents()).toEqual(['tool', 'tool']);
      await page.locator('#record-type').selectOption('');
      // The search: the seqs the search command's own function finds, up to the call, noise included when shown.
      const found = await searchStore(store, { text: 'needle', sessionId: SESSION });
      const expected = [...new Set(found.hits.map((hit) => hit.seq))].filter((seq) => seq <= lastCallSeq).sort((a, b) => a - b);
      expect(found.hits.some((hit) => hit.type === 'claude-code/progress')).toBe(true);
      await page.locator('#record-search').fill('NEEDLE');
      await expect.poll(() => rows(page)).toEqual(expected.map((seq) => `#${seq}`));
      // With the noise hidden again, the progress line that names the needle goes with it.
      await page.locator('#record-noise').uncheck();
      const progress = found.hits.filter((hit) => hit.type === 'claude-code/progress').map((hit) => hit.seq);
      await expect.poll(() => rows(page)).toEqual(expected.filter((seq) => !progress.includes(seq)).map((seq) => `#${seq}`));
      await page.locator('#record-search').fill('');
      await expect.poll(() => page.locator('#record-count').textContent()).toBe(`${upTo.length - NOISE} shown`);
      expect(incidents.errors).toEqual([]);
      await page.close();
    });
  }
});
