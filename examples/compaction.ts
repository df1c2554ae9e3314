// Compaction mounted on an agent: a long session in a 4,000-token window keeps running, every
// cut is an appended, auditable replacement, and the originals stay. Run it with
// `npx tsx examples/compaction.ts` (offline: a scripted model and the extractive summarizer).
import { createCompaction, createHarness, createToolResultPruner, MemoryLogStore, ScriptedModel } from 'shadowlog';

const model = new ScriptedModel({
  limits: { contextWindow: 4_000, defaultMaxOutputTokens: 500 },
  replies: ({ index }) => ({ text: `Answer ${index + 1}: ${'a detailed explanation '.repeat(60)}` }),
});
const compaction = createCompaction({
  // The defaults (0.7 of the window, no headroom, a 0.05 tail, chosen in docs/evidence.md) fit a
  // 4,000-token window as they are; DSH's 65,536-token headroom (`--preset dsh`) would not.
  config: { summarizer: { kind: 'extractive' } },
  pruner: createToolResultPruner(),
});
const store = new MemoryLogStore();
const harness = createHarness({ store, model, capabilities: [compaction] });
const session = await harness.createSession('long-chat');
for (let turn = 1; turn <= 30; turn++) await session.send(`Question ${turn}: explain it again, in more depth.`);

let compactions = 0;
let events = 0;
for await (const page of store.read('long-chat')) {
  events += page.length;
  compactions += page.filter((event) => event.type === 'compaction/summary').length;
}
console.log(`threshold: ${compaction.policy.threshold} tokens of a ${model.limits.contextWindow}-token window`); // threshold: 2800 tokens of a 4000-token window
console.log(`compactions: ${compactions > 1 ? 'several' : compactions}`); // compactions: several
console.log(`surface: ${session.log.fold.size} nodes; the log keeps all ${events} events`); // surface: 3 nodes; the log keeps all 164 events
