// The page as bytes: the log's text never reaches its markup (only the JSON block, with every
// `<` escaped, so no `</script>` can close it), one script and one style sheet, both allowed
// by hash in a strict Content-Security-Policy, and a client that joins into one script or is
// refused.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogStore } from '../../src/store/log-store.js';
import { buildViewDocument, renderViewPage, scriptSafeJson, type ViewDocument } from '../../src/view/index.js';
import { pageDocumentOf } from '../../src/view/page-delta.js';
import { localModule } from '../../src/view/page-script.js';
import { HOSTILE, HOSTILE_LINES, hostileStore } from './view-sessions.js';

const directory = mkdtempSync(join(tmpdir(), 'shadowlog-view-page-'));
let store: LogStore;
let viewDocument: ViewDocument;
let html: string;
let csp: string;

beforeAll(async () => {
  ({ store } = await hostileStore(directory, 'hostile'));
  viewDocument = await buildViewDocument(store, 'hostile', { resolveRenderer: rendererFor, registry: createCliRegistry() });
  ({ html, contentSecurityPolicy: csp } = await renderViewPage(viewDocument));
});
afterAll(async () => {
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The page with the JSON block's content and the script's body cut out: the markup alone. */
function markupOf(page: string): string {
  return page
    .replace(/(<script type="application\/json" id="shadowlog-data">)[\s\S]*?(<\/script>)/, '$1$2')
    .replace(/(<script>)[\s\S]*?(<\/script>)/, '$1$2');
}

describe('JSON inside a script element', () => {
  it('holds no < > & or line separators, and parses back to the same value', () => {
    const value = { text: `${HOSTILE}\u2028\u2029 & <!-- -->`, nested: [HOSTILE_LINES] };
    const json = scriptSafeJson(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('the page of a hostile session', () => {
  it('keeps all of the session, calls verified, and compacted', () => {
    expect(viewDocument.session.calls.length).toBeGreaterThanOrEqual(6);
    expect(viewDocument.session.calls.every((call) => call.check.status === 'verified')).toBe(true);
    expect(viewDocument.session.compactions[0]?.outcome).toBe('compacted');
  });

  it('writes nothing of the log into its markup', () => {
    const markup = markupOf(html);
    for (const fragment of ['__pwned', 'onerror', 'javascript:', 'srcdoc', 'onmouseover', '\u001b', '\u202e', 'hostile ']) {
      expect(markup, fragment).not.toContain(fragment);
    }
    expect(markup.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('embeds the first document as JSON that parses back whole, each call as its row', () => {
    const block = /<script type="application\/json" id="shadowlog-data">([\s\S]*?)<\/script>/.exec(html)?.[1] as string;
    expect(block).not.toContain('<');
    const { meterSettings: _settings, ...shown } = viewDocument as typeof viewDocument & { meterSettings?: unknown };
    expect(JSON.parse(block)).toEqual(JSON.parse(JSON.stringify(pageDocumentOf(shown))));
  });

  it('allows its one script and style by hash, and nothing else: no inline handlers, no network for a file', () => {
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] as string;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] as string;
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(csp).toBe(
      `default-src 'none'; script-src ${hash(script)}; style-src ${hash(style)}; img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'`,
    );
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${csp}">`);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
    expect(() => new Script(script)).not.toThrow();
  });
});

describe('joining the client into one script', () => {
  it('drops imports between client modules and the export keywords', () => {
    const joined = localModule(
      'panels',
      "import { el } from './text.js';\nimport type { X } from '../view-data.js';\nexport function a() {}\nexport const b = 1;\n",
    );
    expect(joined).toBe('\n\nfunction a() {}\nconst b = 1;\n');
  });

  it('refuses a module the page does not have, a renamed import, and a run-time import from outside', () => {
    expect(() => localModule('main', "import { readFileSync } from 'node:fs';\n")).toThrow(/cannot be joined/);
    expect(() => localModule('main', "import { el as element } from './text.js';\n")).toThrow(/cannot be joined/);
    expect(() => localModule('main', "import { x } from '../view-builder.js';\n")).toThrow(/at run time/);
  });
});
