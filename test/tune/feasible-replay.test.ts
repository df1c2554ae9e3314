// A property of the replay: a compacting policy, in a window where it can work (every single
// message far below its retained tail), never sends a call over the window, and says so; and
// its surface at every call is no larger than what no compaction would send.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePrunerConfig } from '../../src/compaction/pruner-config.js';
import { BUILT_IN_PRICES } from '../../src/meter/prices.js';
import { replaySession } from '../../src/tune/session-replay.js';
import { buildTrace } from '../../src/tune/trace.js';
import { baselinePolicy, shadowlogPolicy } from '../../src/tune/tune-policies.js';
import { buildSession, charMeter, prose, type TurnSpec } from './support/hand-built.js';

const step = fc.record({
  answer: fc.integer({ min: 20, max: 300 }),
  result: fc.option(fc.integer({ min: 20, max: 12_000 }), { nil: undefined }),
});
const turn = fc.record({ user: fc.integer({ min: 20, max: 300 }), steps: fc.array(step, { minLength: 1, maxLength: 4 }) });

function turnsOf(
  shapes: ReadonlyArray<{ user: number; steps: ReadonlyArray<{ answer: number; result: number | undefined }> }>,
): TurnSpec[] {
  let call = 0;
  return shapes.map((shape, index) => ({
    user: prose(shape.user, index),
    steps: shape.steps.map((spec, stepIndex) => ({
      answer: prose(spec.answer, index + stepIndex),
      ...(spec.result === undefined
        ? {}
        : { calls: [{ callId: `call-${call++}`, arguments: { path: `src/m${index}.ts` }, result: prose(spec.result, stepIndex) }] }),
    })),
  }));
}

describe('a feasible replay', () => {
  it('never sends a call over the window, and never more than no compaction would', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 16_000, max: 40_000 }),
        async (shapes, window) => {
          const trace = buildTrace('property', buildSession(turnsOf(shapes)), charMeter(), { window });
          const policies = [
            shadowlogPolicy('pruned', { thresholdRatio: 0.6, headroomTokens: 0, retainTokens: 2_000 }, parsePrunerConfig(undefined)),
            baselinePolicy('none'),
          ];
          const result = await replaySession(trace, charMeter(), policies, { prices: BUILT_IN_PRICES });
          const [compacting, none] = result.policies;
          expect(compacting?.feasible).toBe(true);
          expect(compacting?.callsOverWindow).toBe(0);
          compacting?.tokensPerCall.forEach((tokens, index) => {
            expect(tokens).not.toBeNull();
            expect(tokens as number).toBeLessThanOrEqual(window);
            expect(tokens as number).toBeLessThanOrEqual(none?.tokensPerCall[index] as number);
          });
          // No compaction sends the record itself: the prefix of the trace at each call.
          expect(none?.tokensPerCall).toEqual(trace.calls.map((call) => trace.prefix[call.index]));
          expect(none?.feasible).toBe(none?.tokensPerCall.every((tokens) => (tokens as number) <= window));
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);
});
