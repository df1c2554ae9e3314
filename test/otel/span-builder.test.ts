// The span builder on written sessions: the tree it builds (a root per lifecycle, turns, calls,
// tools), ids that depend only on the session and its seqs, and --since as a pure filter of the
// full export, for any seq (a property test over random sessions).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from '../../src/log/index.js';
import { type SessionSpan, SessionSpanBuilder, sessionSpanBatches } from '../../src/otel/index.js';
import { MemoryLogStore } from '../../src/store/index.js';
import { SessionWriter, type TurnPlan } from './session-drafts.js';

async function spansOf(
  store: MemoryLogStore,
  sessionId: string,
  options: { sinceSeq?: number; batchSize?: number } = {},
): Promise<SessionSpan[]> {
  const spans: SessionSpan[] = [];
  for await (const batch of sessionSpanBatches(store, sessionId, options)) {
    expect(batch.length).toBeLessThanOrEqual(options.batchSize ?? 512);
    spans.push(...batch);
  }
  return spans;
}

async function writeSession(plans: readonly TurnPlan[], sessionId = 'otel-session'): Promise<MemoryLogStore> {
  const store = new MemoryLogStore();
  const writer = await SessionWriter.create(store, sessionId);
  for (const plan of plans) await writer.writeTurn(plan);
  return store;
}

const turnPlan = fc.record({
  toolSteps: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
  endSeedBefore: fc.boolean(),
  toolError: fc.boolean(),
});

describe('the span builder', () => {
  it('builds a root per lifecycle, a span per turn, call and tool, each under its parent', async () => {
    const store = await writeSession([{ toolSteps: [2] }, { toolSteps: [], endSeedBefore: true }, { toolSteps: [1, 1], toolError: true }]);
    const spans = await spansOf(store, 'otel-session', { batchSize: 3 });
    const roots = spans.filter((span) => span.kind === 'invoke_agent');
    expect(roots).toHaveLength(2);
    expect(new Set(roots.map((root) => root.traceId)).size).toBe(2);
    expect(roots[0]?.attributes['shadowlog.lifecycle.end_reason']).toBe('session/end-seed: a new process');
    expect(roots.map((root) => root.attributes['shadowlog.calls'])).toEqual([2, 4]);
    const ids = new Map(spans.map((span) => [span.spanId, span]));
    for (const span of spans) {
      if (span.kind === 'invoke_agent') continue;
      const parent = ids.get(span.parentSpanId ?? '');
      expect(parent?.traceId).toBe(span.traceId);
      expect(parent?.kind).toBe(span.kind === 'turn' ? 'invoke_agent' : 'turn');
    }
    const chats = spans.filter((span) => span.kind === 'chat');
    expect(chats).toHaveLength(6);
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.request.max_tokens': 256,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.usage.cache_read.input_tokens': 50,
      'shadowlog.request.digest': 'a'.repeat(64),
    });
    const failed = spans.filter((span) => span.kind === 'execute_tool' && span.error !== undefined);
    expect(failed).toHaveLength(1);
    // Without --content, a tool's own error message is content, and is not sent.
    expect(failed[0]?.error?.message).toBe('the tool reported an error');
    expect(failed[0]?.attributes['error.type']).toBe('tool_error');
  });

  it('gives the same ids to the same session written twice, and others to another session', async () => {
    const plans = [{ toolSteps: [1] }, { toolSteps: [2], endSeedBefore: true }];
    const first = await spansOf(await writeSession(plans), 'otel-session');
    const again = await spansOf(await writeSession(plans), 'otel-session');
    const other = await spansOf(await writeSession(plans, 'another-session'), 'another-session');
    expect(again.map((span) => [span.traceId, span.spanId, span.parentSpanId])).toEqual(
      first.map((span) => [span.traceId, span.spanId, span.parentSpanId]),
    );
    const otherIds = new Set(other.map((span) => span.spanId));
    expect(first.some((span) => otherIds.has(span.spanId))).toBe(false);
  });

  it('closes an unfinished turn and call at the last event, marked', async () => {
    const store = await writeSession([{ toolSteps: [1] }]);
    const builder = new SessionSpanBuilder('otel-session');
    const events: LogEvent[] = [];
    for await (const page of store.read('otel-session')) events.push(...page);
    const cut = events.findIndex((event) => event.type === 'tool/result');
    const spans = events.slice(0, cut).flatMap((event) => builder.accept(event));
    const rest = builder.finish();
    expect([...spans, ...rest].map((span) => span.kind).sort()).toEqual(['chat', 'execute_tool', 'invoke_agent', 'turn']);
    expect(rest.find((span) => span.kind === 'execute_tool')?.attributes['shadowlog.unfinished']).toBe('open at the end of the log');
    expect(() => builder.accept(events[0] as LogEvent)).toThrow(/expected seq/);
  });

  it('sends with sinceSeq exactly the spans of the full export that end at or after it, for any seq', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnPlan, { minLength: 1, maxLength: 4 }), fc.nat(), async (plans, pick) => {
        const store = await writeSession(plans);
        const full = await spansOf(store, 'otel-session');
        const head = await store.head('otel-session');
        const since = pick % ((head?.nextSeq ?? 1) + 1);
        const later = await spansOf(store, 'otel-session', { sinceSeq: since, batchSize: 4 });
        expect(later).toEqual(full.filter((span) => span.endSeq >= since));
        // Every span of the full export has its parent in it.
        const ids = new Set(full.map((span) => span.spanId));
        for (const span of full) if (span.parentSpanId !== undefined) expect(ids.has(span.parentSpanId)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
