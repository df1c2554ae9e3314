/// <reference lib="dom" />
// Where the page's content comes from, a block at a time: a written page's own blocks (deflated
// JSON as base64 in non-executable elements after the script, inflated with the browser's
// DecompressionStream when first needed; a block the browser has not read yet is waited for),
// or a served page's server (/api/events, /api/calls by range, /api/search). The record search
// of a written page runs here, over the text `shadowlog search` reads in each event (written
// beside each block), with `search`'s own match.

import { normalizeSearchText, plainTextMatcher } from '../../store/search/search-match.js';
import type { CallView } from '../view-data.js';
import { blockElementId, CALL_BLOCK, EVENT_BLOCK } from './page-blocks.js';
import type { ClientEvent } from './text.js';

export interface SearchResult {
  /** The seqs up to the one asked for whose text matches, ascending. */
  readonly seqs: readonly number[];
  /** More matches exist than the search could list (a served page's store search stops at 10,000). */
  readonly truncated: boolean;
}

export interface DataSource {
  /** Events block `block` (seqs block × EVENT_BLOCK on), `count` of them. */
  eventBlock(block: number, count: number): Promise<ClientEvent[]>;
  /** Calls' details block `block`, `count` of them. */
  callBlock(block: number, count: number): Promise<CallView[]>;
  /** The events up to `upToSeq` whose text `shadowlog search` finds `text` in. */
  search(text: string, upToSeq: number, eventCount: number): Promise<SearchResult>;
}

/** Is there anything to find in `text` (search refuses a text of spaces alone)? */
export function isSearchText(text: string): boolean {
  return normalizeSearchText(text).trim() !== '';
}

/**
 * The element of a block, once the browser has read that far into the file: an element is whole
 * once something follows it (or the document is read to its end).
 */
async function blockElement(id: string): Promise<HTMLElement> {
  const whole = () => {
    const element = document.getElementById(id);
    return element !== null && (element.nextSibling !== null || document.readyState !== 'loading') ? element : null;
  };
  let element = whole();
  if (element === null && document.readyState === 'loading') {
    await new Promise<void>((done) => {
      const observer = new MutationObserver(() => {
        if (whole() === null) return;
        observer.disconnect();
        done();
      });
      observer.observe(document.body, { childList: true });
      document.addEventListener(
        'DOMContentLoaded',
        () => {
          observer.disconnect();
          done();
        },
        { once: true },
      );
    });
    element = document.getElementById(id);
  }
  if (element === null) throw new Error(`the page's block ${id} is missing: the file is cut short`);
  return element;
}

/** A block's JSON: read at once when it is plain (the first blocks), else inflated. */
async function inflatedJson(id: string): Promise<unknown> {
  const element = await blockElement(id);
  if (element.getAttribute('type') === 'application/json') return JSON.parse(element.textContent ?? 'null');
  const base64 = element.textContent ?? '';
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let at = 0; at < binary.length; at++) bytes[at] = binary.charCodeAt(at);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return JSON.parse(await new Response(stream).text());
}

function checkedArray<T>(value: unknown, count: number, what: string): T[] {
  if (!Array.isArray(value) || value.length !== count) throw new Error(`${what} does not hold the ${count} entries it should`);
  return value as T[];
}

/** A written page's blocks. */
export function fileSource(): DataSource {
  const found = new Map<string, { through: number; seqs: number[] }>();
  return {
    async eventBlock(block, count) {
      return checkedArray<ClientEvent>(await inflatedJson(blockElementId('events', block)), count, `events block ${block}`);
    },
    async callBlock(block, count) {
      return checkedArray<CallView>(await inflatedJson(blockElementId('calls', block)), count, `calls block ${block}`);
    },
    async search(text, upToSeq, eventCount) {
      // Matches are kept per text, the blocks read so far: a later call that reaches further reads only the rest.
      const match = plainTextMatcher(text);
      const known = found.get(text) ?? { through: 0, seqs: [] };
      const lastBlock = Math.floor(Math.min(upToSeq, eventCount - 1) / EVENT_BLOCK);
      for (let block = known.through; block <= lastBlock; block++) {
        const count = Math.min(EVENT_BLOCK, eventCount - block * EVENT_BLOCK);
        const texts = checkedArray<string>(await inflatedJson(blockElementId('search', block)), count, `search block ${block}`);
        texts.forEach((candidate, at) => {
          if (match(candidate) !== undefined) known.seqs.push(block * EVENT_BLOCK + at);
        });
        known.through = block + 1;
      }
      found.set(text, known);
      return { seqs: known.seqs.filter((seq) => seq <= upToSeq), truncated: false };
    },
  };
}

async function fetchJson(path: string): Promise<unknown> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  const body: unknown = await response.json();
  if (!response.ok) {
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    throw new Error(`${String(error?.code ?? response.status)}: ${String(error?.message ?? 'the server refused')}`);
  }
  return body;
}

/** A served page's server, by range. */
export function serverSource(): DataSource {
  return {
    async eventBlock(block, count) {
      const from = block * EVENT_BLOCK;
      return checkedArray<ClientEvent>(await fetchJson(`api/events?from=${from}&to=${from + count}`), count, `events block ${block}`);
    },
    async callBlock(block, count) {
      const from = block * CALL_BLOCK;
      return checkedArray<CallView>(await fetchJson(`api/calls?from=${from}&to=${from + count}`), count, `calls block ${block}`);
    },
    async search(text, upToSeq) {
      const result = (await fetchJson(`api/search?text=${encodeURIComponent(text)}&to=${upToSeq}`)) as SearchResult;
      return { seqs: Array.isArray(result.seqs) ? result.seqs : [], truncated: result.truncated === true };
    },
  };
}
