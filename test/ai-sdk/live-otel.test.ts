// Live OpenTelemetry export from an AI SDK app: the recorder's store wrapped by the live exporter
// (shadowlog/otel's wrapStore), the official OTLP exporter sending to a receiver on 127.0.0.1. The
// app's tool loop arrives as spans while it runs — a chat span per model call with its model and
// input tokens, the tool call as execute_tool — and the log is the same as without the export.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import { createLiveOtelExport } from '../../src/otel/index.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { type OtlpReceiver, startOtlpReceiver } from '../otel/otlp-receiver.js';
import { answerJson } from '../proxy/proxy-answers.js';
import { type AiSdkHarness, startAiSdkHarness, verifyAndReplay } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
let receiver: OtlpReceiver;
beforeEach(async () => {
  harness = await startAiSdkHarness();
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await harness.close();
  await receiver.close();
});

const readFile = tool({
  description: 'Reads a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }) => `contents of ${path}: hello`,
});

describe('an AI SDK app exporting live to OpenTelemetry', () => {
  it('sends a chat span per model call and the tool call, from a store wrapped by the live exporter', async () => {
    harness.upstream.enqueue(
      answerJson('openai', { tool: { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } } }, 1),
      answerJson('openai', { text: 'The README says hello.' }, 2),
    );
    const live = createLiveOtelExport({ endpoint: receiver.url, protocol: 'http/json', flushIntervalMs: 50 });
    const store = new MemoryLogStore();
    const recorder = await createAiSdkRecorder({ store: live.wrapStore(store), sessionId: 'live-1' });
    const openai = createOpenAI({ baseURL: `${harness.upstream.baseUrl}/v1`, apiKey: 'sk-test', fetch: recorder.fetch });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware: recorder.middleware });
    const { text } = await generateText({
      model,
      messages: [{ role: 'user', content: 'What does the README say?' }],
      tools: { read_file: readFile },
      stopWhen: stepCountIs(5),
    });
    expect(text).toBe('The README says hello.');
    await recorder.close();
    const stats = await live.close();
    expect(stats.failedExports).toBe(0);

    const spans = receiver.spans();
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.attributes['gen_ai.request.model']).toBe('gpt-4o');
      expect(chat.attributes['gen_ai.usage.input_tokens']).toEqual(expect.any(Number));
      expect(chat.attributes['gen_ai.conversation.id']).toBe('live-1');
    }
    const tools = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(tools.map((span) => span.attributes['gen_ai.tool.name'])).toEqual(['read_file']);
    // Every span's parent arrived too.
    const ids = new Set(spans.map((span) => span.spanId));
    expect(spans.filter((span) => span.parentSpanId !== '' && !ids.has(span.parentSpanId))).toEqual([]);
    // The log is whole and verifies, as without the export.
    const { report } = await verifyAndReplay(store, 'live-1');
    expect(report.ok).toBe(true);
  });
});
