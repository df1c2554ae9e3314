// A small AI SDK app recorded by shadowlog (docs/ai-sdk.md): the provider gets the recorder's
// fetch, the model the recorder's middleware, and nothing else changes. With compaction, the
// model is sent the session's surface while `messages` stays whole.
//
//   OPENAI_API_KEY=… npx tsx examples/ai-sdk/app.ts "What is in README.md?"

import { readFile } from 'node:fs/promises';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { createAiSdkRecorder } from 'shadowlog/ai-sdk';

const recorder = await createAiSdkRecorder({
  store: 'sqlite:.shadowlog/shadowlog.db',
  sessionId: 'ai-sdk-example',
  contextWindow: 128_000,
  maxOutputTokens: 4_096,
  compaction: { config: { headroomTokens: 16_384 } },
});

const model = wrapLanguageModel({
  model: createOpenAI({ fetch: recorder.fetch }).chat('gpt-4.1-mini'),
  middleware: recorder.middleware,
});

const readTextFile = tool({
  description: 'Reads a text file of the working directory',
  inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path }) => (await readFile(path, 'utf8')).slice(0, 20_000),
});

const messages: ModelMessage[] = [{ role: 'user', content: process.argv[2] ?? 'What is in README.md?' }];
try {
  const result = await generateText({ model, messages, tools: { read_file: readTextFile }, stopWhen: stepCountIs(8) });
  messages.push(...result.response.messages);
  console.log(result.text);
} finally {
  await recorder.close();
}
console.log(`recorded: npx shadowlog replay ${recorder.sessionId} --turn 1 --step 2 --wire`);
