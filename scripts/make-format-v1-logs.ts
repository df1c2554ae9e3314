// Writes test/log/fixtures/format-v1.sqlite and format-v1.jsonl: one session in log format
// version 1 (plain surfaceSeqs lists, usage {inputTokens, outputTokens}, tool errors as
// {message}), with tool calls, a failed tool, a pruned result and model-written compactions,
// so that a test proves a format-2 reader opens, verifies, replays, shows, counts and continues
// what version 1 wrote. It must run on the code of a version-1 commit, not on today's:
//
//   mkdir /tmp/v1 && git archive 2f73de7 | tar -x -C /tmp/v1 && ln -s "$PWD/node_modules" /tmp/v1/node_modules
//   cp scripts/make-format-v1-logs.ts /tmp/v1/scripts/ && (cd /tmp/v1 && npx tsx scripts/make-format-v1-logs.ts "$OLDPWD/test/log/fixtures")
//
// (It was first run in this tree before format 2 was written, at 2f73de7.)
import { createWriteStream, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import { createCompaction } from '../src/compaction/compaction-capability.js';
import { createToolResultPruner } from '../src/compaction/tool-result-pruner.js';
import { type ScriptedCall, ScriptedModel } from '../src/providers/scripted-model.js';
import { createHarness } from '../src/spine/harness.js';
import { defineTool } from '../src/spine/tool.js';
import { exportSession } from '../src/store/jsonl.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';

const SESSION_ID = 'format-v1';
const LIMITS = { contextWindow: 3_000, defaultMaxOutputTokens: 300 };
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => {
    if (topic.endsWith('3')) throw new Error(`no entry for ${topic}`);
    return `${topic}: ${'fact '.repeat(topic.endsWith('2') ? 900 : 120)}`;
  },
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

const directory = process.argv[2] as string;
const databasePath = `${directory}/format-v1.sqlite`;
rmSync(databasePath, { force: true });
const store = await openSqliteStore(databasePath);
const harness = createHarness({
  store,
  model: new ScriptedModel({ replies, limits: LIMITS }),
  tools: [lookup],
  systemPrompt: 'You are a research assistant.',
  capabilities: [
    createCompaction({
      config: { headroomTokens: 0, summarizer: { kind: 'session-model' } },
      pruner: createToolResultPruner({ thresholdChars: 2048, headChars: 512, tailChars: 256 }),
    }),
  ],
  now: clock(),
});
const session = await harness.createSession(SESSION_ID);
for (let turn = 1; turn <= 12; turn++) await session.send(`Tell me about thing ${turn}.`);
await session.close();
const out = createWriteStream(`${directory}/format-v1.jsonl`);
await exportSession(store, SESSION_ID, out);
out.end();
await finished(out);
await store.close();
