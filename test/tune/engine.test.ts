// The replay engine on sessions small enough to work out by hand: where each policy compacts,
// what its surface holds and costs at each call, where drop-oldest cuts, where no compaction
// overflows, what the pruner saves, and which later uses of an artifact each surface kept.

import { describe, expect, it } from 'vitest';
import { compactionPreset } from '../../src/compaction/presets.js';
import { replacementText } from '../../src/compaction/render-summary.js';
import { maskPlaceholder } from '../../src/compaction/strategies/mask-placeholder.js';
import { recallHandleText } from '../../src/compaction/strategies/recall-strategy.js';
import type { Summarizer } from '../../src/compaction/summarizer.js';
import { ToolResultPruner } from '../../src/compaction/tool-result-pruner.js';
import { BUILT_IN_PRICES } from '../../src/meter/prices.js';
import { PolicyReplay } from '../../src/tune/policy-replay.js';
import { ReplayContext } from '../../src/tune/replay-context.js';
import { replaySession } from '../../src/tune/session-replay.js';
import { buildTrace, type SessionTrace } from '../../src/tune/trace.js';
import { baselinePolicy, shadowlogPolicy, type TunePolicy, tunePolicies } from '../../src/tune/tune-policies.js';
import { buildSession, charMeter, prose, type TurnSpec, textWith } from './support/hand-built.js';

/** A summarizer whose summary is always the same short text: its price is known in advance. */
const FIXED_SUMMARY = 'the earlier turns were read';
const fixedSummarizer: Summarizer = {
  async summarize() {
    return {
      text: FIXED_SUMMARY,
      kind: 'extractive',
      provider: 'test',
      model: 'fixed',
      usage: null,
      requestDigest: null,
      rendererVersion: null,
      truncated: false,
    };
  },
};

/** The price of the summary node that replaces `count` messages (one token per character, 8 overhead). */
const summaryPrice = (count: number) => replacementText(FIXED_SUMMARY, count).length + 8;

/** System 'You are kind' (12 + 8 = 20 tokens); each turn a user message and an answer of 100 tokens each. */
function plainTurns(count: number): TurnSpec[] {
  return Array.from({ length: count }, (_, index) => ({ user: prose(92, index), steps: [{ answer: prose(92, index + 3) }] }));
}

async function replayAll(trace: SessionTrace, policy: TunePolicy, summarizer?: Summarizer) {
  const context = new ReplayContext(trace, charMeter(), summarizer);
  const replay = new PolicyReplay(policy, context);
  const calls = [];
  for (const [index, call] of trace.calls.entries()) {
    const outcome = await replay.call(call, index, Number.POSITIVE_INFINITY);
    calls.push({ ...outcome, cut: replay.firstVerbatim, summaryTokens: replay.summaryTokens });
  }
  return { replay, calls };
}

