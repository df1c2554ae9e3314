// The mask strategy (observation masking) on sessions of random shape, with random kept tails:
// every masked result is listed by its own compaction/mask and by its placeholder's sources;
// the originals are intact in the log; the kept results, the results the model has not been
// sent, and everything that is not a tool result stay as they were; the placeholder names the
// tool, the size and the seq; the log verifies, and a second mask masks nothing new.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  COMPACTION_EVENT_TYPES,
  COMPACTION_MASK,
  type CompactionMaskData,
  createCompaction,
  isMaskPlaceholder,
  type ManualOutcome,
} from '../../../src/compaction/index.js';
import type { LogEvent, ToolResultData } from '../../../src/log/event.js';
import { EventTypeRegistry } from '../../../src/log/event-types.js';
import { verifyLog } from '../../../src/log/verify.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../../src/providers/scripted-model.js';
import { createHarness } from '../../../src/spine/harness.js';
import { defineTool } from '../../../src/spine/tool.js';
import { MemoryLogStore } from '../../../src/store/memory/memory-store.js';

const lookup = defineTool({
  name: 'lookup',
  description: 'Look a topic up',
  input: z.object({ topic: z.string(), lines: z.number() }),
  execute: ({ topic, lines }) => Array.from({ length: lines }, (_, line) => `${topic} fact ${line}: value ${line * 7}`).join('\n'),
});

/** Each prompt "Look up T in N lines, K times" makes K calls, then an answer. */
function agent(call: ScriptedCall): ScriptedReply {
  const user = [...call.messages].reverse().find((message) => message.role === 'user');
  const text = user?.content.map((block) => (block.type === 'text' ? block.text : '')).join('') ?? '';
  const [, topic = 'x', lines = '1', times = '1'] = /Look up (\w+) in (\d+) lines, (\d+) times/.exec(text) ?? [];
  const since = call.messages.length - 1 - [...call.messages].reverse().findIndex((message) => message.role === 'user');
  const done = call.messages.slice(since).filter((message) => message.role === 'tool').length;
  if (done < Number(times)) return { toolCalls: [{ name: 'lookup', arguments: { topic, lines: Number(lines) } }] };
  return { text: `Found ${topic}.` };
}

type Keep = { keepResults: number } | { keepTokens: number } | Record<string, never>;

async function maskedSession(turns: ReadonlyArray<{ lines: number; times: number }>, keep: Keep) {
  const store = new MemoryLogStore();
  const compaction = createCompaction({
    config: { headroomTokens: 0, retainTokens: 300, auto: false, summarizer: { kind: 'extractive' }, strategy: 'mask', mask: keep },
  });
  const model = new ScriptedModel({ replies: agent, limits: { contextWindow: 200_000, defaultMaxOutputTokens: 500 } });
  const harness = createHarness({ store, model, tools: [lookup], capabilities: [compaction] });
  const session = await harness.createSession('s');
  for (const [index, turn] of turns.entries()) await session.send(`Look up topic${index} in ${turn.lines} lines, ${turn.times} times`);
  const before = session.log.fold.toArray();
  const eventsBefore = await eventsOf(store);
  const outcome = await compaction.compactNow(session);
  const again = await compaction.compactNow(session);
  const after = session.log.fold.toArray();
  await session.close();
  return { store, before, after, eventsBefore, outcome, again, events: await eventsOf(store) };
}

async function eventsOf(store: MemoryLogStore): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read('s')) out.push(...page);
  return out;
}

const turnsArbitrary = fc.array(fc.record({ lines: fc.integer({ min: 1, max: 40 }), times: fc.integer({ min: 0, max: 3 }) }), {
  minLength: 1,
  maxLength: 6,
});
const keepArbitrary: fc.Arbitrary<Keep> = fc.oneof(
  fc.constant({}),
  fc.integer({ min: 0, max: 5 }).map((keepResults) => ({ keepResults })),
  fc.integer({ min: 0, max: 2_000 }).map((keepTokens) => ({ keepTokens })),
);

