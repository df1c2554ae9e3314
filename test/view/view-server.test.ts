// The served page, over real HTTP on loopback: drawn before its checks (every call pending, the
// chain not checked), then its follow stream brings every call's check and the structure of the
// events the page does not hold; its data answered by range, a bad range refused with 400 and a
// typed error; requests addressed to another host are refused.

import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogStore } from '../../src/store/log-store.js';
import { searchStore } from '../../src/store/search/scan-search.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { decodeCallRow } from '../../src/view/client/page-blocks.js';
import { type CallView, type PageDelta, type PageDocument, startViewServer, type ViewServer } from '../../src/view/index.js';
import { writeDemoSession } from './view-sessions.js';

let store: LogStore;
let server: ViewServer;
let cleanup: () => void;
beforeAll(async () => {
  const demo = await writeDemoSession('demo-served');
  cleanup = () => demo.workspace.cleanup();
  store = await openSqliteStore(demo.storePath);
  server = await startViewServer({
    store,
    sessionId: 'demo-served',
    resolveRenderer: rendererFor,
    registry: createCliRegistry(),
    pollMs: 20,
  });
});
afterAll(async () => {
  await server.close();
  await store.close();
  cleanup();
});

function fetchText(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    }).on('error', reject);
  });
}

/** The first `delta` message of the follow stream from `from`. */
function firstDelta(url: string): Promise<{ id: string; delta: PageDelta }> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        const message = buffer.split('\n\n').find((part) => part.includes('event: delta'));
        if (message === undefined) return;
        const id = /^id: (.*)$/m.exec(message)?.[1] as string;
        const data = /^data: (.*)$/m.exec(message)?.[1] as string;
        request.destroy();
        resolve({ id, delta: JSON.parse(data) as PageDelta });
      });
    });
    request.on('error', (error) => {
      if (!request.destroyed) reject(error);
    });
  });
}

describe('the served page', () => {
  it('is drawn before its checks, and its follow stream brings them', async () => {
    const page = await fetchText(server.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const block = /<script type="application\/json" id="shadowlog-data">([\s\S]*?)<\/script>/.exec(page.body)?.[1] as string;
    const viewDocument = JSON.parse(block) as PageDocument;
    expect(viewDocument.live).toBe(true);
    expect(viewDocument.session.chain.checked).toBe(false);
    expect(viewDocument.session.calls.map((row) => decodeCallRow(row).status)).toEqual(Array(20).fill('pending'));
    // A served page holds no content: its lists fetch it by range.
    expect(page.body).not.toContain('application/octet-stream');
    const held = viewDocument.session.toSeq;
    const { id, delta } = await firstDelta(`${server.url}events?from=${held}`);
    expect(id).toBe(String(held));
    expect(delta.fromSeq).toBe(held);
    expect(delta.structure.types).toEqual([]);
    expect(delta.chain).toEqual({ checked: true, intact: true, firstBrokenSeq: null });
    expect(delta.calls.map((row) => decodeCallRow(row).status)).toEqual(Array(20).fill('verified'));
    expect(delta.compactions.map((compaction) => compaction.outcome)).toEqual(['compacted', 'compacted']);
  });

  it('sends the structure of the events a page does not hold, from where it stands', async () => {
    const { delta } = await firstDelta(`${server.url}events?from=40`);
    expect(delta.fromSeq).toBe(40);
    expect(delta.toSeq).toBe(93);
    expect(delta.structure.types).toHaveLength(53);
  });

  it('answers the events, the calls and the record search by range, the calls as the stream checked them', async () => {
    const events = JSON.parse((await fetchText(`${server.url}api/events?from=5&to=8`)).body) as Array<{ seq: number; hash?: string }>;
    expect(events.map((event) => event.seq)).toEqual([5, 6, 7]);
    expect(events[0]?.hash).toBeUndefined();
    const calls = JSON.parse((await fetchText(`${server.url}api/calls?from=0&to=20`)).body) as CallView[];
    expect(calls).toHaveLength(20);
    expect('surfaceSeqs' in (calls[0]?.surface ?? {})).toBe(true);
    expect(calls.every((call) => call.check.status === 'verified')).toBe(true);
    const search = JSON.parse((await fetchText(`${server.url}api/search?text=overview&to=92`)).body) as {
      seqs: number[];
      truncated: boolean;
    };
    const hits = await searchStore(store, { text: 'overview', sessionId: 'demo-served', limit: 10_000 });
    expect(search.seqs).toEqual([...new Set(hits.hits.map((hit) => hit.seq))].sort((a, b) => a - b));
    expect(search.seqs.length).toBeGreaterThan(0);
  });

  it('refuses a bad range or parameter with 400 and a typed error, never a stack', async () => {
    const bad = [
      ['api/events?from=5&to=5', 'INVALID_RANGE'],
      ['api/events?from=0&to=94', 'INVALID_RANGE'],
      ['api/events?from=-1&to=3', 'INVALID_RANGE'],
      ['api/events?from=0x1&to=3', 'INVALID_RANGE'],
      ['api/events?from=0&to=1e3', 'INVALID_RANGE'],
      ['api/events?from=1', 'INVALID_RANGE'],
      ['api/events?from=0&to=3&from=1', 'INVALID_REQUEST'],
      ['api/events?from=0&to=3&session=other', 'INVALID_REQUEST'],
      ['api/calls?from=0&to=21', 'INVALID_RANGE'],
      ['api/calls?from=99999999999999999999&to=3', 'INVALID_RANGE'],
      ['api/search?text=%20%20&to=5', 'INVALID_SEARCH'],
      ['api/search?text=x&to=NaN', 'INVALID_RANGE'],
      ['events?from=x', 'INVALID_RANGE'],
    ] as const;
    for (const [path, code] of bad) {
      const answer = await fetchText(`${server.url}${path}`);
      expect(answer.status, path).toBe(400);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
      expect(body.error.code, path).toBe(code);
      expect(body.error.message).not.toMatch(/\n\s+at /);
    }
    expect((await fetchText(`${server.url}api/nothing`)).status).toBe(404);
    expect((await fetchText(`${server.url}..%2f..%2fetc%2fpasswd`)).status).toBe(404);
  });
});
