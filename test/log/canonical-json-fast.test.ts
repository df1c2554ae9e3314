// canonicalJson writes most values through JSON.stringify with a sorted key list (the fast
// path); it must give exactly what the JavaScript writer gives, and refuse what it refuses.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonAndCopy, canonicalJsonByWriter, MAX_JSON_DEPTH } from '../../src/log/canonical-json.js';

const awkwardKey = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'toJSON', '10', '2', '', 'hash', '😀', '\uffff', '\ud800'),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('any'), { maxLength: 4 }),
    tie('object'),
    tie('parsed'),
  ),
  object: fc.dictionary(awkwardKey, tie('any'), { maxKeys: 5 }),
  // JSON.parse makes "__proto__" an own property, as a parsed tool argument would have it.
  parsed: fc.dictionary(awkwardKey, tie('any'), { maxKeys: 5 }).map((entries) => JSON.parse(JSON.stringify(entries)) as object),
}));

function outcome(write: () => string): { json: string } | { error: string } {
  try {
    return { json: write() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('canonicalJson', () => {
  it('writes and refuses exactly as the JavaScript writer does, for random values', () => {
    fc.assert(
      fc.property(value.any, (input) => {
        expect(outcome(() => canonicalJson(input))).toEqual(outcome(() => canonicalJsonByWriter(input)));
      }),
      { numRuns: 3000 },
    );
  });

  it('copies a value as JSON.parse of its canonical JSON would, keys in the same order', () => {
    fc.assert(
      fc.property(value.any, fc.integer({ min: 0, max: 3 }), (input, depth) => {
        let expected: string;
        try {
          expected = canonicalJsonByWriter(input, depth);
        } catch {
          expect(() => canonicalJsonAndCopy(input, depth)).toThrow();
          return;
        }
        const { json, copy } = canonicalJsonAndCopy(input, depth);
        expect(json).toBe(expected);
        expect(copy).toEqual(JSON.parse(expected));
        expect(JSON.stringify(copy)).toBe(JSON.stringify(JSON.parse(expected)));
        if (typeof input === 'object' && input !== null) expect(copy).not.toBe(input);
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same for values with many distinct keys, nested at the depth limit, or of a class', () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, index) => [`key${99 - index}`, { [`inner${index}`]: index }]));
    let deep: unknown = 'bottom';
    for (let level = 0; level < MAX_JSON_DEPTH; level++) deep = { level: deep };
    const holey: unknown[] = [1, 2, 3];
    delete holey[1];
    for (const input of [wide, deep, { at: new Date(0) }, { values: new Map() }, holey, { big: 10n }, { nan: Number.NaN }]) {
      expect(outcome(() => canonicalJson(input))).toEqual(outcome(() => canonicalJsonByWriter(input)));
    }
  });
});
