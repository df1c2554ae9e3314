// Findings of a review of the proxy's security fixes (issue 25 items 1, 3, 5, 9, 12): each test
// here fails on the reviewed code and states what the docs promise. They run on 127.0.0.1 only.

import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { redactedUrl } from '../../src/proxy/url-redaction.js';
import type { LogStore } from '../../src/store/log-store.js';
import { rawPost, type ScriptedUpstream, startScriptedUpstream } from '../proxy/hostile-peers.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { type ProxyHarness, startProxyHarness } from '../proxy/proxy-harness.js';

const CHAT = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

let harness: ProxyHarness | undefined;
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await harness?.close();
  await upstream?.close();
  harness = undefined;
  upstream = undefined;
});

describe('review findings', () => {
  // docs/proxy.md: "POST /v1/chat/completions ... recorded"; "Any other path ... is passed through
  // to the upstream unrecorded". The proxy classifies the raw target, but builds the upstream URL
  // with new URL(), which removes dot segments: these targets reach the upstream as
  // /v1/chat/completions, with the client's credentials, and nothing is recorded.
  it.each([
    '/./v1/chat/completions',
    '/v1/./chat/completions',
    '/v1/x/../chat/completions',
    '/v1/%2e/chat/completions',
    '/v1/chat/completions#x',
  ])('a model call to %s is not passed through unrecorded', async (target) => {
    upstream = await startScriptedUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url, anthropic: upstream.url } });
    const answer = await rawPost(harness.proxy.port, target, { authorization: 'Bearer sk-x' }, CHAT);
    const reached = upstream.requests.map((request) => request.path);
    await harness.proxy.settled();
    // Either refused (nothing forwarded), or forwarded and recorded: never a model call the log does not hold.
    if (reached.includes('/v1/chat/completions')) {
      expect(harness.proxy.stats.recorded, `${target} reached the upstream as /v1/chat/completions (HTTP ${answer.status})`).toBe(1);
    } else {
      expect(answer.status).toBeGreaterThanOrEqual(400);
    }
  });

  // docs/proxy.md: a target that "starts with //" is refused, since a URL reads it as another host.
  // A dot segment before it makes the URL the proxy sends start with // all the same.
  it('never sends the upstream a request target that starts with //', async () => {
    upstream = await startScriptedUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url, anthropic: upstream.url } });
    for (const target of ['/..//127.0.0.1:9/v1/models', '/.//127.0.0.1:9/v1/models', '/%2e//127.0.0.1:9/v1/models']) {
      await rawPost(harness.proxy.port, target, {}, CHAT);
    }
    expect(upstream.requests.map((request) => request.path).filter((path) => path.startsWith('//'))).toEqual([]);
  });

  // ProxyStats.recorded counts calls written; recordErrors those that could not be. A call whose
  // write failed is counted in both: ProxySession.finish resolves with the chain, whose failures
  // onError has already taken (proxy-session.ts enqueue), so proxy-server.ts counts it recorded.
  it('does not count a call whose write failed as recorded', async () => {
    let failing = false;
    const flaky = (inner: LogStore): LogStore => {
      const wrapper = Object.create(inner) as LogStore;
      wrapper.append = async (sessionId, events, options) => {
        if (failing) throw new Error('disk full (injected)');
        return inner.append(sessionId, events, options);
      };
      return wrapper;
    };
    harness = await startProxyHarness({ wrapStore: flaky });
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
  });

  // docs/proxy.md, Sessions: "When another writer owns the session ..., the call is still
  // forwarded, and recorded in a session of the proxy's own, ID.sibling-xxxxxx". When the other
  // writer has claimed a new id and not yet written its session/start (two proxies naming one new
  // session at once do this every time), ProxySession.start's job throws from acquireOwnership
  // outside its try, startFailure stays undefined, `started` returns a session without a log, and
  // every call of that id is forwarded unrecorded: "could not be started in the store (undefined)".
  it('records in a sibling a named new session that another writer has just claimed', async () => {
    harness = await startProxyHarness();
    harness.upstream.enqueue(answerJson('openai', { text: 'ok' }, 1), answerJson('openai', { text: 'ok' }, 2));
    const other = await harness.store.acquireOwnership('claimed');
    try {
      const openai = new OpenAI({ apiKey: 'sk-x', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
      for (const content of ['first', 'second']) {
        await openai.chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content }] },
          { headers: { 'x-shadowlog-session': 'claimed' } },
        );
      }
      await harness.proxy.settled();
    } finally {
      await other.release();
    }
    expect(harness.recordErrors.map((error) => (error as Error).message)).toEqual([]);
    expect(harness.proxy.sessionIds()).toEqual([expect.stringMatching(/^claimed\.sibling-[0-9a-f]{6}$/)]);
  });

  // docs/proxy.md: a password in an upstream URL "is never printed (the banner and every error show
  // alice:[redacted]@)". A password holding "/" (base64 has it) makes the URL unparseable, and the
  // INVALID_CONFIG line prints it whole.
  it('never prints the password of an upstream URL, whatever it holds', () => {
    for (const url of ['http://alice:Zm9v/YmFy+SECRET@127.0.0.1:1', 'http://alice:a/b/SECRET@127.0.0.1:1/gw']) {
      expect(redactedUrl(url)).not.toContain('SECRET');
    }
  });

  // docs/proxy.md: "calls of different sessions go on at once"; --queue bounds "calls forwarded and
  // not yet written" against a slow store. Since a call's request and outcome are written as one job
  // behind the calls of its session before it, a call that is answered holds its queue place until
  // every earlier call of its session has its outcome: one long call plus (queue - 1) calls naming
  // its session stop every other session's calls, with the store idle.
  it("does not hold other sessions' calls behind one long call of a session", async () => {
    upstream = await startScriptedUpstream();
    let stream: import('node:net').Socket | undefined;
    upstream.enqueue({
      socket: (socket) => {
        stream = socket;
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
      },
    });
    harness = await startProxyHarness({ upstreams: { openai: upstream.url, anthropic: upstream.url }, queueCapacity: 2 });
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
  });

  // ProxySession.writeRequest moves the turn counters (applyTurn) before its append: when the store
  // fails that one append, the next call writes turn/end for a turn whose turn/start was never
  // written, and the turn that was open is never ended. verifyLog passes.
  it('keeps turn/start and turn/end paired after one failed write', async () => {
    let failNext = 0;
    const flaky = (inner: LogStore): LogStore => {
      const wrapper = Object.create(inner) as LogStore;
      wrapper.append = async (sessionId, events, options) => {
        if (failNext > 0 && events.some((event) => event.type === 'model/request')) {
          failNext--;
          throw new Error('transient failure (injected)');
        }
        return inner.append(sessionId, events, options);
      };
      return wrapper;
    };
    harness = await startProxyHarness({ wrapStore: flaky });
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
  });
});
