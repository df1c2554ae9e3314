// The proxy's fault suite: hostile clients and hostile upstreams, on 127.0.0.1 only. Each case
// checks that nothing went where it must not (a bystander server counts zero requests), that the
// client got the status it should, that the proxy goes on serving (a normal call afterwards
// works), and that the store holds what it should and no credential (the SQLite file's bytes
// are searched for the secret).

import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import type { ProxyOptions } from '../../src/proxy/index.js';
import { SessionLog } from '../../src/store/session-log.js';
import {
  type Bystander,
  rawExchange,
  rawPost,
  type ScriptedUpstream,
  startBystander,
  startScriptedUpstream,
} from '../proxy/hostile-peers.js';
import { type ProxyHarness, startProxyHarness } from '../proxy/proxy-harness.js';

const SECRET = 'sk-hostile-5ecret-0123456789';
const CHAT = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });

let harness: ProxyHarness | undefined;
let upstream: ScriptedUpstream | undefined;
let bystander: Bystander | undefined;
let warnings: string[] = [];

afterEach(async () => {
  await harness?.close();
  await upstream?.close();
  await bystander?.close();
  harness = undefined;
  upstream = undefined;
  bystander = undefined;
  warnings = [];
});

async function start(options: Partial<ProxyOptions> & { upstreamPath?: string } = {}): Promise<{
  proxy: ProxyHarness;
  upstream: ScriptedUpstream;
  bystander: Bystander;
  port: number;
}> {
  upstream = await startScriptedUpstream();
  bystander = await startBystander();
  const { upstreamPath = '', ...rest } = options;
  const base = `${upstream.url}${upstreamPath}`;
  harness = await startProxyHarness({
    upstreams: { openai: base, anthropic: base },
    onWarning: (message) => warnings.push(message),
    ...rest,
  });
  return { proxy: harness, upstream, bystander, port: harness.proxy.port };
}

