// The recording proxy exporting live: its store wrapped by the live exporter, an OpenAI client's
// tool-using conversation arrives at the OTLP receiver as chat spans (with the finish reasons and
// response ids the proxy records) and an execute_tool span, the same spans a later export sends.

import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLiveOtelExport, type LiveOtelExport, type SessionSpan, sessionSpanBatches } from '../../src/otel/index.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { type ProxyHarness, startProxyHarness } from '../proxy/proxy-harness.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';

let receiver: OtlpReceiver;
let live: LiveOtelExport;
let harness: ProxyHarness;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
  live = createLiveOtelExport({ endpoint: receiver.url, flushIntervalMs: 10 });
  harness = await startProxyHarness({ wrapStore: (store) => live.wrapStore(store) });
});
afterEach(async () => {
  await harness.close();
  await receiver.close();
});

describe('the proxy with live export', () => {
  it('sends each proxied call as a chat span as it is recorded', async () => {
    harness.upstream.enqueue(
      answerJson('openai', { tool: { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } } }, 1),
      answerJson('openai', { text: 'The README says hello.' }, 2),
    );
    const client = new OpenAI({ apiKey: 'sk-proxy-test-0123456789abcdef', baseURL: `${harness.proxy.url}/v1`, maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      },
    ];
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'What does the README say?' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    messages.push(first.choices[0]?.message as ChatCompletionMessageParam, { role: 'tool', tool_call_id: 'call_1', content: 'hello' });
    await client.chat.completions.create({ model: 'gpt-4o', messages, tools });
    await harness.proxy.close();
    const stats = await live.close();
    expect(stats.spansDropped).toBe(0);

    const spans = receiver.spans();
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    expect(chats.map((span) => span.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool_call'], ['stop']]);
    expect(
      chats.every(
        (span) => span.attributes['gen_ai.request.model'] === 'gpt-4o' && span.attributes['shadowlog.request.provenance'] === 'proxied',
      ),
    ).toBe(true);
    const tool = spans.find((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tool?.attributes['gen_ai.tool.name']).toBe('read_file');

    const sessionId = harness.proxy.sessionIds()[0] as string;
    const exported: SessionSpan[] = [];
    for await (const batch of sessionSpanBatches(harness.store, sessionId)) exported.push(...batch);
    expect(spans.map((span) => span.spanId).sort()).toEqual(exported.map((span) => span.spanId).sort());
  });
});
