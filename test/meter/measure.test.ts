// Pricing a surface (SPEC §10): node prices by the formula, the cache by seq, and the total
// anchored on reported usage, including the fall-back to the plain estimate.

import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold, type SurfaceNode } from '../../src/log/surface-fold.js';
import {
  chars4Estimator,
  IMAGE_MAX_TOKENS,
  IMAGE_MIN_TOKENS,
  imageTokens,
  type MeterAnchor,
  SurfaceMeter,
  type TokenEstimator,
} from '../../src/meter/index.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import { moreDrafts } from '../support/log-drafts.js';

function foldOf(list: readonly EventDraft[]): SurfaceFold {
  const fold = new SurfaceFold();
  prepareAppend(fold, list, fixedNow);
  return fold;
}

function append(fold: SurfaceFold, ...list: EventDraft[]): void {
  prepareAppend(fold, list, fixedNow);
}

/** chars4, counting how many texts it was asked to count. */
function countingEstimator(): TokenEstimator & { calls: number } {
  const estimator = {
    name: 'chars4' as const,
    exact: false,
    calls: 0,
    countText(text: string): number {
      estimator.calls++;
      return chars4Estimator.countText(text);
    },
  };
  return estimator;
}

const seqs = (nodes: Iterable<SurfaceNode>) => [...nodes].map((node) => node.seq as number);

describe('the price of a node', () => {
  // sampleDrafts: 0 start, 1 system, 2 turn/start, 3 user, 4 assistant with call-1, 5 tool/result, 6 assistant.
  const fold = foldOf(sampleDrafts());
  const meter = new SurfaceMeter(chars4Estimator);
  const price = (seq: number) => meter.priceOf(fold.node(seq) as SurfaceNode);

  it('is 4 per message, 4 per block and the tokens of the text', () => {
    // 'You are a careful agent.' is 24 characters; 'Fix the failing test.' 21.
    expect(price(1)).toBe(4 + 4 + 6);
    expect(price(3)).toBe(4 + 4 + 6);
    // 'expect(add(1, 2)).toBe(4)' is 25 characters.
    expect(price(5)).toBe(4 + 4 + 7);
  });

  it("adds an assistant message's tool calls: the name and the canonical JSON of the arguments", () => {
    // 'Reading the test.' 17 → 5; 'read_file' 9 → 3; '{"path":"call-1.ts"}' 20 → 5.
    expect(price(4)).toBe(4 + 4 + 5 + 3 + 5);
  });

  it("adds a tool result's error message", () => {
    const failed = foldOf([
      drafts.start(),
      drafts.assistant('Reading.', ['call-9']),
      { type: 'tool/result', data: { callId: 'call-9', content: [], error: { message: 'ENOENT: no such file' } }, surfaceOp: 'append' },
    ]);
    // No blocks; the 20-character error is 5 tokens.
    expect(meter.priceOf(failed.node(2) as SurfaceNode)).toBe(4 + 5);
  });

  it('prices an image from its size, between a floor and a ceiling, whatever the estimator', () => {
    expect(imageTokens(100)).toBe(IMAGE_MIN_TOKENS);
    expect(imageTokens(4_000_000)).toBe(IMAGE_MAX_TOKENS);
    expect(imageTokens(200_000)).toBe(1000);
    const withImage = foldOf([
      drafts.start(),
      {
        type: 'user/message',
        data: { content: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(200_000) }] },
        surfaceOp: 'append',
      },
    ]);
    expect(meter.priceOf(withImage.node(1) as SurfaceNode)).toBe(4 + 4 + 1000);
  });

  it('prices a would-be node from its text (a summary before it is written)', () => {
    expect(meter.priceOfText('user/message', 'Fix the failing test.')).toBe(4 + 4 + 6);
  });
});

