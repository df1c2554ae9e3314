// Compaction's pruner on the spine (SPEC §9): when the trigger qualifies it prunes the results
// the model has already been sent, and a fresh result reaches the model whole unless the
// surface cannot fit otherwise; then its compaction/prune says it was cut before its first send.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { COMPACTION_PRUNE } from '../../src/compaction/event-types.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import type { LogEvent } from '../../src/log/event.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';

/** Each turn reads one log part of `lines` lines (a user message "Read N lines."), then answers. */
const readLog = defineTool({
  name: 'read_log',
  description: 'Read a build log',
  input: z.object({ lines: z.number() }),
  execute: ({ lines }) =>
    Array.from({ length: lines }, (_, line) => `step ${line}: compiled src/module_${line}.ts in ${line * 3} ms`).join('\n'),
});

function agent(call: ScriptedCall): ScriptedReply {
  const last = call.messages[call.messages.length - 1];
  if (last?.role !== 'user') return { text: 'Read it: every module compiled.' };
  const lines = Number(/Read (\d+) lines/.exec(last.content.map((block) => (block.type === 'text' ? block.text : '')).join(''))?.[1]);
  return { toolCalls: [{ name: 'read_log', arguments: { lines } }] };
}

async function run(prompts: readonly string[]) {
  const store = new MemoryLogStore();
  const compaction = createCompaction({
    config: { headroomTokens: 0, summarizer: { kind: 'extractive' } },
    pruner: createToolResultPruner({ thresholdChars: 2_000, headChars: 600, tailChars: 300 }),
  });
  const model = new ScriptedModel({ replies: agent, limits: { contextWindow: 8_000, defaultMaxOutputTokens: 500 } });
  const harness = createHarness({ store, model, tools: [readLog], capabilities: [compaction] });
  const session = await harness.createSession('s');
  for (const prompt of prompts) expect((await session.send(prompt)).reason).toBe('completed');
  await session.close();
  const events: LogEvent[] = [];
  for await (const page of store.read('s')) events.push(...page);
  return { events, threshold: compaction.policy.threshold };
}

/** The request that followed the first prune, and the results the prune batch shadowed. */
function firstPruneBatch(events: readonly LogEvent[]) {
  const first = events.findIndex((event) => event.type === COMPACTION_PRUNE);
  expect(first).toBeGreaterThan(0);
  const request = events.slice(first).find((event) => event.type === 'model/request') as LogEvent;
  const prunes = events.slice(first, request.seq).filter((event) => event.type === COMPACTION_PRUNE);
  return { request, prunes, pruned: prunes.map((event) => (event.data.shadowedSeqs as number[])[0] as number) };
}

describe('the pruner mounted with compaction', () => {
  it('prunes the results the model was sent and sends the newest one whole when that is enough', async () => {
    const { events } = await run(Array.from({ length: 8 }, (_, turn) => `Read 60 lines (turn ${turn + 1}).`));
    const { request, prunes, pruned } = firstPruneBatch(events);
    // The result that arrived just before the trigger qualified: the model had not been sent it.
    const newest = events
      .slice(0, request.seq)
      .filter((event) => event.type === 'tool/result' && event.surfaceOp === 'append')
      .at(-1);
    expect(newest).toBeDefined();
    expect(pruned).not.toContain(newest?.seq);
    expect(request.data.surfaceSeqs as number[]).toContain(newest?.seq);
    expect(prunes.length).toBeGreaterThan(0);
    expect(prunes.every((event) => event.data.unseen === undefined)).toBe(true);
  });

  it('prunes a result before its first send when nothing else can make the surface fit, and records that', async () => {
    // One result alone is past the threshold: nothing the model was sent could make room for it.
    const { events, threshold } = await run(['Read 700 lines (turn 1).']);
    const { request, prunes } = firstPruneBatch(events);
    expect(prunes).toHaveLength(1);
    expect(prunes[0]?.data).toMatchObject({ unseen: true });
    expect(prunes[0]?.data.shadowedTokenCount as number).toBeGreaterThan(threshold);
    expect(request.data.estimatedTokens as number).toBeLessThan(threshold);
    expect(events.some((event) => event.type === 'model/error')).toBe(false);
  });
});
