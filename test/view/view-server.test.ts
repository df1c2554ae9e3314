// The served page, over real HTTP on loopback: drawn before its checks (every call pending),
// then its follow stream's first message brings every call's check and the events the page
// does not hold; requests addressed to another host are refused.

import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { startViewServer, type ViewDelta, type ViewDocument, type ViewServer } from '../../src/view/index.js';
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
function firstDelta(url: string): Promise<{ id: string; delta: ViewDelta }> {
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
        resolve({ id, delta: JSON.parse(data) as ViewDelta });
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
    const viewDocument = JSON.parse(block) as ViewDocument;
    expect(viewDocument.live).toBe(true);
    expect(viewDocument.session.calls.map((call) => call.check.status)).toEqual(Array(20).fill('pending'));
    const held = viewDocument.session.events.length;
    const { id, delta } = await firstDelta(`${server.url}events?from=${held}`);
    expect(id).toBe(String(held));
    expect(delta.fromSeq).toBe(held);
    expect(delta.events).toEqual([]);
    expect(delta.calls.map((call) => call.check.status)).toEqual(Array(20).fill('verified'));
    expect(delta.compactions.map((compaction) => compaction.outcome)).toEqual(['compacted', 'compacted']);
  });

  it('sends the events a page does not hold, from where it stands', async () => {
    const { delta } = await firstDelta(`${server.url}events?from=40`);
    expect(delta.fromSeq).toBe(40);
    expect(delta.events[0]?.seq).toBe(40);
    expect(delta.events.at(-1)?.seq).toBe(92);
  });
});
