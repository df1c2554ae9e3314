// The official openai client through the proxy, in front of the fake upstream: chat completions
// with tool use, non-streaming and streaming, recorded as turns and steps, every request's
// bytes replayed to the digest of what the upstream received.

import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rendererFor } from '../../src/cli/renderers.js';
import { dataOf } from '../../src/log/event-data.js';
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

const API_KEY = 'sk-proxy-test-0123456789abcdef';
const client = () => new OpenAI({ apiKey: API_KEY, baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
const tools = [
  { type: 'function' as const, function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];

describe.each([false, true])('openai chat completions through the proxy (stream: %s)', (stream) => {
  it('records a tool-using conversation as turns and steps, and every call replays to the bytes the upstream received', async () => {
    const answer = stream ? answerStream : answerJson;
    harness.upstream.enqueue(
      answer('openai', { tool: { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } } }, 1),
      answer('openai', { text: 'The README says hello.' }, 2),
      answer('openai', { text: 'You are welcome.' }, 3),
    );
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What does the README say?' },
    ];
    const ask = async () => {
      if (!stream) {
        const completion = await client().chat.completions.create({ model: 'gpt-4o', messages, tools });
        return completion.choices[0]?.message as ChatCompletionMessageParam;
      }
      const chunks = await client().chat.completions.create({
        model: 'gpt-4o',
        messages,
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
      let content = '';
      const calls: Array<{ id: string; name: string; arguments: string }> = [];
      for await (const chunk of chunks) {
        const delta = chunk.choices[0]?.delta;
        content += delta?.content ?? '';
        for (const call of delta?.tool_calls ?? []) {
          if (call.id !== undefined) calls.push({ id: call.id, name: call.function?.name ?? '', arguments: '' });
          const last = calls[calls.length - 1];
          if (last !== undefined) last.arguments += call.function?.arguments ?? '';
        }
      }
      return calls.length === 0
        ? ({ role: 'assistant', content } as ChatCompletionMessageParam)
        : ({
            role: 'assistant',
            content: null,
            tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
          } as ChatCompletionMessageParam);
    };
    const first = await ask();
    expect(first).toMatchObject({ tool_calls: [{ id: 'call_1' }] });
    messages.push(first, { role: 'tool', tool_call_id: 'call_1', content: '# Hello' });
    const second = await ask();
    expect(second.content).toBe('The README says hello.');
    messages.push(second, { role: 'user', content: 'Thanks.' });
    expect((await ask()).content).toBe('You are welcome.');
    expect(harness.upstream.violations).toEqual([]);

    expect(harness.proxy.sessionIds()).toEqual(['proxied-1']);
    const events = await harness.events('proxied-1');
    expect(describeSurface(events)).toEqual([
      '2 system/message: You are terse.',
      '3 user/message: What does the README say?',
      '5 assistant/message:  → read_file',
      '6 tool/result: # Hello',
      '8 assistant/message: The README says hello.',
      '11 user/message: Thanks.',
      '13 assistant/message: You are welcome.',
    ]);
    const calls = events.filter((event) => event.type === 'model/request').map((event) => dataOf(event, 'model/request'));
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    expect(events.map((event) => event.type).filter((type) => type.startsWith('turn/'))).toEqual(['turn/start', 'turn/end', 'turn/start']);
    // Each digest is of the bytes the upstream received, and the stored body is those bytes.
    const received = harness.upstream.requests.map((request) => request.body);
    expect(calls.map((call) => call.requestDigest)).toEqual(received.map((body) => sha256(body)));
    for (const [index, call] of calls.entries()) {
      const result = await replay(harness.store, 'proxied-1', { turn: call.turn, step: call.step }, { resolveRenderer: rendererFor });
      expect(result.verified).toBe(true);
      expect(sha256(result.wireBody ?? new Uint8Array())).toBe(sha256(received[index] as string));
    }
    const answered = events.filter((event) => event.type === 'assistant/message').map((event) => dataOf(event, 'assistant/message'));
    expect(answered[0]?.usage).toEqual({ inputTokens: 20, outputTokens: 5 });
    expect((await verifyLog(harness.store.read('proxied-1'))).ok).toBe(true);
    expect(harness.recordErrors).toEqual([]);
  });
});
