// Replaying a compaction's summarizer call from the log (SPEC §4).

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { replaySummary } from '../../src/compaction/replay-summary.js';
import type { LogEvent } from '../../src/log/event.js';
import { type ScriptedCall, ScriptedModel } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { ReplayError } from '../../src/spine/spine-errors.js';
import { defineTool } from '../../src/spine/tool.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SELF_SUMMARIZING_LIMITS, SELF_SUMMARIZING_POLICY } from '../support/self-summarizing-session.js';

const LIMITS = SELF_SUMMARIZING_LIMITS;
const lookup = defineTool({
  name: 'lookup',
  description: 'Look something up',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => `${topic}: ${'fact '.repeat(120)}`,
});

/** Answers summary requests (no tools offered) with a short summary, and plays an agent otherwise. */
function replies(call: ScriptedCall) {
  const tools = call.body.tools as unknown[];
  if (tools.length === 0) return { text: 'The user asked about several topics; each was looked up.' };
  const last = call.messages[call.messages.length - 1];
  return last?.role === 'user'
    ? { toolCalls: [{ name: 'lookup', arguments: { topic: `topic ${call.index}` } }] }
    : { text: `Noted. ${'detail '.repeat(30)}` };
}

async function compactedSession(summarizer: 'session-model' | 'extractive') {
  const store = new MemoryLogStore();
  const model = new ScriptedModel({ replies, limits: LIMITS });
  const compaction = createCompaction({ config: { ...SELF_SUMMARIZING_POLICY, summarizer: { kind: summarizer } } });
  const harness = createHarness({ store, model, tools: [lookup], capabilities: [compaction] });
  const session = await harness.createSession('s');
  for (let turn = 1; turn <= 20; turn++) await session.send(`Tell me about thing ${turn}.`);
  const summaries: LogEvent[] = [];
  for await (const page of store.read('s')) summaries.push(...page.filter((event) => event.type === 'compaction/summary'));
  return { store, model, summaries };
}

describe('replaySummary', () => {
  it("rebuilds a model summarizer's request from the shadowed events and verifies its digest", async () => {
    const { store, summaries } = await compactedSession('session-model');
    expect(summaries.length).toBeGreaterThan(0);
    for (const summary of summaries) {
      const id = String(summary.data.compactionId);
      const replayed = await replaySummary(store, 's', id.slice(0, 8), () => new ScriptedModel({ replies: [], limits: LIMITS }));
      expect(replayed).toMatchObject({ compactionId: id, verified: true, requestDigest: summary.data.requestDigest });
      expect((replayed.request.tools as unknown[]).length).toBe(0);
      // It says which policy the compaction ran under, as the log recorded it.
      expect(replayed.policy).toMatchObject({ provider: 'scripted', contextWindow: LIMITS.contextWindow });
      expect((await store.readEvent('s', replayed.policy?.seq as number)).type).toBe('compaction/policy');
    }
  });

  it('says an extractive compaction sent no request, and names a compaction that does not exist', async () => {
    const { store, summaries } = await compactedSession('extractive');
    const id = String(summaries[0]?.data.compactionId);
    await expect(replaySummary(store, 's', id, () => new ScriptedModel({ replies: [] }))).rejects.toThrow(
      /extractive summarizer, which sends no model request/,
    );
    await expect(replaySummary(store, 's', 'nope', () => new ScriptedModel({ replies: [] }))).rejects.toBeInstanceOf(ReplayError);
  });
});
