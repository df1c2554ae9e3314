// The audit page as one HTML document: its style and its one script inline, each allowed by
// its hash in a strict Content-Security-Policy (no other script, no inline handler, nothing
// fetched but a served page's own data), the first document as JSON in a non-executable script
// block, with every `<` escaped so that no `</script>` in the log can end the block, and, in a
// written page, the content after the script: blocks of deflated JSON as base64 in
// non-executable blocks, which the page reads when it needs one (a long session's file is
// drawn before the browser has read its last block). Nothing from the log is written into the
// markup itself.

import { inflateRawSync } from 'node:zlib';
import { nodeSha256Hex } from '../store/node-sha256.js';
import { blockElementId } from './client/page-blocks.js';
import { pageDocumentOf } from './page-delta.js';
import { pageScript } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { callBlocks, type ViewContent } from './view-content.js';
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

/** A view document, and for a written page its packed content. */
export type PageSource = ViewDocument & { readonly content?: ViewContent };

/** The page in parts, in order (a long session's page is larger than one string can be). */
export async function viewPageParts(source: PageSource): Promise<{ parts: Iterable<string>; contentSecurityPolicy: string }> {
  const script = await pageScript();
  const csp = contentSecurityPolicy(script, PAGE_STYLE, source.live);
  // What the builder keeps beside the document (the meter's settings) stays on the server.
  const { content: _content, meterSettings: _settings, ...viewDocument } = source as PageSource & { meterSettings?: unknown };
  const head = `<!doctype html>
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
<script type="application/json" id="shadowlog-data">${scriptSafeJson(pageDocumentOf(viewDocument))}</script>
`;
  const content = source.content;
  const calls = content === undefined ? [] : await callBlocks(source.session.calls);
  function* parts(): Generator<string> {
    yield head;
    // The first block of calls and of events stand before the script as plain JSON, read at once:
    // the first call's panel is drawn as the script runs, before the browser has read the rest.
    if (content !== undefined) {
      if (calls[0] !== undefined) yield contentBlock('calls', 0, calls[0]);
      if (content.eventBlocks[0] !== undefined) yield contentBlock('events', 0, content.eventBlocks[0]);
    }
    yield `<script>${script}</script>\n`;
    if (content !== undefined) {
      // Then the calls' details, the events, and the search text last, read as the page needs them.
      for (const [index, block] of calls.entries()) if (index > 0) yield contentBlock('calls', index, block);
      for (const [index, block] of content.eventBlocks.entries()) if (index > 0) yield contentBlock('events', index, block);
      for (const [index, block] of content.searchBlocks.entries()) yield contentBlock('search', index, block);
    }
    yield '</body>\n</html>\n';
  }
  return { parts: parts(), contentSecurityPolicy: csp };
}

function contentBlock(kind: 'events' | 'search' | 'calls', index: number, block: Uint8Array): string {
  const id = blockElementId(kind, index);
  if (index === 0 && kind !== 'search')
    return `<script type="application/json" id="${id}">${scriptSafeJson(JSON.parse(inflateRawSync(block).toString('utf8')))}</script>\n`;
  return `<script type="application/octet-stream" id="${id}">${Buffer.from(block).toString('base64')}</script>\n`;
}

/** The page as one string (a served page, or a written one of a session that fits in one). */
export async function renderViewPage(source: PageSource): Promise<ViewPage> {
  const { parts, contentSecurityPolicy: csp } = await viewPageParts(source);
  return { html: [...parts].join(''), contentSecurityPolicy: csp };
}
