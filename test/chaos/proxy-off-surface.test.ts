// A proxied call whose messages are not on the session's surface (issue 25, item 4): a lone tool
// message, which the log's rules cannot write as a change of the surface (proxy.unmatched), and a
// body that is not JSON (proxy.unparsed), sent through the real proxy to an upstream on loopback
// that answers anything. The digest of such a call proves its bytes, and nothing else: replay
// lists the body's own messages (or says they cannot be read), never the session's surface; the
// page puts no "digest verified" beside a surface it did not send; stats --calls does not price
// it; and its answer is kept in the log but never appended to the surface, nor to the keys the
// next request is matched by.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { startProxy } from '../../src/proxy/index.js';
import { SessionLog } from '../../src/store/session-log.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { HAS_CHROMIUM, launchChromium, watchedPage } from '../view/browser.js';

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * An upstream that answers any chat request: the text names the last message it was sent; the
 * input count is the body's length. A body that says "refuse me" gets a 400.
 */
async function lenientUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts);
      if (body.includes('refuse me')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: 'refused', type: 'invalid_request_error', param: null, code: null } }));
        return;
      }
      let last = 'an unreadable body';
      try {
        const messages = (JSON.parse(body.toString('utf8')) as { messages: Array<{ content: unknown }> }).messages;
        last = JSON.stringify(messages.at(-1)?.content);
      } catch {}
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${sha256(body).slice(0, 8)}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'gpt-4o-2024-08-06',
          choices: [{ index: 0, message: { role: 'assistant', content: `answer to ${last}` }, finish_reason: 'stop' }],
          usage: { prompt_tokens: body.length, completion_tokens: 4, total_tokens: body.length + 4 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const SYSTEM = { role: 'system', content: 'be brief' };
const HELLO = { role: 'user', content: 'hello' };
const LONE_TOOL = JSON.stringify({
  model: 'gpt-4o',
  messages: [{ role: 'tool', tool_call_id: 'call_nope', content: 'a lone tool output' }],
});
const NOT_JSON = 'this is not json';

describe("a proxied call off the session's surface", () => {
  const workspace = createCliWorkspace();
  const storePath = join(workspace.cwd, '.shadowlog/shadowlog.db');
  let upstream: Server;
  const events: LogEvent[] = [];
  let joinedKeys: { newSession: boolean; surface: string[]; afterFailure: string[] } | undefined;
  const run = (args: string[]) => workspace.run(args);

  beforeAll(async () => {
    const lenient = await lenientUpstream();
    upstream = lenient.server;
    const store = await openSqliteStore(storePath);
    let counter = 0;
    const proxy = await startProxy({ store, upstreams: { openai: lenient.url }, port: 0, newSessionId: () => `unnamed-${++counter}` });
    const send = async (body: string, session?: string, status = 200) => {
      const response = await fetch(`${proxy.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(session === undefined ? {} : { 'x-shadowlog-session': session }) },
        body,
      });
      expect(response.status).toBe(status);
      await response.arrayBuffer();
    };
    await send(JSON.stringify({ model: 'gpt-4o', messages: [SYSTEM, HELLO] }), 'off');
    await send(LONE_TOOL, 'off');
    await send(NOT_JSON, 'off');
    // The client goes on from its own history: it extends the surface as the log holds it.
    const again = [SYSTEM, HELLO, { role: 'assistant', content: 'answer to "hello"' }, { role: 'user', content: 'again' }];
    await send(JSON.stringify({ model: 'gpt-4o', messages: again }), 'off');
    // Named for the lone tool message, then unnamed: the request joins the session by its keys,
    // which must be those of the log's surface, not of the off-surface request and its answer.
    await send(JSON.stringify({ model: 'gpt-4o', messages: [SYSTEM, { role: 'user', content: 'keys' }] }), 'keys');
    await send(LONE_TOOL, 'keys');
    const next = [SYSTEM, { role: 'user', content: 'keys' }, { role: 'assistant', content: 'answer to "keys"' }, HELLO];
    await send(JSON.stringify({ model: 'gpt-4o', messages: next }));
    // The same when the upstream refuses the off-surface request: nothing of it is on the surface.
    await send(JSON.stringify({ model: 'gpt-4o', messages: [SYSTEM, { role: 'user', content: 'fails' }] }), 'failed');
    const refused = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'tool', tool_call_id: 'call_nope', content: 'refuse me' }] });
    await send(refused, 'failed', 400);
    const after = [SYSTEM, { role: 'user', content: 'fails' }, { role: 'assistant', content: 'answer to "fails"' }, HELLO];
    await send(JSON.stringify({ model: 'gpt-4o', messages: after }));
    await proxy.settled();
    await proxy.close();
    joinedKeys = {
      newSession: (await store.head('unnamed-1')) !== undefined,
      surface: (await SessionLog.open(store, 'keys')).fold.toArray().map((node) => node.event.type),
      afterFailure: (await SessionLog.open(store, 'failed')).fold.toArray().map((node) => node.event.type),
    };
    for await (const page of store.read('off')) events.push(...page);
    expect((await verifyLog(store.read('off'))).ok).toBe(true);
    await store.close();
  });
  afterAll(async () => {
    await new Promise((resolve) => upstream?.close(resolve));
    workspace.cleanup();
  });

  const surfaceTexts = async () => {
    const store = await openSqliteStore(storePath);
    try {
      const log = await SessionLog.open(store, 'off');
      return log.fold.toArray().map((node) => {
        const content = (node.event.data as { content: Array<{ text?: string }> }).content;
        return `${node.event.type}: ${content.map((block) => block.text).join('')}`;
      });
    } finally {
      await store.close();
    }
  };

  it('keeps the answers in the log, and off the surface and the matching keys', async () => {
    const kept = events.filter((event) => event.type === 'model/unrecorded-answer');
    expect(kept.map((event) => [event.data.code, event.ignorable, (event.data.usage as { inputTokens: number }).inputTokens])).toEqual([
      ['PROXY_OFF_SURFACE', true, Buffer.byteLength(LONE_TOOL)],
      ['PROXY_OFF_SURFACE', true, Buffer.byteLength(NOT_JSON)],
    ]);
    expect(kept.map((event) => JSON.parse((event.data.raw as { text: string }).text).choices[0].message.content)).toEqual([
      'answer to "a lone tool output"',
      'answer to an unreadable body',
    ]);
    // Nothing the client did not send is on the surface, and its next request simply extended it.
    expect(await surfaceTexts()).toEqual([
      'system/message: be brief',
      'user/message: hello',
      'assistant/message: answer to "hello"',
      'user/message: again',
      'assistant/message: answer to "again"',
    ]);
    expect(events.filter((event) => event.surfaceOp !== undefined && event.surfaceOp !== 'append')).toEqual([]);
    const joined = ['system/message', 'user/message', 'assistant/message', 'user/message', 'assistant/message'];
    expect(joinedKeys).toEqual({ newSession: false, surface: joined, afterFailure: joined });
  });

  it('replay proves the bytes and lists the messages the body held, never the session surface', async () => {
    const lone = await run(['replay', 'off', '--turn', '1', '--step', '2']);
    expect(lone.code).toBe(0);
    const lines = lone.stdout.trimEnd().split('\n');
    expect(lines[1]).toBe(
      `verified: the request body the proxy received (${Buffer.byteLength(LONE_TOOL)} bytes, stored in the log) hashes to ${sha256(LONE_TOOL)}, the digest recorded when it was received; the hash chain from seq 0 to #6 is intact`,
    );
    expect(lines.slice(2)).toEqual([
      "NOT ON THE SESSION'S SURFACE: the request's messages cannot be written as a change of the session's surface. The digest proves these bytes only; the session's surface at this point is not what the call sent",
      'its body holds 1 message (read from the stored bytes as an openai-chat request):',
      '  tool result call_nope: a lone tool output',
      'and 0 tool definitions; --wire prints the exact request body',
    ]);
    expect(lone.stdout).not.toMatch(/the model received \d/);
    expect(lone.stdout).not.toContain('be brief');

    const unparsed = await run(['replay', 'off', '--turn', '1', '--step', '3']);
    expect(unparsed.code).toBe(0);
    expect(unparsed.stdout).toContain("NOT ON THE SESSION'S SURFACE: the proxy could not read its body: the body is not JSON");
    expect(unparsed.stdout).toContain(
      'what the model received is known only from these bytes; shadowlog cannot list their messages. --wire prints them',
    );
    expect(unparsed.stdout).not.toMatch(/the model received \d/);
    expect(unparsed.stdout).not.toContain('be brief');
    expect((await run(['replay', 'off', '--turn', '1', '--step', '3', '--wire'])).stdout).toBe(NOT_JSON);
  });

  it('replay --json says so too, with the fields it always had', async () => {
    const lone = JSON.parse((await run(['replay', 'off', '--turn', '1', '--step', '2', '--json'])).stdout);
    expect(lone).toMatchObject({ turn: 1, step: 2, requestDigest: sha256(LONE_TOOL), verified: true, request: JSON.parse(LONE_TOOL) });
    expect(lone.offSurface).toEqual({
      reason: "the request's messages cannot be written as a change of the session's surface",
      protocol: 'openai-chat',
      bodyMessages: [{ role: 'tool', callId: 'call_nope', content: [{ type: 'text', text: 'a lone tool output' }], isError: false }],
      bodyNotes: [],
    });
    const unparsed = JSON.parse((await run(['replay', 'off', '--turn', '1', '--step', '3', '--json'])).stdout);
    expect(unparsed).toMatchObject({ requestDigest: sha256(NOT_JSON), verified: true, request: null });
    expect(unparsed.offSurface).toMatchObject({
      protocol: 'openai-chat',
      bodyMessages: null,
      bodyUnreadable: expect.stringContaining('not JSON'),
    });
    // A call on the surface has no offSurface field.
    expect(JSON.parse((await run(['replay', 'off', '--turn', '1', '--json'])).stdout).offSurface).toBeUndefined();
  });

  it('stats --calls prices only the calls on the surface, and lists the others apart', async () => {
    const report = JSON.parse((await run(['stats', 'off', '--calls', '--json'])).stdout);
    expect(report.calls.map((call: { seq: number }) => call.seq)).toEqual([4, 13]);
    expect(report.offSurfaceCalls).toEqual([
      expect.objectContaining({ turn: 1, step: 2, seq: 6, reportedInputTokens: Buffer.byteLength(LONE_TOOL) }),
      expect.objectContaining({
        turn: 1,
        step: 3,
        seq: 8,
        reportedInputTokens: Buffer.byteLength(NOT_JSON),
        reason: expect.stringContaining('not JSON'),
      }),
    ]);
    const text = (await run(['stats', 'off', '--calls'])).stdout.split('\n');
    expect(text[0]).toBe(
      "off: 4 model calls, measured with script-aware, calibrated; 2 not on the session's surface, not estimated (their cost is what their providers reported)",
    );
    expect(text[3]).toBe(
      `   1     2  gpt-4o                                –        ${Buffer.byteLength(LONE_TOOL)}         –    $0.0003  (not on the session's surface, not estimated; replay lists what its body held)`,
    );
    const totals = JSON.parse((await run(['stats', 'off', '--json'])).stdout);
    expect(totals.reportedInputTokens).toBe(
      events
        .filter((event) => event.type === 'assistant/message' || event.type === 'model/unrecorded-answer')
        .reduce((sum, event) => sum + (event.data.usage as { inputTokens: number }).inputTokens, 0),
    );
  });

  it('show --record names the requests as off the surface', async () => {
    const record = (await run(['show', 'off', '--record'])).stdout;
    expect(record).toContain(
      "#6 ·· model request, turn 1 step 2: openai/gpt-4o, received by the proxy, NOT ON THE SESSION'S SURFACE: the request's messages cannot be written as a change of the session's surface (`replay` lists what its body held)",
    );
    expect(record).toContain(
      "#8 ·· model request, turn 1 step 3: openai/unknown, received by the proxy, NOT ON THE SESSION'S SURFACE: the proxy could not read its body",
    );
    expect(record).toContain('#7 !! answer kept as it arrived, turn 1 step 2 (it could not be recorded as a message): PROXY_OFF_SURFACE');
  });

  it.runIf(HAS_CHROMIUM)(
    'the page puts no "digest verified" beside a surface the call did not send, and shows the body it did',
    async () => {
      const file = join(workspace.cwd, 'off.html');
      const written = await run(['view', 'off', '--out', file]);
      expect(written.stdout).toContain("4 model calls (2 digest-verified, 2 not on the session's surface, 0 failed)");
      const browser: Browser = await launchChromium();
      try {
        const { page, incidents } = await watchedPage(browser);
        await page.goto(`file://${file}`);
        expect(await page.locator('#summary').textContent()).toContain(
          "4 model calls (2 digest-verified, 2 not on the session's surface, 0 failed)",
        );
        await page.locator('#timeline .vrow', { hasText: 'call 1.2' }).click();
        expect(await page.locator('#digest-badge').textContent()).toBe(
          `⚠ not on the session's surface · its body's bytes match sha256 ${sha256(LONE_TOOL).slice(0, 12)}…`,
        );
        expect(await page.locator('#panel dl.facts').textContent()).toContain(
          "none: not on the session's surface (the session's 3 nodes here are not what it sent)",
        );
        expect(await page.locator('#diff').textContent()).toContain("Not on the session's surface");
        const body = (await page.locator('#request-body').textContent()) ?? '';
        expect(body).toContain('"tool_call_id": "call_nope"');
        expect(body).toContain('"content": "a lone tool output"');
        // No surface list for it, and nothing in the record is marked as sent.
        expect(await page.locator('#surface').count()).toBe(0);
        expect(await page.locator('#record .vrow.on-surface').count()).toBe(0);
        expect(await page.locator('#panel').textContent()).not.toContain('digest verified');
        writeFileSync(join(tmpdir(), 'shadowlog-view-off-surface.png'), await page.screenshot());

        await page.locator('#timeline .vrow', { hasText: 'call 1.3' }).click();
        expect(await page.locator('#digest-badge').textContent()).toContain("⚠ not on the session's surface");
        expect(await page.locator('#request-body').textContent()).toContain(
          `(not JSON: the text as received; shadowlog replay off --turn 1 --step 3 --wire prints the exact bytes)\n${NOT_JSON}`,
        );
        // The calls on the surface keep their badge.
        await page.locator('#timeline .vrow', { hasText: 'call 2.1' }).click();
        expect(await page.locator('#digest-badge').textContent()).toMatch(/^✓ digest verified · sha256 /);
        expect(incidents.errors).toEqual([]);
        await page.close();
      } finally {
        await browser.close();
      }
    },
  );
});
