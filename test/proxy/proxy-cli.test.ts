// `shadowlog proxy` from the command line: it announces where it listens and the base URLs to
// set, records the official openai client's calls (Responses and chat completions, streaming and
// not), stops when told, and `replay --wire` then prints bytes whose sha256 is both the digest
// recorded and the digest of what the upstream received; `verify` passes.

import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';
import { rawExchange } from './hostile-peers.js';
import { answerJson, answerStream } from './proxy-answers.js';
import { sha256 } from './proxy-harness.js';

let upstream: FakeProviderServer;
let cwd: string;
beforeEach(async () => {
  upstream = await startFakeProviderServer();
  cwd = mkdtempSync(join(tmpdir(), 'shadowlog-proxy-cli-'));
});
afterEach(async () => {
  await upstream.close();
  rmSync(cwd, { recursive: true, force: true });
});

async function cli(args: string[], signal?: AbortSignal): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await main(['--store', 'sqlite:log.db', ...args], {
    stdout,
    stderr,
    stdin: Readable.from([]),
    cwd,
    ...(signal === undefined ? {} : { signal }),
  });
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') };
}

/** Starts `proxy` in-process; resolves with its URL once it says where it listens. */
async function startCliProxy(extra: string[] = []) {
  const controller = new AbortController();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stderr.on('data', (chunk: Buffer) => err.push(chunk.toString('utf8')));
  const listening = new Promise<string>((resolve) => {
    stdout.on('data', (chunk: Buffer) => {
      out.push(chunk.toString('utf8'));
      const found = /listening on (http:\/\/\S+),/.exec(out.join(''));
      if (found?.[1] !== undefined) resolve(found[1]);
    });
  });
  const done = main(['--store', 'sqlite:log.db', 'proxy', '--port', '0', '--upstream-openai', upstream.baseUrl, ...extra], {
    stdout,
    stderr,
    stdin: Readable.from([]),
    cwd,
    signal: controller.signal,
  });
  const url = await Promise.race([listening, done.then((code) => Promise.reject(new Error(`proxy exited ${code}: ${err.join('')}`)))]);
  return {
    url,
    output: () => out.join(''),
    errors: () => err.join(''),
    async stop() {
      controller.abort();
      return done;
    },
  };
}