describe('the mask strategy', () => {
  it('keeps its invariants on sessions of any shape', async () => {
    let compacted = 0;
    await fc.assert(
      fc.asyncProperty(turnsArbitrary, keepArbitrary, async (turns, keep) => {
        const { before, after, eventsBefore, outcome, again, events } = await maskedSession(turns, keep);
        // The originals are intact: every event before the compaction is unchanged.
        expect(events.slice(0, eventsBefore.length)).toEqual(eventsBefore);
        const report = await verifyLog(
          (async function* () {
            yield events;
          })(),
          { registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) },
        );
        expect(report.ok).toBe(true);
        const results = before.filter((node) => node.type === 'tool/result');
        if (outcome.status !== 'compacted') {
          expect(outcome.status).toBe('nothing');
          expect(after.map((node) => node.seq)).toEqual(before.map((node) => node.seq));
          return;
        }
        expect(outcome.strategy).toBe('mask');
        compacted++;
        const masks = events.filter((event) => event.type === COMPACTION_MASK);
        // One compaction/mask per masked result, each just before its placeholder, which lists both.
        expect(masks.map((event) => (event.data as unknown as CompactionMaskData).shadowedSeqs[0])).toEqual([...outcome.shadowedSeqs]);
        expect(outcome.replacementSeqs).toEqual(masks.map((event) => event.seq + 1));
        for (const mask of masks) {
          const placeholder = events[mask.seq + 1] as LogEvent;
          const original = eventsBefore[(mask.data as unknown as CompactionMaskData).shadowedSeqs[0]] as LogEvent;
          expect(original.type).toBe('tool/result');
          expect(placeholder.sourceEventSeqs).toEqual([original.seq, mask.seq]);
          const data = placeholder.data as unknown as ToolResultData;
          expect(data.callId).toBe((original.data as unknown as ToolResultData).callId);
          const text = (data.content[0] as { text: string }).text;
          expect(isMaskPlaceholder(text)).toBe(true);
          expect(text).toContain('lookup returned');
          expect(text).toContain(`event #${original.seq} `);
          expect((mask.data as unknown as CompactionMaskData).replacementTokenCount).toBeLessThan(
            (mask.data as unknown as CompactionMaskData).shadowedTokenCount,
          );
        }
        // Only tool results are touched; every other node stays where it was.
        const masked = new Set(outcome.shadowedSeqs);
        expect(after.length).toBe(before.length);
        after.forEach((node, index) => {
          const was = before[index];
          if (was !== undefined && masked.has(was.seq)) expect(node.type).toBe('tool/result');
          else expect(node.seq).toBe(was?.seq);
        });
        // The kept tail: with keepResults N, the newest N results stay whole.
        if ('keepResults' in keep) {
          const kept = results.slice(Math.max(0, results.length - keep.keepResults));
          for (const node of kept) expect(masked.has(node.seq)).toBe(false);
        }
        // A second mask finds nothing left to mask.
        expect(again.status).toBe('nothing');
      }),
      { numRuns: 40 },
    );
    // The property is not vacuous: most random sessions have something to mask.
    expect(compacted).toBeGreaterThan(10);
  });

  it('masks every sent result outside the kept count, and refuses a mask config with both keys', async () => {
    const { outcome } = await maskedSession(
      [
        { lines: 30, times: 2 },
        { lines: 30, times: 1 },
        { lines: 30, times: 1 },
      ],
      { keepResults: 1 },
    );
    expect(outcome).toMatchObject({ status: 'compacted', strategy: 'mask' });
    expect((outcome as Extract<ManualOutcome, { status: 'compacted' }>).shadowedSeqs).toHaveLength(3);
    expect(() => createCompaction({ config: { strategy: 'mask', mask: { keepResults: 1, keepTokens: 5 } } })).toThrow(
      /mask\.keepResults and mask\.keepTokens are exclusive/,
    );
  });
});
