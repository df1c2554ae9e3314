// Benchmark: what the recording proxy adds to a call. The same client (node:http with a
// keep-alive agent, as the SDKs use) calls a fake upstream on loopback directly, then through
// the proxy recording into a SQLite file: the added latency per non-streamed call (p50, p99),
// the time to the first streamed byte as a ratio of direct, and calls per second with 1 and 16
// concurrent clients. Each client runs one conversation that grows a turn per call (its history
// sent again each time), so the proxy matches, extends and records a session per client.

import { Agent, request } from 'node:http';
import { startProxy } from '../src/proxy/index.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { type FakeProviderServer, type FakeResponse, startFakeProviderServer } from '../test/support/fake-provider-server.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  formatMs,
  formatRatio,
  perSecond,
} from './support.js';

const TURNS_PER_CONVERSATION = 20;

interface Call {
  /** ms from the request's start to the response's first body byte, and to its end. */
  readonly firstByteMs: number;
  readonly totalMs: number;
}

function answer(stream: boolean, index: number): FakeResponse {
  if (!stream) {
    return {
      type: 'json',
      body: {
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o',
        choices: [{ index: 0, message: { role: 'assistant', content: `answer ${index}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      },
    };
  }
  const chunk = (delta: object, finish: string | null) =>
    JSON.stringify({
      id: `c${index}`,
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-4o',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  // A model that takes a moment between tokens: the first byte is what a streaming user waits for.
  return {
    type: 'sse',
    payloads: [chunk({ role: 'assistant', content: 'ans' }, null), chunk({ content: `wer ${index}` }, null), chunk({}, 'stop')],
    delayMs: 2,
    chunkSizes: [64],
  };
}

function call(agent: Agent, base: string, body: string): Promise<Call & { text: string }> {
  return new Promise((resolve, reject) => {
    const start = clock();
    let firstByteMs = Number.NaN;
    const parts: Buffer[] = [];
    const outgoing = request(`${base}/v1/chat/completions`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer sk-bench' },
    });
    outgoing.on('response', (response) => {
      response.on('data', (part: Buffer) => {
        if (parts.length === 0) firstByteMs = elapsedMs(start);
        parts.push(part);
      });
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`HTTP ${response.statusCode}: ${Buffer.concat(parts).toString('utf8')}`));
        else resolve({ firstByteMs, totalMs: elapsedMs(start), text: Buffer.concat(parts).toString('utf8') });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** `clients` conversations at once, `calls` calls in all; returns each call's times and the wall time. */
async function run(upstream: FakeProviderServer, base: string, options: { clients: number; calls: number; stream: boolean; tag: string }) {
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients });
  for (let index = 0; index < options.calls; index++) upstream.enqueue(answer(options.stream, index));
  const calls: Call[] = [];
  let next = 0;
  const start = clock();
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      let history: object[] = [];
      let conversation = 0;
      while (next < options.calls) {
        next++;
        if (history.length >= TURNS_PER_CONVERSATION * 2) {
          history = [];
          conversation++;
        }
        history.push({
          role: 'user',
          content: `${options.tag} client ${client} conversation ${conversation} turn ${history.length / 2 + 1}`,
        });
        const body = JSON.stringify({
          model: 'gpt-4o',
          messages: [{ role: 'system', content: 'You are benchmarked.' }, ...history],
          stream: options.stream,
        });
        const result = await call(agent, base, body);
        calls.push(result);
        const content = options.stream
          ? streamedText(result.text)
          : (JSON.parse(result.text) as { choices: [{ message: { content: string } }] }).choices[0].message.content;
        history.push({ role: 'assistant', content });
      }
    }),
  );
  const wallMs = elapsedMs(start);
  agent.destroy();
  return { calls, wallMs };
}

function streamedText(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => (JSON.parse(line.slice(6)) as { choices: [{ delta: { content?: string } }] }).choices[0].delta.content ?? '')
    .join('');
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

export const benchmark: Benchmark = {
  name: 'proxy',
  description: 'the recording proxy against direct calls to a fake upstream on loopback: added latency, first streamed byte, calls/s',
  async run(context: BenchContext): Promise<BenchReport> {
    const calls = context.quick ? 200 : 2000;
    const streamCalls = context.quick ? 60 : 400;
    const directory = createTempDirectory('proxy');
    const upstream = await startFakeProviderServer();
    const store = await openSqliteStore(`${directory.path}/log.db`);
    const proxy = await startProxy({ store, upstreams: { openai: upstream.baseUrl }, port: 0 });
    // The same proxy recording into memory: what the proxy itself costs, apart from durable writes.
    const memoryStore = new MemoryLogStore();
    const memoryProxy = await startProxy({ store: memoryStore, upstreams: { openai: upstream.baseUrl }, port: 0 });
    try {
      const measure = async (stream: boolean, clients: number, count: number) => {
        // Direct and proxied alternate in halves, so that drift on a shared machine falls on both.
        const direct: Call[] = [];
        const proxied: Call[] = [];
        const inMemory: Call[] = [];
        let directMs = 0;
        let proxiedMs = 0;
        let memoryMs = 0;
        for (const half of [0, 1]) {
          context.progress(`${stream ? 'streamed' : 'JSON'} calls, ${clients} client${clients === 1 ? '' : 's'}, half ${half + 1} of 2`);
          const a = await run(upstream, upstream.baseUrl, { clients, calls: count / 2, stream, tag: `direct ${half}` });
          const b = await run(upstream, proxy.url, { clients, calls: count / 2, stream, tag: `proxied ${half}` });
          await proxy.settled();
          const c = await run(upstream, memoryProxy.url, { clients, calls: count / 2, stream, tag: `memory ${half}` });
          await memoryProxy.settled();
          direct.push(...a.calls);
          proxied.push(...b.calls);
          inMemory.push(...c.calls);
          directMs += a.wallMs;
          proxiedMs += b.wallMs;
          memoryMs += c.wallMs;
        }
        return {
          direct,
          proxied,
          inMemory,
          directRate: perSecond(direct.length, directMs),
          proxiedRate: perSecond(proxied.length, proxiedMs),
          memoryRate: perSecond(inMemory.length, memoryMs),
        };
      };
      // A warm-up of both paths (JIT, connections, the SQLite file), not counted.
      await run(upstream, upstream.baseUrl, { clients: 4, calls: 40, stream: false, tag: 'warm direct' });
      await run(upstream, proxy.url, { clients: 4, calls: 40, stream: false, tag: 'warm proxied' });
      await run(upstream, memoryProxy.url, { clients: 4, calls: 40, stream: false, tag: 'warm memory' });
      await proxy.settled();
      const one = await measure(false, 1, calls);
      const sixteen = await measure(false, 16, calls);
      const streamed = await measure(true, 1, streamCalls);
      const total = (list: readonly Call[]) => list.map((entry) => entry.totalMs);
      const first = (list: readonly Call[]) => list.map((entry) => entry.firstByteMs);
      const at = (share: number, pick: (list: readonly Call[]) => number[], of: typeof one) => ({
        direct: percentile(pick(of.direct), share),
        proxied: percentile(pick(of.proxied), share),
        memory: percentile(pick(of.inMemory), share),
      });
      const p50 = at(0.5, total, one);
      const p99 = at(0.99, total, one);
      const firstByte = at(0.5, first, streamed);
      const firstByte99 = at(0.99, first, streamed);
      const row = (label: string, figures: { direct: number; proxied: number; memory: number }, added: boolean) => [
        label,
        formatMs(figures.direct),
        formatMs(figures.proxied),
        ...(added ? [formatMs(figures.proxied - figures.direct)] : []),
        formatRatio(figures.proxied / figures.direct),
        formatMs(figures.memory),
        ...(added ? [formatMs(figures.memory - figures.direct)] : []),
        formatRatio(figures.memory / figures.direct),
      ];
      const rates = (label: string, of: typeof one) => [
        label,
        of.directRate.toFixed(0),
        of.proxiedRate.toFixed(0),
        formatRatio(of.proxiedRate / of.directRate),
        of.memoryRate.toFixed(0),
        formatRatio(of.memoryRate / of.directRate),
      ];
      const stats = proxy.stats;
      return {
        tables: [
          {
            title: `Latency of one JSON call, 1 client (${one.direct.length} calls each way)`,
            columns: ['percentile', 'direct', 'proxy→SQLite', 'added', 'ratio', 'proxy→memory', 'added', 'ratio'],
            rows: [row('p50', p50, true), row('p99', p99, true)],
          },
          {
            title: `Time to the first streamed byte, 1 client (${streamed.direct.length} streamed calls each way)`,
            columns: ['percentile', 'direct', 'proxy→SQLite', 'ratio', 'proxy→memory', 'ratio'],
            rows: [row('p50', firstByte, false), row('p99', firstByte99, false)],
          },
          {
            title: 'JSON calls per second',
            columns: ['clients', 'direct', 'proxy→SQLite', 'ratio', 'proxy→memory', 'ratio'],
            rows: [rates('1', one), rates('16', sixteen)],
          },
        ],
        notes: [
          "the client, the proxy and the fake upstream share one Node process, so the proxy's CPU (forwarding, reading each answer, writing SQLite) competes with the client and upstream as it would on a busy machine",
          `each client's conversation grows to ${TURNS_PER_CONVERSATION} turns and starts again, so the proxy matches, extends and writes ${proxy.sessionIds().length} sessions; every call it forwarded was written (${stats.recorded} recorded, ${stats.recordErrors} errors, queue peak ${stats.queuePeak})`,
          'direct and proxied runs alternate in halves; streamed answers carry 3 events 2 ms apart',
          "proxy→SQLite records into a SQLite file (WAL, synchronous FULL: each append waits for its fsync, on the proxy's thread); proxy→memory is the same proxy recording into the in-memory store, which isolates what forwarding and matching cost from what durable writes cost on this disk",
        ],
        figures: {
          calls,
          streamCalls,
          latencyP50Ms: p50,
          latencyP99Ms: p99,
          addedP50Ms: p50.proxied - p50.direct,
          addedP99Ms: p99.proxied - p99.direct,
          firstByteP50Ms: firstByte,
          firstByteRatio: firstByte.proxied / firstByte.direct,
          firstByteRatioMemory: firstByte.memory / firstByte.direct,
          callsPerSecond: {
            oneClient: { direct: one.directRate, proxied: one.proxiedRate, memory: one.memoryRate },
            sixteenClients: { direct: sixteen.directRate, proxied: sixteen.proxiedRate, memory: sixteen.memoryRate },
          },
          recorded: stats.recorded,
          recordErrors: stats.recordErrors,
        },
      };
    } finally {
      await proxy.close();
      await memoryProxy.close();
      await upstream.close();
      await store.close();
      directory.cleanup();
    }
  },
};
