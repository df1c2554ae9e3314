// An ai@6 app's tool loop through the recorder, with @ai-sdk/openai against the fake provider:
// generateText and streamText, each call a step of the turn, every digest the sha256 of the
// bytes the server received, and `replay --turn 1 --step 2 --wire` through the CLI gives them.

import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAiSdkRecorder } from '../../src/ai-sdk/index.js';
import { dataOf } from '../../src/log/event-data.js';
import { answerJson, answerStream } from '../proxy/proxy-answers.js';
import { createCliWorkspace } from '../support/cli.js';
import { type AiSdkHarness, describeSurface, sha256, startAiSdkHarness, verifyAndReplay } from './ai-sdk-harness.js';

let harness: AiSdkHarness;
beforeEach(async () => {
  harness = await startAiSdkHarness();
});
afterEach(async () => {
  await harness.close();
});

const readFile = tool({
  description: 'Reads a file',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }) => `contents of ${path}: hello`,
});

describe.each(['generate', 'stream'] as const)('an ai@6 tool loop through the recorder (%s)', (mode) => {
  it('lands in the log as one turn of two steps, verifies, and replays to the bytes the server received', async () => {
    const answer = mode === 'stream' ? answerStream : answerJson;
    harness.upstream.enqueue(
      answer('openai', { tool: { id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } } }, 1),
      answer('openai', { text: 'The README says hello.' }, 2),
    );
    const recorder = await createAiSdkRecorder({
      store: `sqlite:${harness.storePath}`,
      sessionId: 'app-1',
      onRecordError: (error) => harness.recordErrors.push(error),
    });
    const openai = createOpenAI({ baseURL: `${harness.upstream.baseUrl}/v1`, apiKey: 'sk-test', fetch: recorder.fetch });
    const model = wrapLanguageModel({ model: openai.chat('gpt-4o'), middleware: recorder.middleware });
    const messages: ModelMessage[] = [{ role: 'user', content: 'What does the README say?' }];
    const options = { model, system: 'You are terse.', messages, tools: { read_file: readFile }, stopWhen: stepCountIs(5) };
    let text: string;
    if (mode === 'generate') text = (await generateText(options)).text;
    else {
      const result = streamText(options);
      text = '';
      for await (const delta of result.textStream) text += delta;
    }
    expect(text).toBe('The README says hello.');
    await recorder.close();

    const events = await harness.events('app-1');
    expect(describeSurface(events)).toEqual([
      'system/message: You are terse.',
      'user/message: What does the README say?',
      'assistant/message:  → read_file',
      'tool/result: contents of README.md: hello',
      'assistant/message: The README says hello.',
    ]);
    expect(events.map((event) => event.type).filter((type) => !type.endsWith('/message') && type !== 'tool/result')).toEqual([
      'session/start',
      'turn/start',
      'model/request',
      'model/request',
      'turn/end',
    ]);
    const store = await harness.store();
    const { report, calls, replays } = await verifyAndReplay(store, 'app-1');
    expect(report.ok).toBe(true);
    expect(calls.map((call) => [call.turn, call.step])).toEqual([
      [1, 1],
      [1, 2],
    ]);
    const received = harness.upstream.requests.map((request) => request.body);
    expect(calls.map((call) => call.requestDigest)).toEqual(received.map((body) => sha256(body)));
    for (const [index, result] of replays.entries()) {
      expect(result.verified).toBe(true);
      expect(Buffer.from(result.wireBody ?? new Uint8Array()).toString('utf8')).toBe(received[index]);
    }
    const answers = events.filter((event) => event.type === 'assistant/message').map((event) => dataOf(event, 'assistant/message'));
    expect(answers[0]?.usage).toMatchObject({ inputTokens: 20, outputTokens: 5 });
    expect(answers.map((data) => (data as unknown as { finishReason: string }).finishReason)).toEqual(['tool-calls', 'stop']);

    const cli = createCliWorkspace();
    try {
      const wire = await cli.run(['replay', 'app-1', '--turn', '1', '--step', '2', '--wire', '--store', `sqlite:${harness.storePath}`]);
      expect(wire.stderr).toBe('');
      expect(wire.code).toBe(0);
      expect(wire.stdout).toBe(received[1]);
      const verify = await cli.run(['verify', 'app-1', '--store', `sqlite:${harness.storePath}`]);
      expect(verify.code).toBe(0);
    } finally {
      cli.cleanup();
    }
    expect(harness.recordErrors).toEqual([]);
  });
});