describe('the replay engine', () => {
  const trace = buildTrace('plain', buildSession(plainTurns(8)), charMeter(), { window: 1_000 });

  it('prices the record as the meter does and finds each call', () => {
    expect(trace.items.map((item) => item.price)).toEqual([20, ...Array(16).fill(100)]);
    expect(trace.calls.map((call) => call.index)).toEqual([2, 4, 6, 8, 10, 12, 14, 16]);
    expect(trace.fixedTokens).toBe(0);
  });

  it('compacts where the threshold is reached, keeping the tail that fits the retained tokens', async () => {
    // Threshold 500 of W 1,000; call t carries 20 + 200 (t − 1) + 100 until the first compaction.
    const policy = shadowlogPolicy('half', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 150 }, null);
    const { calls } = await replayAll(trace, policy, fixedSummarizer);
    expect(calls.slice(0, 2).map((call) => call.tokens)).toEqual([120, 320]);
    // Call 3 (520 ≥ 500): the tail is its user message (100 ≤ 150), items 1–4 are summarized.
    const s3 = summaryPrice(4);
    expect(calls[2]).toMatchObject({ compactions: 1, cut: 5, tokens: 20 + s3 + 100, summarizerInput: 400, summarizerOutput: s3 });
    // Call 4: 20 + s3 + 300 is below 500; call 5 is not, and compacts the summary and items 5–8.
    expect(calls[3]).toMatchObject({ compactions: 0, cut: 5, tokens: 20 + s3 + 300 });
    expect(20 + s3 + 500).toBeGreaterThanOrEqual(500);
    const s5 = summaryPrice(5);
    expect(calls[4]).toMatchObject({ compactions: 1, cut: 9, tokens: 20 + s5 + 100, summarizerInput: s3 + 400 });
    expect(calls.every((call) => !call.overWindow)).toBe(true);
  });

  it('keeps the cache prefix up to the first change: the head after a compaction, everything before otherwise', async () => {
    const policy = shadowlogPolicy('half', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 150 }, null);
    const { calls } = await replayAll(trace, policy, fixedSummarizer);
    expect(calls[0]?.cachedTokens).toBe(0);
    expect(calls[1]?.cachedTokens).toBe(120);
    expect(calls[2]?.cachedTokens).toBe(20);
    expect(calls[3]?.cachedTokens).toBe(calls[2]?.tokens);
  });

  it('drops the oldest whole turns that do not fit, and keeps the newest that do', async () => {
    const small = buildTrace('plain', buildSession(plainTurns(8)), charMeter(), { window: 600 });
    const { calls, replay } = await replayAll(small, baselinePolicy('drop-oldest'));
    // Calls 1–3 fit (120, 320, 520); from call 4 the newest three turns fit 580 (500), four do not (700).
    expect(calls.map((call) => call.tokens)).toEqual([120, 320, 520, 520, 520, 520, 520, 520]);
    expect(calls.map((call) => call.cut)).toEqual([1, 1, 1, 3, 5, 7, 9, 11]);
    expect(replay.drops).toBe(5);
    expect(calls.some((call) => call.overWindow)).toBe(false);
  });

  it('reports no compaction as infeasible from the first call over the window', async () => {
    const small = buildTrace('plain', buildSession(plainTurns(8)), charMeter(), { window: 600 });
    const result = await replaySession(small, charMeter(), [baselinePolicy('none'), baselinePolicy('drop-oldest')], {
      prices: BUILT_IN_PRICES,
    });
    const [none, dropOldest] = result.policies;
    expect(none).toMatchObject({ feasible: false, firstCallOverWindow: 4, callsOverWindow: 5, peakTokens: 1_520, refused: null });
    expect(dropOldest).toMatchObject({ feasible: true, callsOverWindow: 0, peakTokens: 520, drops: 5 });
  });

  it('reports a configuration the window refuses as refused, not as a run', async () => {
    // DSH's headroom (65,536, --preset dsh) leaves nothing of a 1,000-token window.
    const result = await replaySession(trace, charMeter(), [shadowlogPolicy('dsh', compactionPreset('dsh').config, null)], {
      prices: BUILT_IN_PRICES,
    });
    expect(result.policies[0]).toMatchObject({ feasible: false, tokensSent: 0 });
    expect(result.policies[0]?.refused).toMatch(/^from call 1: .*headroomTokens/);
  });

  it('prunes a long result the model was sent before it compacts, and the prune is all it needs', async () => {
    const result = prose(9_000, 5);
    const turns: TurnSpec[] = [
      {
        user: prose(92),
        steps: [{ answer: prose(92, 1), calls: [{ callId: 'c1', arguments: { path: 'a.ts' }, result }] }, { answer: prose(92, 2) }],
      },
      { user: prose(1_000, 3), steps: [{ answer: prose(92, 4) }] },
    ];
    const long = buildTrace('pruned', buildSession(turns), charMeter(), { window: 20_000 });
    const policy = shadowlogPolicy('pruned', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 100 }, new ToolResultPruner().config);
    const { calls } = await replayAll(long, policy, fixedSummarizer);
    const assistant = long.items[2]?.price as number;
    const pruner = new ToolResultPruner();
    const cut = pruner.cut([{ type: 'text', text: result }], long.items[3]?.seq as number);
    const prunedPrice = charMeter().priceOfData('tool/result', { callId: 'c1', content: cut?.blocks });
    const before = 20 + 100 + assistant + 9_008 + 100 + 1_008;
    expect(before).toBeGreaterThanOrEqual(10_000);
    expect(calls[2]).toMatchObject({ prunes: 1, compactions: 0, tokens: before - 9_008 + prunedPrice, cachedTokens: 20 + 100 + assistant });
    expect(calls[1]).toMatchObject({ prunes: 0, tokens: 20 + 100 + assistant + 9_008 });
  });

  it('counts an artifact used later as kept only where the surface still holds it', async () => {
    const turns = plainTurns(6).map((turn, index) =>
      index === 0
        ? { ...turn, user: textWith('fix src/alpha.ts', 92) }
        : index === 5
          ? { ...turn, steps: [{ answer: textWith('edited src/alpha.ts', 92) }] }
          : turn,
    );
    const events = buildSession(turns);
    const small = buildTrace('uses', events, charMeter(), { window: 600 });
    const wide = buildTrace('uses', events, charMeter(), { window: 100_000 });
    const dropped = await replayAll(small, baselinePolicy('drop-oldest'));
    expect(dropped.calls[5]).toMatchObject({ used: 1, missed: ['path:src/alpha.ts'] });
    const everything = await replayAll(wide, baselinePolicy('none'));
    expect(everything.calls[5]).toMatchObject({ used: 1, missed: [] });
    // A summary that does not name the file loses it; the extractive one, which keeps paths, does not.
    const policy = shadowlogPolicy('half', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 150 }, null);
    const fixed = await replayAll(buildTrace('uses', events, charMeter(), { window: 1_000 }), policy, fixedSummarizer);
    expect(fixed.calls[5]?.missed).toEqual(['path:src/alpha.ts']);
    const extractive = await replayAll(buildTrace('uses', events, charMeter(), { window: 1_000 }), policy);
    expect(extractive.replay.summaryText).toContain('src/alpha.ts');
    expect(extractive.calls[5]?.missed).toEqual([]);
  });
});

