// Writes examples/sample-session.jsonl: a short coding-agent session, built event by event
// through the public API, with one pruned tool result and two compactions (the second
// summarizes the first). Its summaries are written by hand here, and say so: they show the
// log's shape, not a summarizer. Deterministic: fixed times, so the file is reproducible.
//
//   npx tsx scripts/make-sample-session.ts

import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { EventDraft, LogEvent } from '../src/index.js';
import { exportSession, MemoryLogStore, SessionLog } from '../src/index.js';

const SESSION_ID = 'sample-fix-parser';
let clock = Date.parse('2026-11-02T09:00:00.000Z');
const now = () => {
  clock += 1500;
  return new Date(clock).toISOString();
};
const text = (value: string) => [{ type: 'text', text: value }];

const store = new MemoryLogStore();
const log = await SessionLog.create(store, SESSION_ID, { now, harnessVersion: '0.1.0' });
const append = async (...drafts: EventDraft[]): Promise<readonly LogEvent[]> => log.append(drafts);
const seqOf = (events: readonly LogEvent[], index = 0) => (events[index] as LogEvent).seq;

const user = (value: string): EventDraft => ({ type: 'user/message', data: { content: text(value) }, surfaceOp: 'append' });
const assistant = (value: string, calls: Array<[string, string, Record<string, unknown>]> = []): EventDraft => ({
  type: 'assistant/message',
  data: {
    content: text(value),
    toolCalls: calls.map(([callId, name, args]) => ({ callId, name, arguments: args })),
    model: 'scripted',
    usage: { inputTokens: 0, outputTokens: 0 },
  },
  surfaceOp: 'append',
});
const result = (callId: string, value: string): EventDraft => ({
  type: 'tool/result',
  data: { callId, content: text(value) },
  surfaceOp: 'append',
});
const turn = (type: 'turn/start' | 'turn/end', number: number): EventDraft => ({
  type,
  data: type === 'turn/start' ? { turn: number } : { turn: number, reason: 'completed' },
});

const parserSource = Array.from({ length: 400 }, (_, line) =>
  line === 211
    ? '  if (token.kind = "comma") { // BUG: assignment, not comparison'
    : `  // parser.ts line ${line + 1}: tokenizer state machine`,
).join('\n');

await append({
  type: 'system/message',
  data: { content: text('You are a coding agent working in the repository ./sample-project. Use the tools to read files and run tests.') },
  surfaceOp: 'append',
});

await append(turn('turn/start', 1), user('The CSV parser drops the last field of every row. Find out why.'));
await append(assistant('Let me look at the parser.', [['call-1', 'read_file', { path: 'src/parser.ts' }]]));
const bigResult = await append(result('call-1', parserSource));
await append(
  assistant('Line 212 assigns instead of comparing: `token.kind = "comma"` is always truthy, so the last field is treated as a separator.'),
  turn('turn/end', 1),
);

await append(turn('turn/start', 2), user('Fix it and run the tests.'));
await append(
  assistant('Fixing the comparison.', [
    ['call-2', 'edit_file', { path: 'src/parser.ts', line: 212, text: '  if (token.kind === "comma") {' }],
  ]),
);
await append(result('call-2', 'edited src/parser.ts: 1 line changed'));
await append(assistant('Running the tests.', [['call-3', 'run_tests', {}]]));
await append(result('call-3', 'PASS test/parser.test.ts (14 tests)\nPASS test/cli.test.ts (6 tests)\n20 passed, 0 failed'));
await append(assistant('All 20 tests pass.'), turn('turn/end', 2));

// The pruner shadows the large file read with its head and tail (SPEC §9).
const original = parserSource;
const head = [...original].slice(0, 300).join('');
const tail = [...original].slice(-120).join('');
const omitted = [...original].length - 300 - 120;
const bigSeq = seqOf(bigResult);
const prune = await append({
  type: 'compaction/prune',
  data: { shadowedSeqs: [bigSeq], shadowedTokenCount: 4100, charsBefore: [...original].length, charsAfter: 300 + 120 },
  ignorable: true,
});
await append({
  type: 'tool/result',
  data: { callId: 'call-1', content: text(`${head}\n[… ${omitted} characters omitted; the original is event #${bigSeq} …]\n${tail}`) },
  surfaceOp: { op: 'replace', startSeq: bigSeq as never, endSeq: bigSeq as never },
  sourceEventSeqs: [bigSeq, seqOf(prune)],
});

// A compaction shadows turns 1 and 2 (everything after the system message).
const compact = async (summary: string, startSeq: number, endSeq: number) => {
  const nodes = log.fold.toArray();
  const shadowed = nodes.slice(
    nodes.findIndex((node) => node.seq === startSeq),
    nodes.findIndex((node) => node.seq === endSeq) + 1,
  );
  const metering = await append({
    type: 'compaction/summary',
    data: {
      compactionId: `sample-${startSeq}`,
      shadowedSeqs: shadowed.map((node) => node.seq),
      shadowedTokenCount: 0,
      provider: 'hand-written',
      model: 'none',
    },
    ignorable: true,
  });
  return append({
    type: 'user/message',
    data: { content: text(`Earlier context was compacted. <compacted-summary>${summary}</compacted-summary>`) },
    surfaceOp: { op: 'replace', startSeq: startSeq as never, endSeq: endSeq as never },
    sourceEventSeqs: [...shadowed.map((node) => node.seq), seqOf(metering)],
  });
};
const afterSystem = (log.fold.toArray()[1] as { seq: number }).seq;
const lastNode = log.fold.toArray().at(-1) as { seq: number };
const firstSummary = await compact(
  '(hand-written sample summary) The user reported that the CSV parser dropped the last field. The agent found an assignment instead of a comparison at src/parser.ts:212, fixed it, and ran the tests: 20 passed.',
  afterSystem,
  lastNode.seq,
);

await append(turn('turn/start', 3), user('Add a test for a row that ends in an empty field.'));
await append(
  assistant('Adding the test.', [
    ['call-4', 'edit_file', { path: 'test/parser.test.ts', append: "it('keeps a trailing empty field', …)" }],
  ]),
);
await append(result('call-4', 'edited test/parser.test.ts: 4 lines added'));
await append(assistant('Added `keeps a trailing empty field` to test/parser.test.ts.'), turn('turn/end', 3));

// A second compaction summarizes the first summary together with turn 3.
await compact(
  '(hand-written sample summary) Fixed the assignment bug at src/parser.ts:212 (20 tests passed), then added the test "keeps a trailing empty field" to test/parser.test.ts.',
  seqOf(firstSummary),
  (log.fold.toArray().at(-1) as { seq: number }).seq,
);
await append(turn('turn/start', 4), user('Thanks. What was the bug again?'));
await append(assistant('`token.kind = "comma"` assigned instead of comparing, at src/parser.ts:212.'), turn('turn/end', 4));

const file = createWriteStream(new URL('../examples/sample-session.jsonl', import.meta.url));
const count = await exportSession(store, SESSION_ID, file);
file.end();
await finished(file);
console.log(`wrote examples/sample-session.jsonl: ${count} events, ${log.fold.size} surface nodes`);
