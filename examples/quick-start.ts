// A session log in a few lines: append messages, shadow two of them with a summary, and read
// both projections back. Run it with `npx tsx examples/quick-start.ts`.
import { MemoryLogStore, origins, SessionLog, verifyLog } from 'shadowlog';

const text = (value: string) => [{ type: 'text' as const, text: value }];
const store = new MemoryLogStore(); // or: await openSqliteStore('.shadowlog/shadowlog.db') from 'shadowlog/store/sqlite'
const log = await SessionLog.create(store, 'quick-start');

const [question, answer] = await log.append([
  { type: 'user/message', data: { content: text('What is 6 × 7?') }, surfaceOp: 'append' },
  { type: 'assistant/message', data: { content: text('42.'), toolCalls: [], model: 'example' }, surfaceOp: 'append' },
]);
if (question === undefined || answer === undefined) throw new Error('append returns the sealed events');

// A summary shadows both messages; it must list every event it shadows.
const [summary] = await log.append([
  {
    type: 'user/message',
    data: { content: text('Earlier, the user asked for 6 × 7 and was told 42.') },
    surfaceOp: { op: 'replace', startSeq: question.seq, endSeq: answer.seq },
    sourceEventSeqs: [question.seq, answer.seq],
  },
]);
if (summary === undefined) throw new Error('append returns the sealed events');

const surface = log.fold.toArray().map((node) => node.seq);
const originals = await origins(summary.seq, (seq) => store.readEvent('quick-start', seq));
const report = await verifyLog(store.read('quick-start'));
console.log(`surface: ${surface.join(', ')}`); // surface: 3
console.log(`summary #${summary.seq} stands for: ${originals.join(', ')}`); // summary #3 stands for: 1, 2
console.log(`verified: ${report.ok}, ${report.events} events`); // verified: true, 4 events
