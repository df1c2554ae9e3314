// What goes wrong on the wire, for both adapters: a truncated stream, a stall (idle
// timeout), a stream that never ends (total timeout), the caller's abort, and no server.

import { createServer, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { Timeouts } from '../../src/providers/http.js';
import type { LanguageModel, ModelRequest } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { type FakeProviderServer, readFixtureChunks, startFakeProviderServer } from '../support/fake-provider-server.js';

let server: FakeProviderServer;
beforeEach(async () => {
  server = await startFakeProviderServer();
});
afterEach(async () => {
  await server.close();
});

const ADAPTERS = {
  openai: {
    create: (timeouts: Partial<Timeouts> = {}, baseUrl = server.baseUrl) =>
      createOpenAIChatModel({ model: 'gpt-4o', apiKey: 'sk-test', baseUrl: `${baseUrl}/v1`, env: {}, timeouts }),
    stream: () => readFixtureChunks('openai-text').slice(0, 40),
    whole: () => readFixtureChunks('openai-text'),
  },
  anthropic: {
    create: (timeouts: Partial<Timeouts> = {}, baseUrl = server.baseUrl) =>
      createAnthropicMessagesModel({ model: 'claude-sonnet-4-5', apiKey: 'sk-ant-test', baseUrl, env: {}, timeouts }),
    stream: () => readFixtureChunks('anthropic-text').slice(0, 6),
    whole: () => readFixtureChunks('anthropic-text'),
  },
};

const request = (stream: boolean): ModelRequest => ({
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
  params: { tools: [], stream },
});

async function failure(model: LanguageModel, stream: boolean, signal?: AbortSignal): Promise<ProviderError> {
  const error = await model.send(model.render(request(stream)), signal === undefined ? {} : { signal }).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

for (const [name, adapter] of Object.entries(ADAPTERS)) {
  describe(`${name} on a failing wire`, () => {
    it('reports a stream cut mid-event as a network failure', async () => {
      server.enqueue({ type: 'sse', payloads: adapter.stream(), end: 'destroy', cutAfterBytes: 1_500, chunkSizes: [200], delayMs: 1 });
      const error = await failure(adapter.create(), true);
      expect(error).toMatchObject({ kind: 'network', retryable: true });
      expect(error.message).toMatch(/closed before the response was complete \(.+\); retry$/);
    });

    it('fails a stream that stalls with the idle timeout, quickly', async () => {
      server.enqueue({ type: 'sse', payloads: adapter.stream(), end: 'stall' });
      const started = Date.now();
      const error = await failure(adapter.create({ idleMs: 200 }), true);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(error).toMatchObject({ kind: 'timeout', retryable: true });
      expect(error.message).toMatch(/sent nothing for 200 ms \(timeouts\.idleMs\): the response stalled; retry$/);
    });

    it('fails a response that sends headers and nothing else with the idle timeout', async () => {
      server.enqueue({ type: 'stall' });
      const error = await failure(adapter.create({ idleMs: 200 }), false);
      expect(error).toMatchObject({ kind: 'timeout' });
    });

    it('fails a stream that sends nothing but keep-alive comments with the idle timeout', async () => {
      server.enqueue({ type: 'stall', heartbeatMs: 20 });
      const started = Date.now();
      const error = await failure(adapter.create({ idleMs: 300 }), true);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(error).toMatchObject({ kind: 'timeout' });
      expect(error.message).toMatch(/sent nothing for 300 ms \(timeouts\.idleMs\)/);
    });

    it('lets a stream that keeps coming run past the total timeout, which stops counting at the headers', async () => {
      // Ten pieces 60 ms apart: each within the idle timeout, the whole answer past totalMs.
      const payloads = adapter.whole();
      const bytes = Buffer.byteLength(payloads.map((payload) => `data: ${payload}\n\n`).join(''));
      server.enqueue({ type: 'sse', payloads, chunkSizes: [Math.ceil(bytes / 10)], delayMs: 60 });
      const model = adapter.create({ totalMs: 150, idleMs: 5_000 });
      const started = Date.now();
      const result = await model.send(model.render(request(true)));
      expect(Date.now() - started).toBeGreaterThan(150);
      expect(result.finishReason).toBe('stop');
    });

    it('fails a server that sends no headers within the total timeout', async () => {
      // Accepts connections and never answers.
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const address = silent.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      try {
        const error = await failure(adapter.create({ totalMs: 200, idleMs: 5_000 }, `http://127.0.0.1:${port}`), true);
        expect(error).toMatchObject({ kind: 'timeout', retryable: true });
        expect(error.message).toMatch(/did not answer within 200 ms \(timeouts\.totalMs: no response headers\)/);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }
    });

    it("stops at the caller's abort, mid-stream", async () => {
      server.enqueue({ type: 'sse', payloads: adapter.stream(), end: 'stall' });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const error = await failure(adapter.create(), true, controller.signal);
      expect(error).toMatchObject({ kind: 'aborted', retryable: false });
      expect(error.message).toMatch(/was aborted by the caller$/);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const error = await failure(adapter.create(), false, AbortSignal.abort());
      expect(error.kind).toBe('aborted');
      expect(server.requests).toEqual([]);
    });

    it('reports a server that is not there as a network failure naming the URL', async () => {
      const port = await closedPort();
      const error = await failure(adapter.create({}, `http://127.0.0.1:${port}`), false);
      expect(error).toMatchObject({ kind: 'network', retryable: true });
      expect(error.message).toMatch(
        new RegExp(`^could not reach http://127\\.0\\.0\\.1:${port}/.+ECONNREFUSED.+check the base URL and that the server is running$`),
      );
    });
  });
}

/** A port that was just free: listening on it and closing leaves nothing there. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}
