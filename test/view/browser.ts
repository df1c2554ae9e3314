// Debian's chromium, driven by playwright-core, for the audit page's browser tests. Where it is
// missing the tests are skipped — except under CI (CI set), where a missing browser fails:
// .ci/run installs it.

import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.SHADOWLOG_CHROMIUM ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const MUST_HAVE_CHROMIUM = !['', '0', 'false', undefined].includes(process.env.CI);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM });
}

/** What a page did that it should not: errors, console errors, CSP violations, dialogs. */
export interface PageIncidents {
  readonly errors: string[];
}

export async function watchedPage(browser: Browser): Promise<{ page: Page; incidents: PageIncidents }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const incidents: PageIncidents = { errors: [] };
  page.on('pageerror', (error) => incidents.errors.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') incidents.errors.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    incidents.errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  // Runs before the page's own script (through the debugging protocol, not subject to its CSP).
  await page.addInitScript(() => {
    const violations: string[] = [];
    Object.defineProperty(window, '__violations', { value: violations });
    document.addEventListener('securitypolicyviolation', (event) => violations.push(`${event.violatedDirective}: ${event.sample}`));
  });
  return { page, incidents };
}

/** The number of distinct colours in a screenshot (decoded by the browser itself, on a blank page). */
export async function distinctColours(browser: Browser, png: Buffer): Promise<number> {
  const page = await browser.newPage();
  try {
    return await page.evaluate(async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D;
      context.drawImage(bitmap, 0, 0);
      const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
      const colours = new Set<number>();
      for (let at = 0; at < data.length; at += 4)
        colours.add(((data[at] as number) << 16) | ((data[at + 1] as number) << 8) | (data[at + 2] as number));
      return colours.size;
    }, png.toString('base64'));
  } finally {
    await page.close();
  }
}
