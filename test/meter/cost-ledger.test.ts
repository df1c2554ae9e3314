// The cost of a session's calls at a dated price table: each part of the usage at its price, a
// model the table does not know counted and named as unpriced (never priced at 0), a call without
// usage counted apart; a later version of a family is not priced as the older one.

import { describe, expect, it } from 'vitest';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { chars4Estimator } from '../../src/meter/chars4-estimator.js';
import { BUILT_IN_PRICES, CostLedger, parsePriceTable, priceOf, SurfaceMeter, surfaceBreakdown, usageCost } from '../../src/meter/index.js';
import { drafts, sealLog, text } from '../support/events.js';

function request(turn: number, model: string): EventDraft {
  return {
    type: 'model/request',
    data: {
      turn,
      step: 1,
      provider: 'anthropic',
      model,
      surfaceSeqs: [],
      params: {},
      requestDigest: '0'.repeat(64),
      estimatedTokens: 0,
      rendererVersion: 'test',
    },
  };
}

function answer(model: string, usage?: Record<string, number>): EventDraft {
  return {
    type: 'assistant/message',
    data: { content: text('ok'), toolCalls: [], model, ...(usage === undefined ? {} : { usage }) },
    surfaceOp: 'append',
  };
}

describe('CostLedger', () => {
  // The ledger reads types and data only: events as a store returns them, without a chain.
  const events = [
    request(1, 'claude-sonnet-4-5'),
    answer('claude-sonnet-4-5-20250929', { inputTokens: 10_000, cacheReadTokens: 6_000, cacheWriteTokens: 2_000, outputTokens: 500 }),
    request(1, 'local-llama'),
    answer('local-llama', { inputTokens: 1_000, outputTokens: 100 }),
    request(1, 'claude-sonnet-4-5'),
    answer('claude-sonnet-4-5'),
  ].map((draft, seq) => ({ ...draft, seq }) as unknown as LogEvent);

  it('prices each part of the usage, names an unknown model as unpriced, and counts a call without usage', () => {
    const ledger = new CostLedger(BUILT_IN_PRICES);
    for (const event of events) ledger.apply(event);
    const summary = ledger.summary();
    // $3 input, $0.30 cache reads, $3.75 cache writes, $15 output, per million tokens.
    const expected = {
      input: (2_000 * 3) / 1e6,
      cacheRead: (6_000 * 0.3) / 1e6,
      cacheWrite: (2_000 * 3.75) / 1e6,
      output: (500 * 15) / 1e6,
    };
    expect(summary.total.input).toBeCloseTo(expected.input, 12);
    expect(summary.total.cacheRead).toBeCloseTo(expected.cacheRead, 12);
    expect(summary.total.cacheWrite).toBeCloseTo(expected.cacheWrite, 12);
    expect(summary.total.output).toBeCloseTo(expected.output, 12);
    expect(summary.total.total).toBeCloseTo(expected.input + expected.cacheRead + expected.cacheWrite + expected.output, 12);
    expect(summary).toMatchObject({ pricedCalls: 1, unpricedCalls: 1, unpricedModels: ['local-llama'], callsWithoutUsage: 1 });
    expect(summary.byModel.find((model) => model.model === 'local-llama')).toMatchObject({ calls: 1, inputTokens: 1_000, cost: null });
    expect(ledger.calls.map((call) => [call.model, call.unpriced, call.cost === null])).toEqual([
      ['claude-sonnet-4-5-20250929', false, false],
      ['local-llama', true, true],
      ['claude-sonnet-4-5', false, true],
    ]);
  });

  it('prices an unknown model once a price file names it', () => {
    const table = parsePriceTable(
      { models: { 'local-llama': { input: 1, cachedInput: 0.1, output: 2, cacheRule: 'openai' } } },
      'prices.json',
    );
    const ledger = new CostLedger(table);
    for (const event of events) ledger.apply(event);
    expect(ledger.summary()).toMatchObject({ pricedCalls: 2, unpricedCalls: 0, unpricedModels: [] });
  });
});

describe('priceOf', () => {
  it('matches a family followed by a date or a tag, never by another version number', () => {
    expect(priceOf(BUILT_IN_PRICES, 'claude-sonnet-4-20250514')).toBe(BUILT_IN_PRICES.models['claude-sonnet-4']);
    expect(priceOf(BUILT_IN_PRICES, 'claude-opus-4-6')).toBe(BUILT_IN_PRICES.models['claude-opus-4-6']);
    expect(priceOf(BUILT_IN_PRICES, 'claude-opus-4-7')).toBeUndefined();
    expect(priceOf(BUILT_IN_PRICES, 'gpt-5.1-codex')).toBe(BUILT_IN_PRICES.models['gpt-5.1']);
    expect(priceOf(BUILT_IN_PRICES, 'gpt-5.4')).toBeUndefined();
    expect(priceOf(BUILT_IN_PRICES, 'gpt-4o-2024-08-06')).toBe(BUILT_IN_PRICES.models['gpt-4o']);
  });

  it('prices reported usage with its cache parts apart from the rest of the input', () => {
    const price = { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25, cacheRule: 'anthropic' as const };
    expect(usageCost(price, { inputTokens: 1_000_000, cacheReadTokens: 500_000, cacheWriteTokens: 100_000, outputTokens: 1_000 })).toEqual({
      input: 2,
      cacheRead: 0.25,
      cacheWrite: 0.625,
      output: 0.025,
      total: 2.9,
    });
  });
});

describe('surfaceBreakdown', () => {
  it("splits a surface by kind and by tool, adding up to the meter's price of every node", () => {
    const fold = new SurfaceFold();
    const events = sealLog([
      drafts.startV2(),
      drafts.system('be careful'),
      drafts.user('read two files'),
      drafts.assistant('reading', ['c1', 'c2']),
      drafts.toolResult('c1', 'x'.repeat(400)),
      drafts.toolResult('c2', 'y'.repeat(40)),
    ]);
    for (const event of events) fold.apply(event);
    const breakdown = surfaceBreakdown(fold.toArray(), chars4Estimator);
    expect(breakdown.nodes).toBe(5);
    expect(breakdown.byKind.reduce((sum, kind) => sum + kind.tokens, 0)).toBe(breakdown.tokens);
    expect(breakdown.tokens).toBe(new SurfaceMeter(chars4Estimator).measure(fold.toArray()).estimate);
    expect(breakdown.byKind.map((kind) => kind.kind).sort()).toEqual([
      'assistant text',
      'system',
      'tool calls',
      'tool results',
      'user text',
    ]);
    expect(breakdown.byKind[0]?.kind).toBe('tool results');
    expect(breakdown.byTool).toEqual([expect.objectContaining({ tool: 'read_file', calls: 2, results: 2 })]);
  });
});
