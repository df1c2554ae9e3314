// The rule that chooses the defaults, on small hand-made tables: the compaction limit (one per
// 20 calls, at least one), the cells it exempts or leaves out, feasibility in every cell, and
// the cheapest within two points of the best retention.

import { describe, expect, it } from 'vitest';
import { allowedCompactions, type RuleCell, type RuleOutcome, selectDefaults } from '../../src/tune/selection-rule.js';
import { EvidenceRuleError } from '../../src/tune/tune-errors.js';

const outcome = (compactions: number, cost: number, kept = 100, options: { feasible?: boolean; used?: number } = {}): RuleOutcome => ({
  feasible: options.feasible ?? true,
  compactions,
  cost,
  used: options.used ?? 100,
  kept,
});

const cell = (session: string, window: number, calls: number, ...outcomes: RuleOutcome[]): RuleCell => ({
  session,
  window,
  calls,
  outcomes,
});

describe('allowedCompactions', () => {
  it('allows one per 20 calls, and one in a session shorter than 20', () => {
    expect(allowedCompactions(7)).toBe(1);
    expect(allowedCompactions(20)).toBe(1);
    expect(allowedCompactions(39)).toBe(1);
    expect(allowedCompactions(40)).toBe(2);
    expect(allowedCompactions(453)).toBe(22);
    expect(allowedCompactions(0)).toBe(1);
  });
});

describe('selectDefaults', () => {
  it('takes the cheapest within two points of the best retention', () => {
    const selection = selectDefaults({
      policies: ['keeps-all', 'cheap-lossy', 'close', 'closer-dearer'],
      cells: [cell('a', 64_000, 100, outcome(1, 10, 100), outcome(1, 2, 90), outcome(1, 5, 99), outcome(1, 7, 99))],
    });
    expect(selection.policy).toBe('close');
    expect(selection.index).toBe(2);
    expect(selection.candidates).toEqual(['close', 'closer-dearer', 'keeps-all']);
    expect(selection.bestRetention).toBe(1);
    expect(selection.withinLimit).toBe(true);
  });

  it('excludes a policy that compacts more than once per 20 calls where another does not', () => {
    const selection = selectDefaults({
      policies: ['thrashes', 'calm'],
      cells: [
        cell('pi', 100_000, 453, outcome(167, 23.41, 97), outcome(2, 7.94, 98)),
        cell('b', 200_000, 40, outcome(0, 1), outcome(0, 3)),
      ],
    });
    expect(selection.policy).toBe('calm');
    expect(selection.standings[0]?.overLimit).toEqual(['pi @ 100000']);
  });

  it('counts the limit per session: two compactions in 40 calls pass, three do not', () => {
    const policies = ['two', 'three'];
    expect(selectDefaults({ policies, cells: [cell('s', 32_768, 40, outcome(2, 5), outcome(3, 1))] }).policy).toBe('two');
    expect(selectDefaults({ policies, cells: [cell('s', 32_768, 60, outcome(2, 5), outcome(3, 1))] }).policy).toBe('three');
  });

  it('lets a short session compact once, and exempts a cell where every feasible policy is over the limit', () => {
    const selection = selectDefaults({
      policies: ['cheap', 'dear'],
      cells: [
        // A 7-call sub-agent session: one compaction is within the limit for both.
        cell('sub-agent', 32_768, 7, outcome(1, 1), outcome(0, 2)),
        // Every feasible policy compacts more than once in 7 calls: the cell excludes no one.
        cell('tight', 32_768, 7, outcome(2, 1), outcome(3, 2)),
      ],
    });
    expect(selection.policy).toBe('cheap');
    expect(selection.exempt).toEqual(['tight @ 32768']);
    expect(selection.standings.every((standing) => standing.overLimit.length === 0)).toBe(true);
  });

  it('an infeasible policy neither wins nor makes a cell bind', () => {
    const selection = selectDefaults({
      policies: ['overflows', 'a', 'b'],
      cells: [cell('s', 32_768, 20, outcome(0, 0.5, 100, { feasible: false }), outcome(2, 1, 95), outcome(3, 2, 96))],
    });
    // Only the infeasible policy stays within the limit, so the cell is exempt, and a wins on cost.
    expect(selection.exempt).toEqual(['s @ 32768']);
    expect(selection.policy).toBe('a');
    expect(selection.standings[0]?.feasible).toBe(false);
  });

  it('leaves out a cell no policy fits, and requires feasibility in every other cell', () => {
    const selection = selectDefaults({
      policies: ['refused-small', 'works'],
      cells: [
        cell('big-prompt', 32_768, 10, outcome(0, 1, 0, { feasible: false, used: 0 }), outcome(0, 1, 0, { feasible: false, used: 0 })),
        cell('s', 32_768, 50, outcome(0, 1, 100, { feasible: false }), outcome(1, 5)),
        cell('s', 200_000, 50, outcome(0, 1), outcome(0, 5)),
      ],
    });
    expect(selection.leftOut).toEqual(['big-prompt @ 32768']);
    expect(selection.policy).toBe('works');
  });

  it('counts a session that never reaches the threshold, and names it', () => {
    const selection = selectDefaults({
      policies: ['a', 'b'],
      cells: [cell('short', 1_000_000, 5, outcome(0, 1), outcome(0, 1)), cell('long', 64_000, 100, outcome(2, 3, 90), outcome(1, 4, 99))],
    });
    expect(selection.unreached).toEqual(['short @ 1000000']);
    // Retention pools over the cells: a keeps 190 of 200, b 199 of 200, so a is 4.5 points below.
    expect(selection.policy).toBe('b');
  });

  it('breaks a tie on cost by retention, then by the table order', () => {
    const selection = selectDefaults({
      policies: ['first', 'second', 'third'],
      cells: [cell('s', 64_000, 40, outcome(1, 3, 99), outcome(1, 3, 100), outcome(1, 3, 100))],
    });
    expect(selection.candidates).toEqual(['second', 'third', 'first']);
  });

  it('falls back to the fewest cells over the limit when no single policy is within it everywhere', () => {
    const selection = selectDefaults({
      policies: ['a', 'b', 'c'],
      cells: [
        cell('x', 64_000, 20, outcome(1, 1), outcome(2, 1), outcome(2, 1)),
        cell('y', 64_000, 20, outcome(2, 1), outcome(1, 1), outcome(2, 1)),
      ],
    });
    expect(selection.withinLimit).toBe(false);
    expect(selection.candidates).toEqual(['a', 'b']);
  });

  it('refuses a misaligned table, a negative figure, and a table with no policy feasible everywhere', () => {
    expect(() => selectDefaults({ policies: ['a', 'b'], cells: [cell('s', 64_000, 10, outcome(0, 1))] })).toThrow(EvidenceRuleError);
    expect(() => selectDefaults({ policies: ['a'], cells: [cell('s', 64_000, 10, outcome(0, -1))] })).toThrow(/negative/);
    expect(() => selectDefaults({ policies: ['a'], cells: [cell('s', 64_000, 10, outcome(0, 1, 101))] })).toThrow(EvidenceRuleError);
    try {
      selectDefaults({
        policies: ['a', 'b'],
        cells: [
          cell('s', 32_768, 10, outcome(0, 1, 100, { feasible: false }), outcome(0, 1)),
          cell('s', 64_000, 10, outcome(0, 1), outcome(0, 1, 100, { feasible: false })),
        ],
      });
      expect.unreachable();
    } catch (error) {
      expect(EvidenceRuleError.isInstance(error) && (error as EvidenceRuleError).problem).toBe('no-feasible-policy');
    }
  });
});
