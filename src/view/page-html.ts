// The audit page as one HTML document: its style and its one script inline, each allowed by
// its hash in a strict Content-Security-Policy (no other script, no inline handler, nothing
// fetched but the follow stream of a served page), and the session's data as JSON in a
// non-executable script block, with every `<` escaped so that no `</script>` in the log can
// end the block. Nothing from the log is written into the markup itself.

import { nodeSha256Hex } from '../store/node-sha256.js';
import { pageScript } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import type { ViewDocument } from './view-data.js';

export interface ViewPage {
  readonly html: string;
  /** The Content-Security-Policy, also in the page's meta element; a server sends it as a header too. */
  readonly contentSecurityPolicy: string;
}

function sourceHash(text: string): string {
  return `'sha256-${Buffer.from(nodeSha256Hex(text), 'hex').toString('base64')}'`;
}

/** JSON that can stand inside a script element: no `<` (so no `</script>` or `<!--`), no line separators. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function contentSecurityPolicy(script: string, style: string, live: boolean): string {
  return [
    "default-src 'none'",
    `script-src ${sourceHash(script)}`,
    `style-src ${sourceHash(style)}`,
    "img-src 'none'",
    "font-src 'none'",
    `connect-src ${live ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export async function renderViewPage(viewDocument: ViewDocument): Promise<ViewPage> {
  const script = await pageScript();
  const csp = contentSecurityPolicy(script, PAGE_STYLE, viewDocument.live);
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>shadowlog view</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<div id="app"><p>Loading the session…</p></div>
<script type="application/json" id="shadowlog-data">${scriptSafeJson(viewDocument)}</script>
<script>${script}</script>
</body>
</html>
`;
  return { html, contentSecurityPolicy: csp };
}
