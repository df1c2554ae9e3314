// Compaction mounted on the spine: pressure, context overflow and manual triggers, driven by
// the scripted model well past its window.

import { describe, expect, it } from 'vitest';
import { createCompaction } from '../../src/compaction/compaction-capability.js';
import { COMPACTION_END, COMPACTION_PRUNE, COMPACTION_START, COMPACTION_SUMMARY } from '../../src/compaction/event-types.js';
import { createToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { ConfigError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import { verifyLog } from '../../src/log/verify.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../../src/providers/scripted-model.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { readLogTool, requestedPart } from '../support/build-log-tool.js';

const WINDOW = { contextWindow: 6_000, defaultMaxOutputTokens: 500 };
const CONFIG = { headroomTokens: 0, summarizer: { kind: 'extractive' as const } };

/** Each turn: read one log part, then answer about it. */
function agent(call: ScriptedCall): ScriptedReply {
  const last = call.messages[call.messages.length - 1];
  if (last?.role === 'user') {
    const part = requestedPart(last.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
    return { toolCalls: [{ name: 'read_log', arguments: { part } }] };
  }
  return { text: `Part read: every module compiled; the slowest step took 177 ms. ${'Details follow. '.repeat(20)}` };
}

async function eventsOf(store: MemoryLogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

function setup(options: { replies?: (call: ScriptedCall) => ScriptedReply; config?: object; pruner?: boolean } = {}) {
  const store = new MemoryLogStore();
  const model = new ScriptedModel({ replies: options.replies ?? agent, limits: WINDOW });
  const pruner = options.pruner === false ? undefined : createToolResultPruner({ thresholdChars: 2_000, headChars: 600, tailChars: 300 });
  const compaction = createCompaction({ config: { ...CONFIG, ...options.config }, ...(pruner === undefined ? {} : { pruner }) });
  const harness = createHarness({ store, model, tools: [readLogTool], systemPrompt: 'You read build logs.', capabilities: [compaction] });
  return { store, model, compaction, harness };
}

describe('compaction mounted on the spine', () => {
  it('keeps a session far past its window running: prunes, compacts (summaries of summaries), and every call replays', async () => {
    const { store, compaction, harness } = setup();
    const session = await harness.createSession('long');
    for (let turn = 1; turn <= 60; turn++) {
      const result = await session.send(`Read part ${turn} of the build log.`);
      expect(result.reason, `turn ${turn}`).toBe('completed');
    }
    const events = await eventsOf(store, 'long');
    const summaries = events.filter((event) => event.type === COMPACTION_SUMMARY);
    for (const event of events)
      if (event.type.startsWith('compaction/') || event.type === 'model/request')
        console.log(event.seq, event.type, JSON.stringify(event.data).slice(0, 300));
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    expect(events.filter((event) => event.type === COMPACTION_PRUNE).length).toBeGreaterThan(0);
    const { threshold } = compaction.policy;
    for (const summary of summaries) expect(summary.data.tokensAfter as number).toBeLessThan(threshold);
    // A later summary shadows an earlier one.
    const summaryNodes = new Set<number>(
      events.filter((event) => event.type === 'user/message' && event.sourceEventSeqs !== undefined).map((event) => event.seq),
    );
    expect(summaries.some((summary) => (summary.data.shadowedSeqs as number[]).some((seq) => summaryNodes.has(seq)))).toBe(true);
    // Every lock was released, and the log verifies with the compaction types known and without them.
    expect(events.filter((event) => event.type === COMPACTION_START).length).toBe(
      events.filter((event) => event.type === COMPACTION_END).length,
    );
    expect((await verifyLog(store.read('long'), { registry: harness.registry })).ok).toBe(true);
    expect((await verifyLog(store.read('long'))).ok).toBe(true);
    // Every model call, before and after each compaction, replays to its digest.
    const requests = events.filter((event) => event.type === 'model/request');
    for (const request of requests) {
      const replayed = await replay(
        store,
        'long',
        { turn: request.data.turn as number, step: request.data.step as number },
        { resolveRenderer: () => new ScriptedModel({ replies: [], limits: WINDOW }), registry: harness.registry },
      );
      expect(replayed.requestDigest).toBe(request.data.requestDigest);
    }
  });

  it('answers a context-window error by compacting everything it can and retrying once', async () => {
    // The "provider" refuses any request larger than 9,000 characters, as a real one refuses too many tokens.
    const replies = (call: ScriptedCall): ScriptedReply =>
      canonicalJson(call.body).length > 9_000
        ? { error: new ProviderError('context-overflow', 'scripted', 'prompt is too long: 7000 tokens > 6000 maximum') }
        : agent(call);
    const { store, harness } = setup({ replies, config: { auto: false }, pruner: false });
    const session = await harness.createSession('overflow');
    for (let turn = 1; turn <= 6; turn++) expect((await session.send(`Read part ${turn} of the build log.`)).reason).toBe('completed');
    const events = await eventsOf(store, 'overflow');
    const starts = events.filter((event) => event.type === COMPACTION_START);
    expect(starts.length).toBeGreaterThan(0);
    expect(starts.every((event) => event.data.trigger === 'context-overflow')).toBe(true);
    expect(events.some((event) => event.type === 'model/error' && event.data.contextOverflow === true)).toBe(true);
  });

  it('lets the provider error stand when compaction cannot change the surface', async () => {
    const replies = (): ScriptedReply => ({ error: new ProviderError('context-overflow', 'scripted', 'prompt is too long') });
    const { store, harness } = setup({ replies, pruner: false });
    const session = await harness.createSession('stuck');
    const result = await session.send('Hi');
    expect(result.reason).toBe('error');
    expect(result.error).toBeInstanceOf(ProviderError);
    // Only the user message was there to shadow, and its summary would not be smaller.
    const events = await eventsOf(store, 'stuck');
    expect(events.filter((event) => event.type === 'model/request')).toHaveLength(1);
  });

  it('compacts on demand between turns, even below the threshold, and says when there is nothing to compact', async () => {
    const { harness, compaction } = setup({ config: { auto: false } });
    const session = await harness.createSession('manual');
    expect(await compaction.compactNow(session)).toMatchObject({
      status: 'nothing',
      message: expect.stringContaining('nothing to compact'),
    });
    for (let turn = 1; turn <= 3; turn++) await session.send(`Read part ${turn} of the build log.`);
    const outcome = await compaction.compactNow(session);
    expect(outcome).toMatchObject({ status: 'compacted', trigger: 'manual' });
  });

  it('never fires twice in a row without the surface having grown', async () => {
    const failing = {
      summarize: async () => ({
        text: 'x'.repeat(100_000),
        kind: 'model' as const,
        provider: 'p',
        model: 'm',
        usage: null,
        requestDigest: null,
        rendererVersion: null,
        truncated: false,
      }),
    };
    const store = new MemoryLogStore();
    // Every compaction fails, so the surface only grows: a window that holds the 8 turns (the
    // scripted model refuses a request over its window), with the threshold where WINDOW puts it.
    const model = new ScriptedModel({ replies: agent, limits: { ...WINDOW, contextWindow: 12_000 } });
    const compaction = createCompaction({ config: { ...CONFIG, thresholdRatio: 0.4 }, summarizer: failing });
    const harness = createHarness({ store, model, tools: [readLogTool], capabilities: [compaction] });
    const session = await harness.createSession('breaker');
    for (let turn = 1; turn <= 8; turn++) await session.send(`Read part ${turn} of the build log.`);
    const events = await eventsOf(store, 'breaker');
    const starts = events.filter((event) => event.type === COMPACTION_START).map((event) => event.seq);
    // Between two attempts, at least one surface event was appended.
    for (let index = 1; index < starts.length; index++) {
      const between = events.slice((starts[index - 1] as number) + 1, starts[index]);
      expect(
        between.some((event) => event.surfaceOp === 'append'),
        `attempts at #${starts[index - 1]} and #${starts[index]}`,
      ).toBe(true);
    }
    expect(starts.length).toBeGreaterThan(1);
    expect(events.filter((event) => event.type === 'model/error')).toEqual([]);
    expect(
      events
        .filter((event) => event.type === COMPACTION_END)
        .every((event) => (event.data.error as { reason: string }).reason === 'summary'),
    ).toBe(true);
  });

  it('refuses a configuration that leaves no pressure budget when the harness is built', () => {
    const store = new MemoryLogStore();
    const model = new ScriptedModel({ replies: [], limits: WINDOW });
    // DSH's headroom (65,536) leaves this small window no pressure budget.
    const build = () => createHarness({ store, model, capabilities: [createCompaction({ config: { headroomTokens: 65_536 } })] });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(/headroomTokens/);
  });
});