describe('SurfaceMeter.measure', () => {
  it('without an anchor: the sum of the node prices, in surface order, not anchored', () => {
    const fold = foldOf(sampleDrafts());
    const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes());
    expect(measurement.nodes.map((node) => node.seq)).toEqual([1, 3, 4, 5, 6]);
    expect(measurement.nodes.map((node) => node.tokens)).toEqual([14, 14, 21, 15, 18]);
    expect(measurement).toMatchObject({ total: 82, estimate: 82, anchored: false, estimator: 'chars4' });
  });

  it('prices each node once, and forget() lets memory follow the surface', () => {
    const fold = foldOf(sampleDrafts());
    const estimator = countingEstimator();
    const meter = new SurfaceMeter(estimator);
    const first = meter.measure(fold.nodes());
    const calls = estimator.calls;
    expect(calls).toBeGreaterThan(0);
    expect(meter.measure(fold.nodes())).toEqual(first);
    expect(estimator.calls).toBe(calls);
    expect(meter.cachedNodes).toBe(5);

    // Shadow 3–6 with a summary: the new node is priced, the old ones can be forgotten.
    append(fold, moreDrafts.userReplace('Earlier: the test expectation was fixed.', 3, 6, [3, 4, 5, 6]));
    const after = meter.measure(fold.nodes());
    expect(after.nodes.map((node) => node.seq)).toEqual([1, 7]);
    expect(estimator.calls).toBe(calls + 1);
    for (const seq of [3, 4, 5, 6]) meter.forget(seq);
    expect(meter.cachedNodes).toBe(2);
    expect(meter.measure(fold.nodes())).toEqual(after);
    expect(estimator.calls).toBe(calls + 1);
  });

  it('stays correct when one meter sees two sessions whose seqs collide', () => {
    const meter = new SurfaceMeter(chars4Estimator);
    const short = foldOf([drafts.start(), drafts.user('hi')]);
    const long = foldOf([drafts.start(), drafts.user('a much longer first message, forty-odd chars')]);
    expect(meter.measure(short.nodes()).total).toBe(4 + 4 + 1);
    expect(meter.measure(long.nodes()).total).toBe(4 + 4 + 11);
    expect(meter.measure(short.nodes()).total).toBe(4 + 4 + 1);
  });

  describe('anchored on reported usage', () => {
    const anchorOn = (surfaceSeqs: number[], inputTokens: number, recorded: Record<number, number> = {}): MeterAnchor => ({
      inputTokens,
      surfaceSeqs,
      shadowedPrice: (seq) => recorded[seq],
    });

    it('is the reported tokens when nothing changed since the call', () => {
      const fold = foldOf(sampleDrafts());
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(seqs(fold.nodes()), 120));
      expect(measurement).toMatchObject({ total: 120, estimate: 82, anchored: true });
    });

    it('adds the estimates of nodes appended since the call', () => {
      const fold = foldOf(sampleDrafts());
      const sent = seqs(fold.nodes());
      append(fold, drafts.user('Now run the suite.')); // 18 characters → 4 + 4 + 5
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(sent, 120));
      expect(measurement).toMatchObject({ total: 120 + 13, anchored: true });
    });

    it('subtracts the recorded prices of nodes shadowed since, and adds their replacement', () => {
      const fold = foldOf(sampleDrafts());
      const sent = seqs(fold.nodes());
      append(fold, moreDrafts.userReplace('Earlier: the test expectation was fixed.', 3, 6, [3, 4, 5, 6]));
      // The replacement (seq 7): 40 characters → 4 + 4 + 10. Recorded prices, as the metering event said.
      const recorded = { 3: 20, 4: 25, 5: 15, 6: 20 };
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(sent, 120, recorded));
      expect(measurement).toMatchObject({ total: 120 - 80 + 18, estimate: 14 + 18, anchored: true });
    });

    it('falls back to the plain estimate when a shadowed node has no recorded price', () => {
      const fold = foldOf(sampleDrafts());
      const sent = seqs(fold.nodes());
      append(fold, moreDrafts.userReplace('Earlier: the test expectation was fixed.', 3, 6, [3, 4, 5, 6]));
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(sent, 120, { 3: 20, 4: 25, 5: 15 }));
      expect(measurement).toMatchObject({ total: 14 + 18, estimate: 14 + 18, anchored: false });
    });

    it('spreads a count below the estimate over the estimate, still exact on the surface it was sent', () => {
      const fold = foldOf(sampleDrafts());
      const sent = seqs(fold.nodes());
      const unchanged = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(sent, 50));
      expect(unchanged).toMatchObject({ total: 50, anchored: true, unseen: 0 });
      append(fold, moreDrafts.userReplace('Earlier: the test expectation was fixed.', 3, 6, [3, 4, 5, 6]));
      // Sent: 14 still current + 80 recorded = 94 estimated, counted 50; now 14 + 18 = 32 estimated.
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(sent, 50, { 3: 20, 4: 25, 5: 15, 6: 20 }));
      expect(measurement).toMatchObject({ total: Math.round((50 / 94) * 32), anchored: true });
    });

    it('scales an unanchored estimate by the family factor', () => {
      const fold = foldOf(sampleDrafts());
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), undefined, 10, 1.5);
      expect(measurement).toMatchObject({ total: Math.ceil(1.5 * (82 + 10)), estimate: 82, ratio: 1.5, anchored: false });
    });

    it('falls back when the reported tokens are not a count', () => {
      const fold = foldOf(sampleDrafts());
      const measurement = new SurfaceMeter(chars4Estimator).measure(fold.nodes(), anchorOn(seqs(fold.nodes()), Number.NaN));
      expect(measurement).toMatchObject({ total: 82, anchored: false });
    });
  });
});
