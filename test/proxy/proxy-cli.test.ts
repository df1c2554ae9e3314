// `shadowlog proxy` from the command line: it announces where it listens and the base URLs to
// set, records the official openai client's calls (Responses and chat completions, streaming and
// not), stops when told, and `replay --wire` then prints bytes whose sha256 is both the digest
// recorded and the digest of what the upstream received; `verify` passes.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';
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

async function cli(args: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await main(['--store', 'sqlite:log.db', ...args], { stdout, stderr, stdin: Readable.from([]), cwd });
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
      const bytes = wire.stdout.subarray(0, wire.stdout.length - 1);
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

  it('warns loudly when it listens on an address that is not loopback, and refuses to run without an upstream', async () => {
    const none = await cli(['proxy', '--port', '0']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('proxy needs an upstream');
    // The warning comes before the proxy binds; 192.0.2.1 (TEST-NET-1) is no address of this machine, so nothing is ever bound or sent there.
    const exposed = await cli(['proxy', '--port', '0', '--host', '192.0.2.1', '--upstream-openai', upstream.baseUrl]);
    expect(exposed.stderr).toMatch(/WARNING: the proxy is to listen on 192\.0\.2\.1, which is not a loopback address/);
    expect(exposed.stderr).toMatch(/PROXY_LISTEN: the proxy cannot listen on 192\.0\.2\.1:0: EADDRNOTAVAIL/);
    expect(exposed.code).toBe(1);
  });
});
