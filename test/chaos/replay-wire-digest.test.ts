// `shadowlog replay … --wire | sha256sum` prints the digest the log recorded (issue 26, item 6),
// for every kind of call that has bytes: one the harness sent, a summarizer's call
// (`--compaction ID`), one the real proxy recorded on the surface (JSON with odd spacing and
// characters beyond ASCII, stored as received), and one it recorded off the surface (bytes that
// are not UTF-8, stored as base64). Each runs as a real process, its stdout piped into a real
// `sha256sum`, as docs/proxy.md shows it: a newline after the bytes, or any other byte, changes
// the digest.

import { execFile } from 'node:child_process';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import { dataOf } from '../../src/log/event-data.js';
import { startProxy } from '../../src/proxy/index.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { startChatCompletionUpstream } from '../support/chat-completion-upstream.js';
import { createCliWorkspace } from '../support/cli.js';
import { nodeScriptArgs } from '../support/node-script.js';
import { readAll, recordSession } from './support/recorded-session.js';

const ROOT = resolve(import.meta.dirname, '../..');
const ENTRY = resolve(ROOT, 'test/support/cli-entry.ts');
const run = promisify(execFile);

// Spaces where a serializer puts none, and text beyond ASCII: only the bytes as sent hash right.
const ON_SURFACE = Buffer.from('{"model":"gpt-4o",  "messages":[{"role":"user","content":"héllo ✓ 🙂"}]}\n', 'utf8');
// Not UTF-8: the proxy cannot read it (off the surface) and stores it as base64.
const NOT_UTF8 = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x22, 0x7d]);

describe('replay --wire | sha256sum', () => {
  const workspace = createCliWorkspace();
  const storePath = resolve(workspace.cwd, 'store.db');
  const digests = new Map<string, { args: string[]; digest: string }>();
  let upstream: Server;

  beforeAll(async () => {
    const store = await openSqliteStore(storePath);
    const events = await recordSession(store, 'sent');
    const request = events.find((event) => event.type === 'model/request');
    const summary = events.find((event) => event.type === COMPACTION_SUMMARY);
    if (request === undefined || summary === undefined) throw new Error('the recorded session has no call or no compaction');
    const call = dataOf(request, 'model/request');
    digests.set('a call the harness sent', {
      args: ['sent', '--turn', String(call.turn), '--step', String(call.step)],
      digest: call.requestDigest as string,
    });
    const summaryData = summary.data as { compactionId: string; requestDigest: string };
    digests.set("a summarizer's call", { args: ['sent', '--compaction', summaryData.compactionId], digest: summaryData.requestDigest });

    const any = await startChatCompletionUpstream({ created: 1_700_000_000, model: 'gpt-4o-2024-08-06' });
    upstream = any.server;
    const proxy = await startProxy({ store, upstreams: { openai: any.url }, port: 0 });
    for (const body of [ON_SURFACE, NOT_UTF8]) {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shadowlog-session': 'proxied' },
        body,
      });
      await response.arrayBuffer();
    }
    await proxy.settled();
    await proxy.close();
    const requests = (await readAll(store, 'proxied')).filter((event) => event.type === 'model/request');
    await store.close();
    const [onSurface, offSurface] = requests.map((event) => dataOf(event, 'model/request'));
    if (onSurface?.provenance !== 'proxied' || offSurface?.provenance !== 'proxied') throw new Error('the proxy recorded no calls');
    expect(offSurface.requestBody.encoding).toBe('base64');
    expect((offSurface as { proxy?: { unparsed?: unknown } }).proxy?.unparsed).toEqual(expect.any(String));
    digests.set('a proxied call on the surface', {
      args: ['proxied', '--turn', String(onSurface.turn), '--step', String(onSurface.step)],
      digest: onSurface.requestDigest,
    });
    digests.set('a proxied call off the surface, stored as base64', {
      args: ['proxied', '--turn', String(offSurface.turn), '--step', String(offSurface.step)],
      digest: offSurface.requestDigest,
    });
  }, 60_000);
  afterAll(async () => {
    if (upstream !== undefined) await new Promise((done) => upstream.close(done));
    workspace.cleanup();
  });

  it.each([
    'a call the harness sent',
    "a summarizer's call",
    'a proxied call on the surface',
    'a proxied call off the surface, stored as base64',
  ])(
    'prints the recorded digest for %s',
    async (name) => {
      const { args, digest } = digests.get(name) as { args: string[]; digest: string };
      const command = [process.execPath, ...nodeScriptArgs(ENTRY), '--store', `sqlite:${storePath}`, 'replay', ...args, '--wire']
        .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
        .join(' ');
      const { stdout, stderr } = await run('bash', ['-c', `set -o pipefail; ${command} | sha256sum`], { cwd: ROOT });
      expect(stderr).toBe('');
      expect(stdout).toBe(`${digest}  -\n`);
    },
    30_000,
  );

  it('refuses --wire with --json: raw bytes and a JSON document cannot share stdout', async () => {
    const result = await workspace.run(['--json', '--store', `sqlite:${storePath}`, 'replay', 'proxied', '--turn', '1', '--wire']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: 'USAGE',
        message: '--wire prints the raw request bytes and --json one JSON document about the call; give one of them',
      },
    });
  });
});
