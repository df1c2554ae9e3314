// What a proxy session matches the next request against (its keys) once its calls are written:
// the keys of the surface its log holds, whatever order concurrent calls ended in and whatever
// the log made of their answers. Driven on a ProxySession directly, over a memory store.

import { describe, expect, it } from 'vitest';
import { keyOfNode } from '../../src/proxy/node-keys.js';
import { PROTOCOLS } from '../../src/proxy/protocols.js';
import { type CallOutcome, ProxySession, type ReceivedCall } from '../../src/proxy/proxy-session.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { sha256 } from './proxy-harness.js';

const chat = PROTOCOLS.find((protocol) => protocol.name === 'openai-chat');

function received(messages: object[]): ReceivedCall {
  if (chat === undefined) throw new Error('no openai-chat protocol');
  const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages }));
  return {
    protocol: chat,
    path: '/v1/chat/completions',
    body,
    digest: sha256(body),
    request: chat.readRequest(JSON.parse(body.toString('utf8'))),
    headers: {},
    redactedHeaders: [],
  };
}

function answer(text: string, toolCallId?: string): CallOutcome {
  return {
    kind: 'answer',
    status: 200,
    result: {
      content: text === '' ? [] : [{ type: 'text', text }],
      toolCalls: toolCallId === undefined ? [] : [{ callId: toolCallId, name: 'grep', arguments: { pattern: 'x' } }],
      finishReason: toolCallId === undefined ? 'stop' : 'tool-calls',
    },
    raw: { format: 'json', text: '{}' },
  };
}

async function logKeys(store: MemoryLogStore, id: string): Promise<string[]> {
  const log = await SessionLog.open(store, id);
  return log.fold.toArray().map(keyOfNode);
}

describe('proxy session keys', () => {
  it('match the log once concurrent calls are written, though the earlier-routed one ended last and the log refused its answer', async () => {
    const store = new MemoryLogStore();
    const errors: unknown[] = [];
    const session = ProxySession.start(store, 'keys', 'openai-chat', (error) => errors.push(error));
    // A history with tool call call_1 in it; both calls send it.
    const history = [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'grep', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'found' },
      { role: 'user', content: 'and now?' },
    ];
    const first = received(history);
    const second = received(history);
    session.begin(first, 'match');
    session.begin(second, 'match');
    // The later call is answered first; the earlier one's answer repeats call_1, which the log refuses (a model/unrecorded-answer).
    const written = [session.finish(second, answer('done')), session.finish(first, answer('', 'call_1'))];
    expect(await Promise.all(written)).toEqual([true, true]);
    await session.settled();
    expect(errors).toEqual([]);
    const events = [];
    for await (const page of store.read('keys')) events.push(...page);
    expect(events.filter((event) => event.type === 'model/unrecorded-answer')).toHaveLength(1);
    expect(session.keys).toEqual(await logKeys(store, 'keys'));
    await session.close();
  });

  it('match the log after a call off the surface, and after a failed one', async () => {
    const store = new MemoryLogStore();
    const session = ProxySession.start(store, 'off', 'openai-chat', () => {});
    const opening = received([{ role: 'user', content: 'hello' }]);
    session.begin(opening, 'match');
    await session.finish(opening, answer('hi'));
    // A lone tool message: its messages cannot be written as a change of the surface.
    const lone = received([{ role: 'tool', tool_call_id: 'nope', content: 'x' }]);
    session.begin(lone, 'match');
    await session.finish(lone, answer('what?'));
    expect(session.keys).toEqual(await logKeys(store, 'off'));
    const failed = received([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'more' },
    ]);
    session.begin(failed, 'match');
    await session.finish(failed, {
      kind: 'failure',
      code: 'PROVIDER_RATE_LIMIT',
      message: 'slow down',
      retryable: true,
      contextOverflow: false,
    });
    expect(session.keys).toEqual(await logKeys(store, 'off'));
    await session.close();
  });
});
