// Faults between the client and the upstream: the upstream down, silent before its headers or
// in the middle of a stream, a stream cut short, an HTTP error; a body that is not JSON, one too
// large to parse, bytes that are not UTF-8; a slow store. The client gets what the upstream sent
// or an error in its API's own shape; the log records the request and the failure; nothing is
// dropped.

import { createServer, type Server, type Socket } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent, LogStore } from '../../src/index.js';
import { dataOf } from '../../src/log/event-data.js';
import { verifyLog } from '../../src/log/verify.js';
import { startProxy } from '../../src/proxy/index.js';
import { replay } from '../../src/spine/replay.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { rawPost, type ScriptedUpstream, startScriptedUpstream } from './hostile-peers.js';
import { answerJson } from './proxy-answers.js';
import { type ProxyHarness, sha256, startProxyHarness } from './proxy-harness.js';

let harness: ProxyHarness | undefined;
let scripted: ScriptedUpstream | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await harness?.close();
  await scripted?.close();
  harness = undefined;
  scripted = undefined;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A TCP server on loopback that accepts connections and never answers. */
async function silentServer(): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<string> {
  const url = await silentServer();
  const server = servers.pop() as Server;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

function recorded(events: readonly LogEvent[], type: string) {
  return events.filter((event) => event.type === type).map((event) => event.data as Record<string, unknown>);
}

describe('proxy faults', () => {
  it('an upstream that is down: the SDK gets an error in the API’s shape, and the log has the request and the failure', async () => {
    const down = await closedPort();
    harness = await startProxyHarness({ upstreams: { openai: down, anthropic: down } });
    const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const error = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/could not be reached: connect ECONNREFUSED/);
    const events = await harness.events('proxied-1');
    expect(recorded(events, 'model/request')).toHaveLength(1);
    expect(recorded(events, 'model/error')).toMatchObject([{ code: 'PROXY_UPSTREAM_UNREACHABLE', retryable: true, turn: 1, step: 1 }]);
    expect(describeUser(events)).toEqual(['hi']);
  });

  it('an upstream silent before its headers: a timeout error in Anthropic’s shape', async () => {
    const silent = await silentServer();
    harness = await startProxyHarness({ upstreams: { anthropic: silent }, upstreamTimeoutMs: 200 });
    const anthropic = new Anthropic({ apiKey: 'sk-ant-x', baseURL: harness.proxy.url, maxRetries: 0 });
    const error = await anthropic.messages
      .create({ model: 'claude-opus-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(504);
    expect(JSON.stringify((error as InstanceType<typeof Anthropic.APIError>).error)).toContain('timeout_error');
    const events = await harness.events('proxied-1');
    expect(recorded(events, 'model/error')).toMatchObject([{ code: 'PROXY_UPSTREAM_TIMEOUT' }]);
  });

  it('a stream cut in the middle: the client gets the bytes the upstream sent, cut where they were cut; the log keeps them', async () => {
    harness = await startProxyHarness();
    const payloads = [
      '{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hello, wor"},"finish_reason":null}]}',
    ];
    harness.upstream.enqueue({ type: 'sse', payloads: [...payloads, ...payloads], end: 'destroy', cutAfterBytes: 200, chunkSizes: [50] });
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    expect(response.status).toBe(200);
    const received: Buffer[] = [];
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const ended = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'complete';
        received.push(Buffer.from(value));
      }
    })().catch(() => 'cut');
    expect(ended).toBe('cut');
    const sent = `data: ${payloads[0]}\n\ndata: ${payloads[0]}\n\n`.slice(0, 200);
    expect(Buffer.concat(received).toString('utf8')).toBe(sent);
    const events = await harness.events('proxied-1');
    expect(recorded(events, 'model/error')).toMatchObject([{ code: 'PROXY_STREAM_CUT', answer: { format: 'sse', text: sent } }]);
    expect(recorded(events, 'assistant/message')).toEqual([]);
  });

  it('an HTTP error from the upstream reaches the client unchanged and is classified in the log', async () => {
    harness = await startProxyHarness();
    const body = { error: { message: 'Rate limit reached for gpt-4o', type: 'requests', code: 'rate_limit_exceeded' } };
    harness.upstream.enqueue({ type: 'error', status: 429, body, headers: { 'retry-after': '7' } });
    const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.text()).toBe(JSON.stringify(body));
    const events = await harness.events('proxied-1');
    expect(recorded(events, 'model/error')).toMatchObject([
      { code: 'PROVIDER_RATE_LIMIT', status: 429, retryable: true, answer: { format: 'json', text: JSON.stringify(body) } },
    ]);
  });

  it('bodies it cannot read are forwarded as they are and recorded as unparsed, bytes and digest', async () => {
    harness = await startProxyHarness({ maxParseBytes: 4096 });
    const bodies = [
      Buffer.from('{"model": "gpt-4o", "messages": [', 'utf8'),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
      Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }), 'utf8'),
    ];
    for (const body of bodies) {
      const response = await fetch(`${harness.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x', 'x-shadowlog-session': 'unreadable' },
        body,
      });
      // The fake upstream answers each as the API would: the first two are refused, the third has no answer queued.
      expect([400, 500]).toContain(response.status);
      await response.arrayBuffer();
    }
    expect(harness.upstream.requests.map((request) => Buffer.from(request.body, 'utf8').length)).toHaveLength(3);
    const events = await harness.events('unreadable');
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => (call as unknown as { proxy: { unparsed: string } }).proxy.unparsed)).toEqual([
      expect.stringContaining('the body is not JSON'),
      expect.stringContaining('the body is not JSON'),
      expect.stringContaining('more than the 4096 the proxy parses'),
    ]);
    expect(calls.map((call) => (call.provenance === 'proxied' ? call.requestBody.encoding : undefined))).toEqual([
      'utf-8',
      'base64',
      'utf-8',
    ]);
    for (const [index, call] of calls.entries()) {
      expect(call.requestDigest).toBe(sha256(bodies[index] as Buffer));
      const result = await replay(harness.store, 'unreadable', { turn: call.turn, step: call.step }, { resolveRenderer: rendererFor });
      expect(Buffer.from(result.wireBody ?? []).equals(bodies[index] as Buffer)).toBe(true);
    }
    expect((await verifyLog(harness.store.read('unreadable'))).ok).toBe(true);
  });

  it('a slow store holds new calls back once the queue is full, and drops none', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = (inner: LogStore): LogStore => {
      const wrapper = Object.create(inner) as LogStore;
      wrapper.append = async (sessionId, events, options) => {
        await gate;
        return inner.append(sessionId, events, options);
      };
      return wrapper;
    };
    harness = await startProxyHarness({ queueCapacity: 2, wrapStore: slow });
    harness.upstream.enqueue(...[1, 2, 3, 4, 5].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const asks = [1, 2, 3, 4, 5].map((index) =>
      openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `conversation ${index}` }] }),
    );
    const proxy = harness.proxy;
    await vi.waitFor(() => expect(proxy.stats.queueWaiting).toBe(3));
    // Two calls forwarded and answered; three wait for the store, and have not reached the upstream.
    expect(harness.upstream.requests).toHaveLength(2);
    release();
    const answers = await Promise.all(asks);
    expect(answers).toHaveLength(5);
    await proxy.settled();
    expect(proxy.stats).toMatchObject({ forwarded: 5, recorded: 5, queueWaits: 3, queuePeak: 2, recordErrors: 0 });
    expect(proxy.sessionIds()).toHaveLength(5);
    for (const id of proxy.sessionIds()) expect(recorded(await harness.events(id), 'assistant/message')).toHaveLength(1);
  });
});

/** The store, with append failing while `failing()` says so (an injected failure, as a full disk would give). */
function flakyStore(failing: (events: readonly LogEvent[]) => boolean): (inner: LogStore) => LogStore {
  return (inner) => {
    const wrapper = Object.create(inner) as LogStore;
    wrapper.append = async (sessionId, events, options) => {
      if (failing(events)) throw new Error('disk full (injected)');
      return inner.append(sessionId, events, options);
    };
    return wrapper;
  };
}

describe('store faults', () => {
  // ProxyStats.recorded counts calls written; recordErrors those that could not be: each call is one or the other.
  it('does not count a call whose write failed as recorded', async () => {
    let failing = false;
    harness = await startProxyHarness({ wrapStore: flakyStore(() => failing) });
    harness.upstream.enqueue(answerJson('openai', { text: 'ok' }, 1));
    const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    // The session exists first (its start written), then the store fails for the call's events.
    await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }, { headers: { 'x-shadowlog-session': 'flaky' } })
      .catch(() => undefined);
    await harness.proxy.settled();
    const before = { ...harness.proxy.stats };
    failing = true;
    harness.upstream.enqueue(answerJson('openai', { text: 'ok' }, 1));
    await openai.chat.completions.create(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'ok' },
          { role: 'user', content: 'again' },
        ],
      },
      { headers: { 'x-shadowlog-session': 'flaky' } },
    );
    await harness.proxy.settled();
    failing = false;
    const after = harness.proxy.stats;
    expect(after.recordErrors - before.recordErrors).toBe(1);
    expect(after.recorded - before.recorded, 'a call that could not be written is counted as recorded').toBe(0);
    expect(after.forwarded).toBe(after.recorded + after.recordErrors);
  });

  // A call whose request could not be written has no outcome written either (it cannot stand
  // without its request): it is one record error, and the calls after it are written as if it had
  // never been, their turns paired.
  it('keeps turn/start and turn/end paired after one failed write, and writes no outcome without its request', async () => {
    let failNext = 0;
    harness = await startProxyHarness({
      wrapStore: flakyStore((events) => {
        if (failNext > 0 && events.some((event) => event.type === 'model/request')) {
          failNext--;
          return true;
        }
        return false;
      }),
    });
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `a${index}` }, index)));
    const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: 'q1' }];
    for (const index of [1, 2, 3]) {
      if (index === 2) failNext = 1;
      await openai.chat.completions.create({ model: 'gpt-4o', messages }, { headers: { 'x-shadowlog-session': 'turns' } });
      await harness.proxy.settled();
      messages.push({ role: 'assistant', content: `a${index}` }, { role: 'user', content: `q${index + 1}` });
    }
    const events = await harness.events('turns');
    const started = events.filter((event) => event.type === 'turn/start').map((event) => (event.data as { turn: number }).turn);
    const ended = events.filter((event) => event.type === 'turn/end').map((event) => (event.data as { turn: number }).turn);
    // Every turn/end ends a turn that started; every turn that started before the last one ended.
    expect(
      ended.filter((turn) => !started.includes(turn)),
      `turn/start ${started} turn/end ${ended}`,
    ).toEqual([]);
    expect(
      started.slice(0, -1).filter((turn) => !ended.includes(turn)),
      `turn/start ${started} turn/end ${ended}`,
    ).toEqual([]);
    // Two calls written, each answer right after its request; the second call's answer is nowhere
    // (the third call's request brings back a2, as the client sent it, before its own model/request).
    const written = events.filter((event) => ['model/request', 'assistant/message'].includes(event.type));
    expect(written.map((event) => (event.type === 'model/request' ? 'request' : describeAnswer(event)))).toEqual([
      'request',
      'a1',
      'a2',
      'request',
      'a3',
    ]);
    expect(harness.proxy.stats).toMatchObject({ forwarded: 3, recorded: 2, recordErrors: 1 });
    expect((await verifyLog(harness.store.read('turns'))).ok).toBe(true);
  });
});

describe('back-pressure', () => {
  // docs/proxy.md: "calls of different sessions go on at once"; --queue bounds calls forwarded and
  // not yet written against a slow store. A call is written once its outcome arrives, after the
  // calls that ended before it: one long call of a session holds no other call's place.
  it("does not hold other sessions' calls behind one long call of a session", async () => {
    scripted = await startScriptedUpstream();
    let stream: import('node:net').Socket | undefined;
    scripted.enqueue({
      socket: (socket) => {
        stream = socket;
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      },
    });
    harness = await startProxyHarness({ upstreams: { openai: scripted.url, anthropic: scripted.url }, queueCapacity: 2 });
    const port = harness.proxy.port;
    const ask = (session: string, content: string, stream = false) =>
      rawPost(
        port,
        '/v1/chat/completions',
        { 'x-shadowlog-session': session },
        JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content }] }),
      );
    const long = ask('busy', 'a long generation', true);
    await vi.waitFor(() => expect(stream).toBeDefined());
    expect((await ask('busy', 'a short one')).status).toBe(200);
    const other = await Promise.race([
      ask('other', 'unrelated'),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3000)),
    ]);
    stream?.destroy();
    await long.catch(() => undefined);
    expect(other?.status, 'a call of another session waited for the long call of session busy').toBe(200);
    // The short call of busy was written while the long one went on; the long one after it, as a rewrite of it.
    await harness.proxy.settled();
    const events = await harness.events('busy');
    const asked = events
      .filter((event) => event.type === 'model/request')
      .map((event) => JSON.parse((event.data as { requestBody: { text: string } }).requestBody.text).messages[0].content);
    expect(asked).toEqual(['a short one', 'a long generation']);
    expect(recorded(events, 'model/error')).toMatchObject([{ code: 'PROXY_STREAM_CUT' }]);
    expect((await verifyLog(harness.store.read('busy'))).ok).toBe(true);
  });

  it('holds large uploads back, unread, once the bodies held would pass --max-held-bytes, and drops none', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = (inner: LogStore): LogStore => {
      const wrapper = Object.create(inner) as LogStore;
      wrapper.append = async (sessionId, events, options) => {
        if (events.some((event) => event.type === 'model/request')) await gate;
        return inner.append(sessionId, events, options);
      };
      return wrapper;
    };
    harness = await startProxyHarness({ maxRequestBytes: 4096, maxHeldBytes: 8192, wrapStore: slow });
    harness.upstream.enqueue(...[1, 2, 3].map((index) => answerJson('openai', { text: `answer ${index}` }, index)));
    const body = (index: number) =>
      JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: `${index} ${'x'.repeat(3000)}` }] });
    const asks = [1, 2, 3].map((index) =>
      fetch(`${harness?.proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(index),
      }),
    );
    const proxy = harness.proxy;
    await vi.waitFor(() => expect(proxy.stats.heldBytesWaits).toBe(1));
    // Two bodies held (answered, waiting for the store); the third is not read, nor forwarded.
    await vi.waitFor(() => expect(harness?.upstream.requests).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(harness.upstream.requests).toHaveLength(2);
    release();
    const answers = await Promise.all(asks);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    await proxy.settled();
    expect(proxy.stats).toMatchObject({ forwarded: 3, recorded: 3, recordErrors: 0, heldBytesWaits: 1 });
  });

  it('refuses a held-bytes bound smaller than the largest request it accepts', async () => {
    const store = new MemoryLogStore();
    await expect(
      startProxy({ store, upstreams: { openai: 'http://127.0.0.1:9' }, port: 0, maxRequestBytes: 4096, maxHeldBytes: 4095 }),
    ).rejects.toThrow(/maxHeldBytes: expected at least maxRequestBytes \(4096\)/);
  });
});

function describeAnswer(event: LogEvent): string {
  return (event.data as { content: Array<{ text: string }> }).content[0]?.text ?? '';
}

function describeUser(events: readonly LogEvent[]): string[] {
  return events
    .filter((event) => event.type === 'user/message')
    .map((event) => (event.data as { content: Array<{ text: string }> }).content[0]?.text ?? '');
}
