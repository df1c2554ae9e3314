// Stopping the proxy while calls are in flight (docs/proxy.md, "Stopping"): close() refuses what
// is not yet forwarded, lets the calls in flight go on for the grace period, then cuts them, each
// recorded as PROXY_INTERRUPTED with what arrived; a second close() cuts at once. And the command
// line, as a real process: Ctrl-C with a stream open stops after the grace period with a summary,
// and a second Ctrl-C cuts at once and still prints it.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { nodeScriptArgs } from '../support/node-script.js';
import { rawPost, type ScriptedUpstream, startScriptedUpstream } from './hostile-peers.js';
import { type ProxyHarness, startProxyHarness } from './proxy-harness.js';

const ENTRY = resolve(import.meta.dirname, '../support/cli-entry.ts');
const CHUNK = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content: 'Half an ans' }, finish_reason: null }] })}\n\n`;

let harness: ProxyHarness | undefined;
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await harness?.close();
  await upstream?.close();
  harness = undefined;
  upstream = undefined;
});

/** An upstream whose next answer is a stream that sends one chunk and then nothing, until `end` (if given) after that many ms. */
async function streamingUpstream(endAfterMs?: number): Promise<ScriptedUpstream> {
  const scripted = await startScriptedUpstream();
  scripted.enqueue({
    socket: (socket: Socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      socket.write(`${Buffer.byteLength(CHUNK).toString(16)}\r\n${CHUNK}\r\n`);
      if (endAfterMs !== undefined) {
        setTimeout(() => {
          const done = 'data: [DONE]\n\n';
          socket.end(`${Buffer.byteLength(done).toString(16)}\r\n${done}\r\n0\r\n\r\n`);
        }, endAfterMs);
      }
    },
  });
  return scripted;
}

/** Starts a streamed chat call; resolves once its first chunk arrived, with the rest of its reading. */
async function openStream(url: string, session: string): Promise<{ rest: Promise<string> }> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shadowlog-session': session },
    body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'tell me' }] }),
  });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  const rest = (async () => {
    for (;;) {
      const { done } = await reader.read();
      if (done) return 'complete';
    }
  })().catch(() => 'cut');
  return { rest };
}

function ofType(events: readonly LogEvent[], type: string): Array<Record<string, unknown>> {
  return events.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);
}

describe('stopping the proxy', () => {
  it('lets a stream go on for the grace period, then cuts it and records it as interrupted, with what arrived', async () => {
    upstream = await streamingUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url }, stopGraceMs: 300 });
    const { rest } = await openStream(harness.proxy.url, 'cut');
    const started = performance.now();
    await harness.proxy.close();
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(3000);
    expect(await rest).toBe('cut');
    const events = await harness.events('cut');
    expect(ofType(events, 'model/error')).toMatchObject([
      { code: 'PROXY_INTERRUPTED', status: 200, retryable: true, answer: { format: 'sse', text: CHUNK } },
    ]);
    expect(ofType(events, 'turn/end')).toMatchObject([{ turn: 1, reason: 'interrupted' }]);
    expect(harness.proxy.stats).toMatchObject({ forwarded: 1, recorded: 1, interrupted: 1, upstreamFailures: 0, recordErrors: 0 });
    expect((await verifyLog(harness.store.read('cut'))).ok).toBe(true);
  });

  it('writes a call that ends within the grace period as it ended', async () => {
    upstream = await streamingUpstream(200);
    harness = await startProxyHarness({ upstreams: { openai: upstream.url }, stopGraceMs: 5000 });
    const { rest } = await openStream(harness.proxy.url, 'ends');
    await harness.proxy.close();
    expect(await rest).toBe('complete');
    const events = await harness.events('ends');
    expect(ofType(events, 'assistant/message')).toHaveLength(1);
    expect(ofType(events, 'model/error')).toEqual([]);
    expect(harness.proxy.stats).toMatchObject({ recorded: 1, interrupted: 0 });
  });

  it('cuts at once when told to stop a second time', async () => {
    upstream = await streamingUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url }, stopGraceMs: 60_000 });
    await openStream(harness.proxy.url, 'twice');
    const closing = harness.proxy.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    const again = harness.proxy.close();
    await Promise.all([closing, again]);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(ofType(await harness.events('twice'), 'model/error')).toMatchObject([{ code: 'PROXY_INTERRUPTED' }]);
  });

  it('refuses what is not yet forwarded when it stops (503 PROXY_STOPPING), and forwards nothing more', async () => {
    upstream = await streamingUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url }, stopGraceMs: 200, queueCapacity: 1 });
    await openStream(harness.proxy.url, 'holder');
    const proxy = harness.proxy;
    // The queue's one place is the stream's: this call waits for it.
    const waiting = rawPost(
      proxy.port,
      '/v1/chat/completions',
      {},
      JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    );
    await vi.waitFor(() => expect(proxy.stats.queueWaiting).toBe(1));
    await proxy.close();
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(answer.body.toString('utf8')).toContain('PROXY_STOPPING');
    expect(upstream.requests).toHaveLength(1);
    expect(proxy.stats).toMatchObject({ forwarded: 1, recorded: 1, interrupted: 1, refused: 1 });
  });
});

describe('shadowlog proxy and Ctrl-C', () => {
  it('stops with a stream open: a second Ctrl-C cuts at once, the call is recorded and the summary says so', async () => {
    upstream = await streamingUpstream();
    const directory = mkdtempSync(join(tmpdir(), 'shadowlog-proxy-stop-'));
    const storePath = join(directory, 'log.db');
    try {
      const child = spawn(
        process.execPath,
        [
          ...nodeScriptArgs(ENTRY),
          '--store',
          `sqlite:${storePath}`,
          'proxy',
          '--port',
          '0',
          '--upstream-openai',
          upstream.url,
          '--stop-grace',
          '60000',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
        child.once('exit', (code, signal) => done({ code, signal })),
      );
      await vi.waitFor(() => expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/), { timeout: 15_000 });
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] as string;
      const { rest } = await openStream(url, 'ctrl-c');
      child.kill('SIGINT');
      // The grace period: the stream goes on, the process too.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(child.exitCode).toBeNull();
      const started = performance.now();
      child.kill('SIGINT');
      const end = await exited;
      expect(performance.now() - started).toBeLessThan(5000);
      expect(end, stderr).toEqual({ code: 0, signal: null });
      expect(await rest).toBe('cut');
      expect(stdout).toMatch(
        /stopped: 1 call forwarded and 1 recorded in 1 session \(ctrl-c\); 0 other requests passed through unrecorded; 1 call cut when the proxy stopped \(recorded as PROXY_INTERRUPTED\)\n$/,
      );
      expect(stderr).toBe(
        'shadowlog: stopping now: the calls in flight are cut and recorded as interrupted (Ctrl-C again ends the process unrecorded)\n',
      );
      const store = await openSqliteStore(storePath);
      try {
        const events: LogEvent[] = [];
        for await (const page of store.read('ctrl-c')) events.push(...page);
        expect(ofType(events, 'model/error')).toMatchObject([{ code: 'PROXY_INTERRUPTED', answer: { text: CHUNK } }]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 30_000);
});
