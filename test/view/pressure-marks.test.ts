// The chart's marks of a long session: those of one kind within a few pixels are drawn as one,
// whose title counts them and names the first and the last; marks of other kinds, or farther
// apart, stay apart.

import { describe, expect, it } from 'vitest';
import { type Mark, mergedMarks } from '../../src/view/client/pressure-chart.js';

const compaction = (at: number): Mark => ({ at, className: 'm-compaction', glyph: '▤', title: `compaction at call ${at}` });

describe("the chart's marks", () => {
  it('draws the marks of one kind within a few pixels as one, counted in its title', () => {
    const marks = [compaction(1), compaction(2), compaction(3), compaction(40)];
    const merged = mergedMarks(marks, (mark) => mark.at);
    expect(merged.map((mark) => [mark.x, mark.title])).toEqual([
      [1, '3 compactions here: compaction at call 1 … compaction at call 3'],
      [40, 'compaction at call 40'],
    ]);
  });

  it('keeps marks of other kinds apart, even on the same pixel', () => {
    const prune: Mark = { at: 2, className: 'm-prune', glyph: '✂', title: 'prune at call 2' };
    const merged = mergedMarks([compaction(2), prune], (mark) => mark.at);
    expect(merged.map((mark) => mark.className)).toEqual(['m-compaction', 'm-prune']);
    expect(merged.map((mark) => mark.title)).toEqual(['compaction at call 2', 'prune at call 2']);
  });

  it('counts ten thousand compactions on a thousand pixels with thousands separators, none lost', () => {
    const marks = Array.from({ length: 10_000 }, (_, index) => compaction(index));
    const merged = mergedMarks(marks, (mark) => mark.at / 10);
    expect(merged.length).toBeLessThanOrEqual(1_000 / 3 + 1);
    const counted = merged.map((mark) => Number(/^([\d,]+) compactions/.exec(mark.title)?.[1]?.replace(/,/g, '') ?? 1));
    expect(counted.reduce((sum, value) => sum + value, 0)).toBe(10_000);
  });
});