describe('the mask strategy in the replay', () => {
  it('masks the sent tool results before the retained tail, and summarizes nothing', async () => {
    // Each turn: a user message (100), an answer calling `read` (its price p), a 400-character result (408), a final answer (100).
    const turns: TurnSpec[] = Array.from({ length: 4 }, (_, index) => ({
      user: prose(92, index),
      steps: [
        {
          answer: prose(92, index + 1),
          calls: [{ callId: `c${index}`, arguments: { path: `src/file${index}.ts` }, result: textWith(`value_${index}`, 400, index) }],
        },
        { answer: prose(92, index + 2) },
      ],
    }));
    const trace = buildTrace('mask', buildSession(turns), charMeter(), { window: 4_000 });
    const policy = shadowlogPolicy('mask', { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 150 }, null, 'mask');
    expect(policy.config?.({ contextWindow: 4_000, reserve: 0 })).toEqual({
      thresholdRatio: 0.5,
      headroomTokens: 0,
      retainTokens: 150,
      strategy: 'mask',
    });
    const { calls, replay } = await replayAll(trace, policy);
    const first = calls.findIndex((call) => (call.compactions ?? 0) > 0);
    expect(first).toBeGreaterThan(0);
    const call = trace.calls[first];
    // Every result the model had been sent (those before the previous call) became a placeholder;
    // the one appended since that call was not sent yet, and stays whole.
    const sentUpTo = trace.calls[first - 1]?.index ?? 0;
    expect(trace.items[(call?.index ?? 0) - 1]?.type).toBe('tool/result');
    const meter = charMeter();
    let saved = 0;
    for (const [index, item] of trace.items.entries()) {
      if (item.type !== 'tool/result' || index >= sentUpTo) continue;
      const placeholder = maskPlaceholder({ tool: 'read', chars: 400, tokens: 408, seq: item.seq });
      saved += 408 - meter.priceOfData('tool/result', { callId: 'x', content: [{ type: 'text', text: placeholder }] });
    }
    const before = (trace.prefix[call?.index ?? 0] as number) - 0;
    expect(calls[first]).toMatchObject({ tokens: before - saved, summarizerInput: 0, summaryTokens: 0, cut: 1 });
    expect(replay.summaryText).toBeUndefined();
    // The identifiers inside the masked results are off the surface from then on.
    expect(saved).toBeGreaterThan(0);
  });
});