describe('shadowlog proxy', () => {
  it('records the openai client, and replay --wire gives back the bytes the upstream received', async () => {
    const proxy = await startCliProxy();
    expect(proxy.output()).toContain(`OPENAI_BASE_URL=${proxy.url}/v1`);
    upstream.enqueue(
      answerStream('responses', { tool: { id: 'call_1', name: 'grep', arguments: { pattern: 'TODO' } } }, 1),
      answerJson('responses', { text: 'No TODOs left.' }, 2),
    );
    const client = new OpenAI({ apiKey: 'sk-cli-secret', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Any TODOs?' }];
    const stream = await client.responses.create({ model: 'gpt-4.1', input, stream: true });
    let call: OpenAI.Responses.ResponseFunctionToolCall | undefined;
    for await (const event of stream)
      if (event.type === 'response.output_item.done' && event.item.type === 'function_call') call = event.item;
    expect(call?.call_id).toBe('call_1');
    input.push(call as OpenAI.Responses.ResponseFunctionToolCall, { type: 'function_call_output', call_id: 'call_1', output: 'none' });
    const answer = await client.responses.create({ model: 'gpt-4.1', input });
    expect(answer.output_text).toBe('No TODOs left.');
    expect(upstream.violations).toEqual([]);
    expect(await proxy.stop()).toBe(0);
    expect(proxy.output()).toContain('stopped: 2 calls forwarded and 2 recorded in 1 session (proxy-');

    const sessions = JSON.parse((await cli(['--json', 'sessions'])).stdout.toString('utf8')) as Array<{ id: string }>;
    expect(sessions).toHaveLength(1);
    const id = sessions[0]?.id as string;
    for (const [index, step] of [1, 2].entries()) {
      const wire = await cli(['replay', id, '--turn', '1', '--step', String(step), '--wire']);
      expect(wire.code, wire.stderr).toBe(0);
      const bytes = wire.stdout;
      expect(bytes.toString('utf8')).toBe(upstream.requests[index]?.body);
      expect(sha256(bytes)).toBe(sha256(upstream.requests[index]?.body as string));
      const json = JSON.parse((await cli(['--json', 'replay', id, '--turn', '1', '--step', String(step)])).stdout.toString('utf8')) as {
        requestDigest: string;
        verified: boolean;
      };
      expect(json).toMatchObject({ requestDigest: sha256(bytes), verified: true });
    }
    const verify = await cli(['--json', 'verify', id]);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.stdout.toString('utf8'))).toMatchObject({ ok: true });
  });

  it('refuses an address that is not loopback without --allow-remote, warns loudly with it, and refuses to run without an upstream', async () => {
    const none = await cli(['proxy', '--port', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('proxy needs an upstream');
    // Refused before anything is bound: one line, exit 2. (The signal is aborted already: a proxy that did bind would stop at once.)
    const wildcard = await cli(['proxy', '--port', '0', '--host', '0.0.0.0', '--upstream-openai', upstream.baseUrl], AbortSignal.abort());
    expect(wildcard.code).toBe(2);
    expect(wildcard.stderr).toBe(
      'shadowlog: INVALID_CONFIG: --host 0.0.0.0 is not a loopback address: anyone who can reach it could send calls through the proxy and write sessions in the store. Use 127.0.0.1 (the default), or add --allow-remote to mean it\n',
    );
    // With --allow-remote: the warning comes before the proxy binds; 192.0.2.1 (TEST-NET-1) is no address of this machine, so nothing is ever bound or sent there.
    const exposed = await cli(['proxy', '--port', '0', '--host', '192.0.2.1', '--allow-remote', '--upstream-openai', upstream.baseUrl]);
    expect(exposed.stderr).toMatch(/WARNING: the proxy is to listen on 192\.0\.2\.1, which is not a loopback address/);
    expect(exposed.stderr).toMatch(/PROXY_LISTEN: the proxy cannot listen on 192\.0\.2\.1:0: EADDRNOTAVAIL/);
    expect(exposed.code).toBe(1);
  });

  it('never prints the password of an upstream URL', async () => {
    const secret = 'PASSWORD-cli-0123';
    const proxy = await startCliProxy(['--upstream-anthropic', `http://alice:${secret}@${upstream.baseUrl.slice('http://'.length)}`]);
    expect(proxy.output()).toContain(`Anthropic Messages → http://alice:[redacted]@${upstream.baseUrl.slice('http://'.length)}/:`);
    expect(await proxy.stop()).toBe(0);
    expect(proxy.output() + proxy.errors()).not.toContain(secret);
  });

  it('refuses an upstream URL whose password holds / in one line that does not show the password', async () => {
    const secret = 'Zm9v/YmFy+SECRET';
    const result = await cli(['proxy', '--port', '0', '--upstream-openai', `http://alice:${secret}@127.0.0.1:18501`], AbortSignal.abort());
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('SECRET');
    expect(result.stderr).toBe(
      'shadowlog: INVALID_CONFIG: the openai upstream must be an http:// or https:// URL without a query or fragment (e.g. https://api.openai.com), found "http://[redacted]@127.0.0.1:18501"\n',
    );
    // One that parses, as another host with the password in its path: refused too, not sent to host "alice".
    const parsed = await cli(['proxy', '--port', '0', '--upstream-openai', 'http://alice:123/SECRET@127.0.0.1:18501'], AbortSignal.abort());
    expect(parsed.code).toBe(2);
    expect(parsed.stderr).not.toContain('SECRET');
    expect(parsed.stderr).toMatch(/found "http:\/\/\[redacted\]@127\.0\.0\.1:18501": an @ outside a userinfo: percent-encode a \/ or @/);
  });

  it('refuses an --allow-host with a port, in one line', async () => {
    const result = await cli(
      ['proxy', '--port', '0', '--upstream-openai', upstream.baseUrl, '--allow-host', 'proxy.local:8787'],
      AbortSignal.abort(),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'shadowlog: INVALID_CONFIG: --allow-host takes a host name or address without a port (e.g. proxy.internal, 10.1.2.3, [fd00::1]), found "proxy.local:8787"\n',
    );
  });

  it('names in its help every header it keeps out of the log, and --redact-query', async () => {
    const help = (await cli(['proxy', '--help'])).stdout.toString('utf8');
    expect(help).toContain('x-goog-api-key');
    expect(help).toContain('--redact-query <name>');
    expect(help).toContain('--stop-grace <ms>');
    expect(help).toContain('--max-held-bytes <bytes>');
  });

  it('exits 0 when clients abandon their uploads, and says so once, in the summary', async () => {
    const proxy = await startCliProxy();
    const port = Number(new URL(proxy.url).port);
    for (let index = 0; index < 3; index++) {
      await new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"mod`,
          );
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 20);
        });
      });
    }
    expect(await proxy.stop()).toBe(0);
    expect(proxy.output()).toContain('; 3 uploads abandoned by their clients');
    expect(proxy.errors()).toBe('');
    expect(upstream.requests).toEqual([]);
  });

  it('tells each refused request in one line, and counts them in the summary', async () => {
    const proxy = await startCliProxy(['--max-request-bytes', '1024']);
    const port = Number(new URL(proxy.url).port);
    const large = await fetch(`${proxy.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-x' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(2000) }] }),
    });
    expect(large.status).toBe(413);
    const elsewhere = await rawExchange(
      port,
      `GET //127.0.0.1:9/v1/models HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`,
    );
    expect(elsewhere.status).toBe(400);
    expect(await proxy.stop()).toBe(0);
    expect(proxy.output()).toContain('; 2 requests refused, nothing forwarded');
    const lines = proxy.errors().trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(
        /^shadowlog: refused a request \(HTTP 413\): PROXY_REQUEST_TOO_LARGE: the request body is \d+ bytes \(its content-length\), more than the 1024 bytes/,
      ),
      expect.stringMatching(
        /^shadowlog: refused a request \(HTTP 400\): PROXY_TARGET_REFUSED: the request target "\/\/127\.0\.0\.1:9\/v1\/models" starts with \/\//,
      ),
    ]);
    expect(upstream.requests).toEqual([]);
  });
});
