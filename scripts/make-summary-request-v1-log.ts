// Writes test/compaction/fixtures/summary-request-v1.jsonl: a session whose compactions used the
// model summarizer as the code before summary-request/2 did (summary-request/1), so that a test
// proves those logs still replay. It must run on that code, not on today's:
//
//   mkdir /tmp/v1 && git archive 024f83f | tar -x -C /tmp/v1 && ln -s "$PWD/node_modules" /tmp/v1/node_modules
//   cp scripts/make-summary-request-v1-log.ts /tmp/v1/scripts/ && (cd /tmp/v1 && npx tsx scripts/make-summary-request-v1-log.ts "$OLDPWD/test/compaction/fixtures/summary-request-v1.jsonl")
import { createWriteStream } from 'node:fs';
import { z } from 'zod';
import { createCompaction } from '../src/compaction/compaction-capability.js';
import { type ScriptedCall, ScriptedModel } from '../src/providers/scripted-model.js';
import { createHarness } from '../src/spine/harness.js';
import { defineTool } from '../src/spine/tool.js';
import { exportSession } from '../src/store/jsonl.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';

const LIMITS = { contextWindow: 3_000, defaultMaxOutputTokens: 300 };
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => `${topic}: ${'fact '.repeat(120)}`,
});
function replies(call: ScriptedCall) {
  const tools = call.body.tools as unknown[];
  if (tools.length === 0) return { text: 'The user asked about several topics; each was looked up.' };
  const last = call.messages[call.messages.length - 1];
  return last?.role === 'user'
    ? { toolCalls: [{ name: 'lookup', arguments: { topic: `topic ${call.index}` } }] }
    : { text: `Noted. ${'detail '.repeat(30)}` };
}
/** One second per event from a fixed start (compaction ids stay random). */
function clock(): () => string {
  let time = Date.parse('2026-01-01T00:00:00Z');
  return () => {
    time += 1000;
    return new Date(time).toISOString();
  };
}

const store = new MemoryLogStore();
const harness = createHarness({
  store,
  model: new ScriptedModel({ replies, limits: LIMITS }),
  tools: [lookup],
  capabilities: [createCompaction({ config: { headroomTokens: 0, summarizer: { kind: 'session-model' } } })],
  now: clock(),
});
const session = await harness.createSession('summary-v1');
for (let turn = 1; turn <= 30; turn++) await session.send(`Tell me about thing ${turn}.`);
await session.close();
const out = createWriteStream(process.argv[2] as string);
await exportSession(store, 'summary-v1', out);
out.end();