describe('the recall strategy in the replay', () => {
  // System (20 tokens), then six turns of a user message and an answer of 1,000 tokens each; the
  // first user message names src/alpha.ts and the last answer uses it again.
  const turns: TurnSpec[] = Array.from({ length: 6 }, (_, index) => ({
    user: index === 0 ? textWith('fix src/alpha.ts', 992) : prose(992, index),
    steps: [{ answer: index === 5 ? textWith('edited src/alpha.ts', 992) : prose(992, index + 3) }],
  }));
  const trace = buildTrace('recall', buildSession(turns), charMeter(), { window: 10_000 });
  const config = { thresholdRatio: 0.5, headroomTokens: 0, retainTokens: 1_500 } as const;
  const seq = (index: number) => trace.items[index]?.seq as number;

  it('puts the handle, with its outline and its token size, in place of the shadowed range', async () => {
    expect(trace.items.map((item) => item.price)).toEqual([20, ...Array(12).fill(1_000)]);
    const policy = shadowlogPolicy('recall', config, null, 'recall');
    expect(policy.config?.({ contextWindow: 10_000, reserve: 0 })).toEqual({ ...config, strategy: 'recall' });
    const { calls, replay } = await replayAll(trace, policy, fixedSummarizer);
    // Call 3 (5,020 tokens ≥ 5,000) shadows the four messages before the 1,500-token tail.
    const first = recallHandleText({
      handle: 'tune0001',
      count: 4,
      startSeq: seq(1),
      endSeq: seq(4),
      tokens: 4_000,
      outline: FIXED_SUMMARY,
    });
    const firstPrice = first.length + 8;
    expect(calls.map((call) => call.compactions)).toEqual([0, 0, 1, 0, 1, 0]);
    expect(calls[1]).toMatchObject({ tokens: 3_020, cut: 1, summaryTokens: 0 });
    expect(calls[2]).toMatchObject({ tokens: 20 + firstPrice + 1_000, cut: 5, summaryTokens: firstPrice, summarizerInput: 4_000 });
    expect(calls[3]).toMatchObject({ tokens: 20 + firstPrice + 3_000, cut: 5 });
    // Call 5 shadows the first handle and the four messages after it under a second handle.
    const second = recallHandleText({
      handle: 'tune0002',
      count: 5,
      startSeq: seq(4),
      endSeq: seq(8),
      tokens: firstPrice + 4_000,
      outline: FIXED_SUMMARY,
    });
    expect(replay.summaryText).toBe(second);
    expect(calls[4]).toMatchObject({
      tokens: 20 + second.length + 8 + 1_000,
      cut: 9,
      summaryTokens: second.length + 8,
      summarizerInput: firstPrice + 4_000,
      summarizerOutput: second.length + 8,
    });
    // The last answer uses src/alpha.ts: off the surface (the outline does not name it), but in an original the handle shadows.
    expect(calls[5]).toMatchObject({ used: 1, missed: ['path:src/alpha.ts'], recallable: ['path:src/alpha.ts'] });
  });

  it('reports retention as the on-surface share and the share reachable by recall separately', async () => {
    const result = await replaySession(
      trace,
      charMeter(),
      [shadowlogPolicy('recall', config, null, 'recall'), shadowlogPolicy('summary', config, null)],
      { prices: BUILT_IN_PRICES, summarizer: fixedSummarizer },
    );
    const [recall, summary] = result.policies;
    expect(recall?.retention).toMatchObject({ used: 1, kept: 0, share: 0, reachable: 1, recallable: 1 });
    expect(recall?.retention.worstMisses).toEqual([
      {
        artifact: 'src/alpha.ts',
        kind: 'path',
        misses: 1,
        firstCall: 6,
        introducedSeq: expect.any(Number),
        introducedBy: 'a user message',
      },
    ]);
    // A summary has no recall tool: what is off its surface is not reachable.
    expect(summary?.retention).toMatchObject({ used: 1, kept: 0, share: 0, reachable: 0, recallable: 0 });
  });

  it('is accepted by --strategies', () => {
    const names = tunePolicies({ strategies: ['summary', 'recall'], baselines: [] }).map((policy) => policy.name);
    expect(names).toEqual(['defaults', 'recall defaults']);
  });
});