function client(proxy: ProxyHarness, apiKey = SECRET): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${proxy.proxy.url}/v1`, maxRetries: 0 });
}

/** A normal call through the proxy still works, and is recorded. */
async function stillServes(proxy: ProxyHarness): Promise<void> {
  const before = proxy.proxy.stats.recorded;
  const completion = await client(proxy).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'still there?' }],
  });
  expect(completion.choices[0]?.message.content).toBe('fine');
  await proxy.proxy.settled();
  expect(proxy.proxy.stats.recorded).toBe(before + 1);
}

/** The secret is nowhere in the store's files (the database, its WAL). */
async function noSecretStored(proxy: ProxyHarness, secret = SECRET): Promise<void> {
  await proxy.proxy.settled();
  for (const file of [proxy.storePath, `${proxy.storePath}-wal`]) {
    if (existsSync(file)) expect(readFileSync(file).includes(secret), file).toBe(false);
  }
}

async function eventsOf(proxy: ProxyHarness, sessionId: string): Promise<LogEvent[]> {
  return proxy.events(sessionId);
}

function errorsOf(events: readonly LogEvent[]): Array<Record<string, unknown>> {
  return events.filter((event) => event.type === 'model/error').map((event) => event.data as Record<string, unknown>);
}

describe('hostile clients', () => {
  it('refuses targets that name another host (//host, absolute-form, a backslash): 400, nothing forwarded, nothing written', async () => {
    const { proxy, upstream, bystander, port } = await start();
    const other = `127.0.0.1:${bystander.port}`;
    for (const target of [`//${other}/v1/chat/completions`, `http://${other}/v1/chat/completions`, `/\\${other}/v1/chat/completions`]) {
      const answer = await rawPost(port, target, { authorization: `Bearer ${SECRET}` }, CHAT);
      expect(answer.status, target).toBe(400);
      expect(answer.body.toString('utf8')).toContain('PROXY_TARGET_REFUSED');
    }
    // The passed-through paths too.
    const models = await rawExchange(port, `GET //${other}/v1/models HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    expect(models.status).toBe(400);
    expect(bystander.requests).toEqual([]);
    expect(upstream.requests).toEqual([]);
    expect(await proxy.store.listSessions()).toEqual([]);
    expect(proxy.proxy.stats).toMatchObject({ refused: 4, forwarded: 0, recordErrors: 0 });
    expect(warnings).toHaveLength(4);
    expect(warnings.every((line) => line.includes('PROXY_TARGET_REFUSED') && !line.includes(SECRET))).toBe(true);
    await stillServes(proxy);
    expect(bystander.requests).toEqual([]);
    await noSecretStored(proxy);
  });

  it("keeps a client's path under the upstream's path prefix", async () => {
    const { proxy, upstream, port } = await start({ upstreamPath: '/gateway' });
    for (const target of ['/v1/../../admin/keys', '/%2e%2e/admin/keys']) {
      const answer = await rawExchange(port, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
      expect(answer.status, target).toBe(400);
    }
    expect(upstream.requests).toEqual([]);
    await stillServes(proxy);
    expect(upstream.requests.map((request) => request.path)).toEqual(['/gateway/v1/chat/completions']);
  });

  // docs/proxy.md: "POST /v1/chat/completions ... recorded"; "Any other path ... is passed through
  // to the upstream unrecorded". A URL parser removes dot segments and drops a fragment: had the
  // proxy classified the raw target and sent a parsed URL, each of these would reach the upstream
  // as /v1/chat/completions, with the client's credentials, and nothing would be recorded.
  it.each([
    '/./v1/chat/completions',
    '/v1/./chat/completions',
    '/v1/x/../chat/completions',
    '/v1/%2e/chat/completions',
    '/v1/chat/completions#x',
  ])('a model call to %s is not passed through unrecorded', async (target) => {
    const { proxy, upstream, port } = await start();
    const answer = await rawPost(port, target, { authorization: `Bearer ${SECRET}` }, CHAT);
    const reached = upstream.requests.map((request) => request.path);
    await proxy.proxy.settled();
    // Either refused (nothing forwarded), or forwarded and recorded: never a model call the log does not hold.
    if (reached.includes('/v1/chat/completions')) {
      expect(proxy.proxy.stats.recorded, `${target} reached the upstream as /v1/chat/completions (HTTP ${answer.status})`).toBe(1);
    } else {
      expect(answer.status).toBeGreaterThanOrEqual(400);
    }
  });

  // docs/proxy.md: a target that "starts with //" is refused, since a URL reads it as another host.
  // A dot segment before it would make the URL sent start with // all the same.
  it('never sends the upstream a request target that starts with //', async () => {
    const { upstream, port } = await start();
    for (const target of ['/..//127.0.0.1:9/v1/models', '/.//127.0.0.1:9/v1/models', '/%2e//127.0.0.1:9/v1/models']) {
      await rawPost(port, target, {}, CHAT);
    }
    expect(upstream.requests.map((request) => request.path).filter((path) => path.startsWith('//'))).toEqual([]);
  });

  it('refuses a target with a dot segment, a fragment or an empty segment, as sent or encoded: 400, nothing forwarded', async () => {
    const { proxy, upstream, port } = await start();
    const targets = [
      '/v1/chat/completions/..',
      '/v1/chat/completions/.',
      '/v1//chat/completions',
      '/v1/chat/completions//',
      '/v1/%2E%2e/chat/completions',
      '/v1/x/..%2fchat/completions',
      '/v1/chat%2f%2fcompletions',
      '/v1/x/..;/chat/completions',
      '/v1/%5c../models',
      '/v1/models#fragment',
    ];
    for (const target of targets) {
      const answer = await rawPost(port, target, { authorization: `Bearer ${SECRET}` }, CHAT);
      expect(answer.status, target).toBe(400);
      expect(answer.body.toString('utf8'), target).toContain('PROXY_TARGET_REFUSED');
      const get = await rawExchange(port, `GET ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
      expect(get.status, `GET ${target}`).toBe(400);
    }
    expect(upstream.requests).toEqual([]);
    expect(await proxy.store.listSessions()).toEqual([]);
    expect(proxy.proxy.stats).toMatchObject({ refused: 2 * targets.length, forwarded: 0, passedThrough: 0 });
    await stillServes(proxy);
  });

  // A server that folds case, cuts ;params, drops a trailing slash or decodes %63 answers these as
  // /v1/chat/completions; the proxy must record such a call or refuse it, never pass it through.
  it('refuses a POST to a recorded endpoint spelled another way, and passes other methods through', async () => {
    const { proxy, upstream, port } = await start();
    const targets = [
      '/v1/chat/completions/',
      '/v1/chat/completions;x=1',
      '/V1/chat/completions',
      '/v1/Responses',
      '/v1/messages/',
      '/v1/chat/%63ompletions',
      '/v1/chat%2Fcompletions',
    ];
    for (const target of targets) {
      const answer = await rawPost(port, target, { authorization: `Bearer ${SECRET}` }, CHAT);
      expect(answer.status, target).toBe(400);
      expect(answer.body.toString('utf8'), target).toMatch(/PROXY_TARGET_REFUSED.*spelled another way/);
    }
    expect(upstream.requests).toEqual([]);
    // Not a model call: a GET, or a POST to a path that is no recorded endpoint however it is read.
    const get = await rawExchange(port, `GET /V1/chat/completions/ HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    expect(get.status).toBe(200);
    const tokens = await rawPost(port, '/v1/messages/count_tokens', {}, CHAT);
    expect(tokens.status).toBe(200);
    expect(upstream.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /V1/chat/completions/',
      'POST /v1/messages/count_tokens',
    ]);
    expect(proxy.proxy.stats).toMatchObject({ refused: targets.length, passedThrough: 2, forwarded: 0, recorded: 0 });
  });

  it('refuses a request that asks to be read as another method (X-HTTP-Method-Override and its kin)', async () => {
    const { upstream, port } = await start();
    for (const name of ['X-HTTP-Method-Override', 'x-http-method', 'X-Method-Override']) {
      const answer = await rawExchange(
        port,
        `GET /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${name}: POST\r\ncontent-length: ${CHAT.length}\r\nconnection: close\r\n\r\n${CHAT}`,
      );
      expect(answer.status, name).toBe(400);
      expect(answer.body.toString('utf8'), name).toContain('PROXY_METHOD_OVERRIDE');
    }
    expect(upstream.requests).toEqual([]);
  });

  it('sends the target byte for byte: the prefix, then the path and query as the client sent them', async () => {
    const { proxy, upstream, port } = await start({ upstreamPath: '/gateway' });
    const query = `?api-version=2024-10-21&q='quoted'&r="x"&s=%7B%7D&t=a|b`;
    const answer = await rawPost(port, `/v1/chat/completions${query}`, { 'x-shadowlog-session': 'exact' }, CHAT);
    expect(answer.status).toBe(200);
    expect(upstream.requests.map((request) => request.path)).toEqual([`/gateway/v1/chat/completions${query}`]);
    const request = (await eventsOf(proxy, 'exact')).find((event) => event.type === 'model/request')?.data as { proxy: { path: string } };
    expect(request.proxy.path).toBe(`/v1/chat/completions${query}`);
  });

  it('refuses a Host that does not name the proxy (DNS rebinding): 421, nothing forwarded', async () => {
    const { proxy, upstream, port } = await start();
    const refused = [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${port}@evil.example`, '127.0.0.1:abc'];
    for (const host of refused) {
      const answer = await rawPost(port, '/v1/chat/completions', { host, authorization: `Bearer ${SECRET}` }, CHAT);
      expect(answer.status, host).toBe(421);
    }
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`]) {
      const answer = await rawPost(port, '/v1/chat/completions', { host, authorization: `Bearer ${SECRET}` }, CHAT);
      expect(answer.status, host).toBe(200);
    }
    expect(upstream.requests).toHaveLength(3);
    expect(proxy.proxy.stats.refused).toBe(refused.length);
    await noSecretStored(proxy);
  });

  it("refuses a browser's simple POST, whatever its origin (a page on another loopback port too): 403, nothing forwarded or recorded", async () => {
    const { proxy, upstream, port } = await start();
    for (const origin of [
      'http://evil.example',
      'null',
      `http://evil.example:${port}`,
      'http://localhost:5173',
      `http://127.0.0.1:${port}`,
    ]) {
      const answer = await rawPost(port, '/v1/chat/completions', { origin, 'content-type': 'text/plain;charset=UTF-8' }, CHAT);
      expect(answer.status, origin).toBe(403);
      expect(answer.body.toString('utf8')).toContain('PROXY_ORIGIN_REFUSED');
    }
    expect(upstream.requests).toEqual([]);
    expect(await proxy.store.listSessions()).toEqual([]);
    await stillServes(proxy);
  });

  it('refuses every CORS preflight: an OPTIONS from a page gets a 403 and no CORS header, and reaches nothing', async () => {
    const { upstream, port } = await start();
    for (const origin of ['http://localhost:5173', 'http://evil.example']) {
      const answer = await rawExchange(
        port,
        `OPTIONS /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\norigin: ${origin}\r\naccess-control-request-method: POST\r\naccess-control-request-headers: authorization, content-type\r\nconnection: close\r\n\r\n`,
      );
      expect(answer.status, origin).toBe(403);
      expect(answer.head.toLowerCase()).not.toContain('access-control-allow');
    }
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a call for an API whose upstream was not given: 502 PROXY_NO_UPSTREAM, not forwarded, not recorded', async () => {
    upstream = await startScriptedUpstream();
    harness = await startProxyHarness({ upstreams: { openai: upstream.url }, onWarning: (message) => warnings.push(message) });
    const answer = await rawPost(
      harness.proxy.port,
      '/v1/messages',
      { 'x-api-key': SECRET, 'x-shadowlog-session': 'nowhere' },
      JSON.stringify({ model: 'claude-opus-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(answer.status).toBe(502);
    expect(answer.body.toString('utf8')).toContain('PROXY_NO_UPSTREAM');
    const models = await rawExchange(
      harness.proxy.port,
      `GET /v1/messages/batches HTTP/1.1\r\nhost: 127.0.0.1:${harness.proxy.port}\r\nconnection: close\r\n\r\n`,
    );
    expect(models.status).toBe(502);
    await harness.proxy.settled();
    expect(harness.proxy.stats).toMatchObject({ forwarded: 0, recorded: 0, passedThrough: 0, refused: 2, recordErrors: 0 });
    expect(await harness.store.listSessions()).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });

  it('refuses a body over the cap with a 413 in the API’s shape, declared or chunked: nothing forwarded, nothing written', async () => {
    const { proxy, upstream, port } = await start({ maxRequestBytes: 4096 });
    const big = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(8192) }] });
    const declared = await rawPost(port, '/v1/chat/completions', { authorization: `Bearer ${SECRET}` }, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body.toString('utf8'))).toMatchObject({ error: { code: 'PROXY_REQUEST_TOO_LARGE' } });
    const chunked = await rawExchange(
      port,
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    expect(upstream.requests).toEqual([]);
    expect(await proxy.store.listSessions()).toEqual([]);
    expect(proxy.proxy.stats).toMatchObject({ refused: 2, recordErrors: 0 });
    expect(warnings.filter((line) => line.includes('PROXY_REQUEST_TOO_LARGE'))).toHaveLength(2);
    await stillServes(proxy);
  });

  it('counts an upload its client abandoned, quietly: no record error, no session, nothing forwarded', async () => {
    const { proxy, upstream, port } = await start();
    for (let index = 0; index < 3; index++) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"model": "gpt-4o", "mess`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 20);
        });
      });
    }
    await vi.waitFor(() => expect(proxy.proxy.stats.clientAborts).toBe(3));
    expect(proxy.recordErrors).toEqual([]);
    expect(proxy.proxy.stats).toMatchObject({ recordErrors: 0, forwarded: 0 });
    expect(warnings).toEqual([]);
    expect(upstream.requests).toEqual([]);
    expect(await proxy.store.listSessions()).toEqual([]);
    await stillServes(proxy);
  });

  it('forwards credentials in the query string unchanged and stores them redacted', async () => {
    const { proxy, upstream, port } = await start();
    const query = `api-version=2024-10-21&api-key=${SECRET}&Key=${SECRET}&api_key=${SECRET}&token=${SECRET}`;
    const answer = await rawPost(
      port,
      `/v1/chat/completions?${query}`,
      { authorization: `Bearer ${SECRET}`, 'x-shadowlog-session': 'keyed' },
      CHAT,
    );
    expect(answer.status).toBe(200);
    expect(upstream.requests[0]?.path).toBe(`/v1/chat/completions?${query}`);
    const events = await eventsOf(proxy, 'keyed');
    const request = events.find((event) => event.type === 'model/request')?.data as { proxy: { path: string } };
    expect(request.proxy.path).toBe(
      '/v1/chat/completions?api-version=2024-10-21&api-key=[redacted]&Key=[redacted]&api_key=[redacted]&token=[redacted]',
    );
    await noSecretStored(proxy);
  });

  it("never prints or stores the password of the upstream's URL", async () => {
    upstream = await startScriptedUpstream();
    const down = 'http://127.0.0.1:9';
    harness = await startProxyHarness({
      upstreams: {
        openai: `http://alice:${SECRET}@${upstream.url.slice('http://'.length)}`,
        anthropic: `http://alice:${SECRET}@${down.slice(7)}`,
      },
      onWarning: (message) => warnings.push(message),
    });
    // Forwarded with Basic auth when the client sends no Authorization of its own.
    const answer = await rawPost(harness.proxy.port, '/v1/chat/completions', {}, CHAT);
    expect(answer.status).toBe(200);
    expect(upstream.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from(`alice:${SECRET}`).toString('base64')}`);
    // An upstream that cannot be reached: the error names its origin, never the password.
    const failed = await rawPost(
      harness.proxy.port,
      '/v1/messages',
      { 'x-api-key': 'sk-ant-x' },
      JSON.stringify({ model: 'claude-opus-4-6', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(failed.status).toBe(502);
    expect(failed.body.toString('utf8')).not.toContain(SECRET);
    expect(warnings.join('\n')).not.toContain(SECRET);
    await noSecretStored(harness);
  });

  it('refuses to add calls to a session of another origin (an import, a harness session): 409, nothing forwarded or written', async () => {
    const { proxy, upstream } = await start();
    await SessionLog.create(proxy.store, 'imported-1');
    await SessionLog.create(proxy.store, 'other-harness', { harnessVersion: 'pi 0.9' });
    for (const id of ['imported-1', 'other-harness']) {
      const error = await client(proxy)
        .chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content: 'append me' }] },
          { headers: { 'x-shadowlog-session': id } },
        )
        .catch((caught: unknown) => caught);
      expect(error, id).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(409);
      expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('PROXY_FOREIGN_SESSION');
      expect((await proxy.store.head(id))?.nextSeq).toBe(1);
    }
    expect(upstream.requests).toEqual([]);
    expect(proxy.proxy.stats).toMatchObject({ refused: 2, forwarded: 0, recordErrors: 0 });
    // A session the proxy recorded may be named again.
    const named = await client(proxy).chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'first' }] },
      { headers: { 'x-shadowlog-session': 'mine' } },
    );
    expect(named.choices[0]?.message.content).toBe('fine');
  });

  it('forwards a call whose session another writer owns, and records it in a sibling session with a note', async () => {
    const { proxy, upstream } = await start();
    await SessionLog.create(proxy.store, 'held', { harnessVersion: 'shadowlog proxy' });
    const ownership = await proxy.store.acquireOwnership('held');
    try {
      for (const content of ['first', 'second']) {
        const answer = await client(proxy).chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content }] },
          { headers: { 'x-shadowlog-session': 'held' } },
        );
        expect(answer.choices[0]?.message.content).toBe('fine');
      }
    } finally {
      await ownership.release();
    }
    expect(upstream.requests).toHaveLength(2);
    expect((await proxy.store.head('held'))?.nextSeq).toBe(1);
    const siblings = proxy.proxy.sessionIds();
    expect(siblings).toEqual([expect.stringMatching(/^held\.[A-Za-z0-9._-]+$/)]);
    const events = await eventsOf(proxy, siblings[0] as string);
    const notes = events
      .filter((event) => event.type === 'model/request')
      .map((event) => (event.data as { proxy: { siblingOf?: { sessionId: string; reason: string } } }).proxy.siblingOf);
    expect(notes).toEqual([
      { sessionId: 'held', reason: expect.stringContaining('owned by') },
      { sessionId: 'held', reason: expect.stringContaining('owned by') },
    ]);
    expect(warnings).toEqual([expect.stringContaining(`session held is owned by another writer`)]);
    expect(proxy.proxy.stats).toMatchObject({ forwarded: 2, recorded: 2, recordErrors: 0 });
    expect((await verifyLog(proxy.store.read(siblings[0] as string))).ok).toBe(true);
  });
  // docs/proxy.md, Sessions: "When another writer owns the session ..., the call is still
  // forwarded, and recorded in a session of the proxy's own, ID.sibling-xxxxxx". Two proxies that
  // name one new session at once: the other has claimed the id and not yet written its
  // session/start. The calls go to a sibling, with no record error and no "(undefined)".
  it('records in a sibling a named new session that another writer has just claimed', async () => {
    const { proxy } = await start();
    const other = await proxy.store.acquireOwnership('claimed');
    try {
      for (const content of ['first', 'second']) {
        await client(proxy).chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content }] },
          { headers: { 'x-shadowlog-session': 'claimed' } },
        );
      }
      await proxy.proxy.settled();
    } finally {
      await other.release();
    }
    expect(proxy.recordErrors.map((error) => (error as Error).message)).toEqual([]);
    expect(proxy.proxy.sessionIds()).toEqual([expect.stringMatching(/^claimed\.sibling-[0-9a-f]{6}$/)]);
    expect(proxy.proxy.stats).toMatchObject({ forwarded: 2, recorded: 2, recordErrors: 0 });
    expect(warnings).toEqual([expect.stringContaining('session claimed is owned by another writer')]);
    expect(await proxy.store.head('claimed')).toBeUndefined();
  });

  it("stores gateways' credentials redacted, in headers and in the query, and keeps the rest readable", async () => {
    const { proxy, upstream, port } = await start({ redactHeaders: ['X-Tenant'], redactQuery: ['tenant'] });
    const secretHeaders = {
      'Helicone-Auth': `Bearer ${SECRET}`,
      'Ocp-Apim-Subscription-Key': SECRET,
      'x-portkey-api-key': SECRET,
      'cf-aig-authorization': `Bearer ${SECRET}`,
      'x-goog-api-key': SECRET,
      'X-Tenant': SECRET,
    };
    const readable = { 'anthropic-version': '2023-06-01', 'x-stainless-lang': 'js', 'openai-organization': 'org-1' };
    const query = [
      `subscription-key=${SECRET}`,
      `code=${SECRET}`,
      `sig=${SECRET}`,
      `x-api-key=${SECRET}`,
      `access-token=${SECRET}`,
      `api-key[]=${SECRET}`,
      `api-key%5B0%5D=${SECRET}`,
      `x=1;api-key=${SECRET}`,
      `tenant=${SECRET}`,
      'api-version=2024-10-21',
    ].join('&');
    const answer = await rawPost(
      port,
      `/v1/chat/completions?${query}`,
      { ...secretHeaders, ...readable, 'x-shadowlog-session': 'gateway' },
      CHAT,
    );
    expect(answer.status).toBe(200);
    // Forwarded as sent.
    expect(upstream.requests[0]?.path).toBe(`/v1/chat/completions?${query}`);
    expect(upstream.requests[0]?.headers['ocp-apim-subscription-key']).toBe(SECRET);
    const request = (await eventsOf(proxy, 'gateway')).find((event) => event.type === 'model/request')?.data as {
      proxy: { path: string; headers: Record<string, string>; redactedHeaders: string[] };
    };
    expect(request.proxy.path).toBe(
      '/v1/chat/completions?subscription-key=[redacted]&code=[redacted]&sig=[redacted]&x-api-key=[redacted]&access-token=[redacted]&api-key[]=[redacted]&api-key%5B0%5D=[redacted]&x=1;api-key=[redacted]&tenant=[redacted]&api-version=2024-10-21',
    );
    expect(request.proxy.redactedHeaders).toEqual(
      Object.keys(secretHeaders)
        .map((name) => name.toLowerCase())
        .sort(),
    );
    expect(request.proxy.headers).toMatchObject({ ...readable, 'content-type': 'application/json' });
    await noSecretStored(proxy);
  });
});

describe('hostile upstreams', () => {
  const malformed: Array<[string, string]> = [
    ['a DEL in the status line', 'HTTP/1.1 200 O\x7fK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'],
    ['a control byte in the status line', 'HTTP/1.1 200 O\x01K\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'],
    ['status 099', 'HTTP/1.1 099 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'],
    ['status 000', 'HTTP/1.1 000 OK\r\ncontent-length: 2\r\n\r\n{}'],
    ['a control byte in a header value', 'HTTP/1.1 200 OK\r\nx-trace: a\x01b\r\ncontent-length: 2\r\n\r\n{}'],
    ['a header name with a space', 'HTTP/1.1 200 OK\r\nx trace: ab\r\ncontent-length: 2\r\n\r\n{}'],
    ['two content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}'],
    ['a 101 upgrade nobody asked for', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\nxyz'],
  ];

  it.each(malformed)('%s: the client gets a 502, the log a model/error, and the proxy goes on', async (_name, raw) => {
    const { proxy, upstream } = await start();
    upstream.enqueue({ raw: Buffer.from(raw, 'latin1') });
    const error = await client(proxy)
      .chat.completions.create(
        { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-shadowlog-session': 'bad' } },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(errorsOf(await eventsOf(proxy, 'bad'))).toMatchObject([{ code: 'PROXY_UPSTREAM_MALFORMED' }]);
    await stillServes(proxy);
    expect(proxy.proxy.stats.recordErrors).toBe(0);
  });

  it('a 1xx head and then a close: a 502, recorded as a cut answer, not as an upstream out of reach', async () => {
    const { proxy, upstream } = await start();
    upstream.enqueue(
      { raw: 'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n' },
      { raw: 'HTTP/1.1 100 Continue\r\n\r\n' },
    );
    for (const index of [1, 2]) {
      const error = await client(proxy)
        .chat.completions.create(
          { model: 'gpt-4o', messages: [{ role: 'user', content: `hi ${index}` }] },
          { headers: { 'x-shadowlog-session': 'informed' } },
        )
        .catch((caught: unknown) => caught);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    }
    expect(errorsOf(await eventsOf(proxy, 'informed'))).toMatchObject([
      { code: 'PROXY_STREAM_CUT', message: expect.stringContaining('informational 1xx head') },
      { code: 'PROXY_STREAM_CUT' },
    ]);
    expect(proxy.proxy.stats).toMatchObject({ upstreamFailures: 2, recorded: 2 });
    await stillServes(proxy);
  });

  it('bytes after a complete answer (a 204, then junk): the client gets the answer, the junk goes nowhere', async () => {
    const { proxy, upstream, port } = await start();
    upstream.enqueue({ raw: 'HTTP/1.1 204 No Content\r\n\r\nJUNK' }, { raw: 'HTTP/1.1 204 No Content\r\n\r\nJUNK' });
    const answer = await rawPost(port, '/v1/chat/completions', { 'x-shadowlog-session': 'empty' }, CHAT);
    expect(answer.status).toBe(204);
    expect(answer.body.length).toBe(0);
    // No model answer in it: recorded as not JSON, with the status.
    expect(errorsOf(await eventsOf(proxy, 'empty'))).toMatchObject([{ code: 'PROXY_MALFORMED_ANSWER', status: 204 }]);
    const passed = await rawExchange(port, `GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    expect(passed.status).toBe(204);
    await stillServes(proxy);
  });

  it('a malformed answer to a passed-through request: a 502, and the proxy goes on', async () => {
    const { proxy, upstream, port } = await start();
    upstream.enqueue(
      { raw: 'HTTP/1.1 200 O\x7fK\r\ncontent-length: 2\r\n\r\n{}' },
      { raw: 'HTTP/1.1 099 OK\r\ncontent-length: 2\r\n\r\n{}' },
      { raw: 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n' },
    );
    for (let index = 0; index < 3; index++) {
      const answer = await rawExchange(port, `GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
      expect(answer.status).toBe(502);
    }
    await stillServes(proxy);
  });

  it('a gzip bomb: the client gets the bytes as sent, the log a model/error and none of the inflated body', async () => {
    const { proxy, upstream, port } = await start({ maxAnswerBytes: 1024 * 1024 });
    const bomb = gzipSync(Buffer.from(JSON.stringify({ id: 'x', choices: [], pad: 'a'.repeat(16 * 1024 * 1024) })));
    upstream.enqueue({
      raw: Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${bomb.length}\r\n\r\n`,
        ),
        bomb,
      ]),
    });
    const answer = await rawPost(port, '/v1/chat/completions', { authorization: `Bearer ${SECRET}`, 'x-shadowlog-session': 'bomb' }, CHAT);
    expect(answer.status).toBe(200);
    expect(answer.body.equals(bomb)).toBe(true);
    const events = await eventsOf(proxy, 'bomb');
    expect(errorsOf(events)).toMatchObject([{ code: 'PROXY_ANSWER_TOO_LARGE', status: 200 }]);
    expect(Math.max(...events.map((event) => JSON.stringify(event).length))).toBeLessThan(64 * 1024);
    await stillServes(proxy);
    await noSecretStored(proxy);
  });

  it('an answer over the cap: the client gets all of it, the log a model/error without it', async () => {
    const { proxy, upstream, port } = await start({ maxAnswerBytes: 256 * 1024 });
    const body = JSON.stringify({ id: 'x', pad: 'b'.repeat(1024 * 1024) });
    upstream.enqueue({ raw: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}` });
    const answer = await rawPost(port, '/v1/chat/completions', { 'x-shadowlog-session': 'large' }, CHAT);
    expect(answer.status).toBe(200);
    expect(answer.body.toString('utf8')).toBe(body);
    const events = await eventsOf(proxy, 'large');
    expect(errorsOf(events)).toMatchObject([{ code: 'PROXY_ANSWER_TOO_LARGE', status: 200 }]);
    expect(Math.max(...events.map((event) => JSON.stringify(event).length))).toBeLessThan(64 * 1024);
    await stillServes(proxy);
  });

  it('a connection reset in the middle of an answer: the client sees the cut, the log keeps what arrived', async () => {
    const { proxy, upstream, port } = await start();
    upstream.enqueue({
      raw: 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"id": "chatcmpl-',
      ending: 'reset',
    });
    const answer = await rawPost(port, '/v1/chat/completions', { 'x-shadowlog-session': 'reset' }, CHAT).catch(() => undefined);
    expect(answer === undefined || answer.body.length < 1000).toBe(true);
    expect(errorsOf(await eventsOf(proxy, 'reset'))).toMatchObject([{ code: 'PROXY_STREAM_CUT', answer: { text: '{"id": "chatcmpl-' } }]);
    await stillServes(proxy);
  });

  it('a stream that never ends: forwarded as long as the client reads, and the record keeps no more than the cap', async () => {
    const { proxy, upstream } = await start({ maxAnswerBytes: 64 * 1024 });
    upstream.enqueue({
      socket: (socket) => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n');
        const chunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'z'.repeat(4000) } }] })}\n\n`;
        const timer = setInterval(() => {
          if (socket.destroyed) return clearInterval(timer);
          socket.write(`${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
        }, 1);
        socket.on('close', () => clearInterval(timer));
      },
    });
    const controller = new AbortController();
    const response = await fetch(`${proxy.proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shadowlog-session': 'endless' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'go on' }] }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    while (received < 512 * 1024) received += (await reader.read()).value?.length ?? 0;
    controller.abort();
    await reader.cancel().catch(() => {});
    await vi.waitFor(() => expect(proxy.proxy.stats.recorded).toBe(1));
    const events = await eventsOf(proxy, 'endless');
    expect(errorsOf(events)).toMatchObject([{ code: 'PROXY_CLIENT_CLOSED' }]);
    // The client went away: no failure of the upstream.
    expect(proxy.proxy.stats.upstreamFailures).toBe(0);
    expect(Math.max(...events.map((event) => JSON.stringify(event).length))).toBeLessThan(64 * 1024);
    await stillServes(proxy);
  });
});
