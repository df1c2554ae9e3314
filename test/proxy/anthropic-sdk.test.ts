// The official @anthropic-ai/sdk client through the proxy, in front of the fake upstream: a
// tool-using conversation, non-streaming and streaming, then a compaction the client does itself
// (it replaces its history with a summary and keeps a tail). The record holds everything, the
// compaction is a replacement whose sources are every message the client dropped, the API key
// is nowhere in the store's file, and every call replays to the bytes the upstream received.

import { readFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import type { LogEvent } from '../../src/log/event.js';
import { dataOf } from '../../src/log/event-data.js';
import { origins } from '../../src/log/origins.js';
import { asSessionSeq } from '../../src/log/seq.js';
import { verifyLog } from '../../src/log/verify.js';
import { replay } from '../../src/spine/replay.js';
import { answerJson, answerStream } from './proxy-answers.js';
import { describeSurface, type ProxyHarness, sha256, startProxyHarness } from './proxy-harness.js';

let harness: ProxyHarness;
beforeEach(async () => {
  harness = await startProxyHarness();
});
afterEach(async () => {
  await harness.close();
});

const API_KEY = 'sk-ant-proxy-secret-9f8e7d6c5b4a';
const tools = [
  { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } },
];

describe.each([false, true])('Anthropic Messages through the proxy (stream: %s)', (stream) => {
  it('records tool use, then the client’s own compaction as a replacement of everything it dropped', async () => {
    const client = new Anthropic({ apiKey: API_KEY, baseURL: harness.proxy.url, maxRetries: 0 });
    const answer = stream ? answerStream : answerJson;
    harness.upstream.enqueue(
      answer('anthropic', { tool: { id: 'toolu_1', name: 'read_file', arguments: { path: 'a.txt' } } }, 1),
      answer('anthropic', { text: 'a.txt holds 1.' }, 2),
      answer('anthropic', { tool: { id: 'toolu_2', name: 'read_file', arguments: { path: 'b.txt' } } }, 3),
      answer('anthropic', { text: 'b.txt holds 2.' }, 4),
      answer('anthropic', { text: 'Both hold numbers.' }, 5),
    );
    const system = 'You read files.';
    const messages: MessageParam[] = [];
    const ask = async (): Promise<MessageParam> => {
      const params = { model: 'claude-opus-4-6', max_tokens: 1024, system, messages, tools, metadata: { user_id: 'user_1_session_a' } };
      const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      return { role: 'assistant', content: message.content };
    };
    messages.push({ role: 'user', content: 'Read a.txt' });
    messages.push(await ask());
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '1' }] });
    messages.push(await ask());
    messages.push({ role: 'user', content: 'Now b.txt' });
    messages.push(await ask());
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: '2' }] });
    messages.push(await ask());
    // The client compacts: a summary in place of the first turn, the second turn kept.
    const tail = messages.slice(4);
    messages.length = 0;
    messages.push(
      { role: 'user', content: 'Summary of the conversation so far: a.txt holds 1.' },
      { role: 'assistant', content: 'Understood.' },
      ...tail,
      { role: 'user', content: 'What do they hold?' },
    );
    expect((await ask()).content).toEqual([{ type: 'text', text: 'Both hold numbers.' }]);
    expect(harness.upstream.violations).toEqual([]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    const events = await harness.events('proxied-1');
    const surface = describeSurface(events);
    expect(surface).toEqual([
      '2 system/message: You read files.',
      '3 user/message: Read a.txt',
      '5 assistant/message: Let me look. → read_file',
      '6 tool/result: 1',
      '8 assistant/message: a.txt holds 1.',
      '11 user/message: Now b.txt',
      '13 assistant/message: Let me look. → read_file',
      '14 tool/result: 2',
      '16 assistant/message: b.txt holds 2.',
      '19 user/message (replaces): Summary of the conversation so far: a.txt holds 1.',
      '20 assistant/message: Understood.',
      '21 user/message: What do they hold?',
      '23 assistant/message: Both hold numbers.',
    ]);
    const replacement = events[19];
    expect(replacement?.surfaceOp).toEqual({ op: 'replace', startSeq: 3, endSeq: 8 });
    expect(replacement?.sourceEventSeqs).toEqual([3, 5, 6, 8]);
    const byseq = new Map(events.map((event) => [event.seq, event]));
    expect(await origins(asSessionSeq(19), async (seq) => byseq.get(seq) as LogEvent)).toEqual([3, 5, 6, 8]);
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
      [2, 2],
      [3, 1],
    ]);
    const last = calls[4] as unknown as { proxy: { rewrite: unknown; redactedHeaders: string[]; headers: Record<string, string> } };
    expect(last.proxy.rewrite).toEqual({ shadowedSeqs: [3, 5, 6, 8], replacementCount: 2, retained: 4, wide: false });
    // The SDK sends its key in a credential header (this version: authorization); the log names it as redacted.
    expect(last.proxy.redactedHeaders.length).toBe(1);
    for (const name of last.proxy.redactedHeaders) expect(last.proxy.headers[name]).toBe('[redacted]');
    // The key went to the upstream, and is nowhere in the store.
    expect(harness.upstream.requests.every((request) => JSON.stringify(request.headers).includes(API_KEY))).toBe(true);
    const received = harness.upstream.requests.map((request) => request.body);
    for (const [index, call] of calls.entries()) {
      expect(call.requestDigest).toBe(sha256(received[index] as string));
      const result = await replay(harness.store, 'proxied-1', { turn: call.turn, step: call.step }, { resolveRenderer: rendererFor });
      expect(Buffer.from(result.wireBody ?? []).toString('utf8')).toBe(received[index]);
    }
    expect((await verifyLog(harness.store.read('proxied-1'))).ok).toBe(true);
    for (const suffix of ['', '-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(`${harness.storePath}${suffix}`);
      } catch {
        continue;
      }
      expect(bytes.includes(API_KEY)).toBe(false);
      expect(bytes.includes('proxy-secret')).toBe(false);
    }
  });
});
