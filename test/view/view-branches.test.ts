// The page of a branch and of its parent (SPEC §14): the branch's header names its parent and the
// event it forks after, the parent's lists its branches, each with the command that shows it.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogStore } from '../../src/store/log-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { buildViewDocument, renderViewPage } from '../../src/view/index.js';
import { HAS_CHROMIUM, launchChromium, watchedPage } from './browser.js';
import { writeDemoSession } from './view-sessions.js';

const options = { resolveRenderer: rendererFor, registry: createCliRegistry() };

describe('the page of a branch and of its parent', () => {
  let store: LogStore;
  let cleanup: () => void;
  const directory = mkdtempSync(join(tmpdir(), 'shadowlog-view-branches-'));
  beforeAll(async () => {
    const demo = await writeDemoSession('demo-tree');
    cleanup = () => demo.workspace.cleanup();
    store = await openSqliteStore(demo.storePath);
    // After turn 3's end, a point with no tool call waiting for its result.
    await SessionLog.fork(store, 'demo-tree', { at: 32, id: 'demo-tree-b', registry: createCliRegistry() });
  });
  afterAll(async () => {
    await store?.close();
    cleanup?.();
    rmSync(directory, { recursive: true, force: true });
  });

  it("names a branch's parent and fork point, and a parent's branches", async () => {
    const branch = await buildViewDocument(store, 'demo-tree-b', options);
    expect(branch.branches).toEqual({ parent: { sessionId: 'demo-tree', forkSeq: 32 }, children: [] });
    const parent = await buildViewDocument(store, 'demo-tree', options);
    expect(parent.branches).toEqual({ parent: null, children: [{ sessionId: 'demo-tree-b', forkSeq: 32 }] });
  });

  it.runIf(HAS_CHROMIUM)(
    'shows both in the header, in a browser',
    async () => {
      const browser = await launchChromium();
      try {
        const texts: Record<string, string> = {};
        for (const [id, selector] of [
          ['demo-tree-b', '#branch-parent'],
          ['demo-tree', '#branch-children'],
        ] as const) {
          const file = join(directory, `${id}.html`);
          writeFileSync(file, (await renderViewPage(await buildViewDocument(store, id, options))).html);
          const { page, incidents } = await watchedPage(browser);
          await page.goto(`file://${file}`);
          texts[id] = (await page.locator(selector).textContent()) ?? '';
          expect(incidents.errors).toEqual([]);
          await page.close();
        }
        expect(texts['demo-tree-b']).toBe(
          "branch of demo-tree after its event #32: events 0–32 are demo-tree's, the rest this branch's own (shadowlog view demo-tree)",
        );
        expect(texts['demo-tree']).toBe('1 branch: demo-tree-b after #32 (shadowlog view demo-tree-b)');
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
