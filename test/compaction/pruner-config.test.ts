// The tool-result pruner's configuration (SPEC §9): defaults, validation, and the rule
// head + marker + tail ≤ threshold, checked at construction against the longest marker.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LONGEST_PRUNE_MARKER_LENGTH, PRUNER_DEFAULTS, parsePrunerConfig, pruneMarker } from '../../src/compaction/pruner-config.js';
import { ConfigError, InvalidEventError } from '../../src/log/errors.js';

const codePoints = (text: string) => [...text].length;

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('INVALID_CONFIG');
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError, and nothing was thrown');
}

describe('parsePrunerConfig', () => {
  it('applies the defaults', () => {
    // The pruner docs/evidence.md chose (test/tune/evidence-defaults.test.ts checks it against it).
    expect(parsePrunerConfig(undefined)).toEqual({ thresholdChars: 4_096, headChars: 2_048, tailChars: 512 });
    expect(parsePrunerConfig({})).toEqual(PRUNER_DEFAULTS);
    expect(parsePrunerConfig({ headChars: 100 })).toEqual({ thresholdChars: 4_096, headChars: 100, tailChars: 512 });
  });

  it('rejects an unknown key, naming the allowed ones', () => {
    const error = configError(() => parsePrunerConfig({ tailchars: 10 }));
    expect(error.key).toBe('tailchars');
    expect(error.message).toBe(
      'tailchars is not a key of the pruner configuration: expected one of thresholdChars, headChars, tailChars, found "tailchars"; did you mean tailChars? Rename or remove it',
    );
    expect(configError(() => parsePrunerConfig({ maxChars: 10 })).message).toContain(
      'expected one of thresholdChars, headChars, tailChars',
    );
  });

  it('rejects a root that is not an object', () => {
    for (const input of [null, 8192, 'x', []]) expect(configError(() => parsePrunerConfig(input)).key).toBe('');
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '8192', null])('rejects %o for each length', (value) => {
    for (const key of ['thresholdChars', 'headChars', 'tailChars']) {
      const error = configError(() => parsePrunerConfig({ [key]: value }));
      expect(error.key).toBe(key);
      expect(error.message).toMatch(new RegExp(`^${key} must be a whole number from 1 to 9,007,199,254,740,991, found .+; it is `));
    }
  });

  it('accepts head + longest marker + tail = threshold, and rejects one more', () => {
    const headChars = 10;
    const tailChars = 20;
    const exact = headChars + LONGEST_PRUNE_MARKER_LENGTH + tailChars;
    expect(parsePrunerConfig({ thresholdChars: exact, headChars, tailChars }).thresholdChars).toBe(exact);
    const error = configError(() => parsePrunerConfig({ thresholdChars: exact - 1, headChars, tailChars }));
    expect(error.key).toBe('thresholdChars');
    expect(error.message).toBe(
      'headChars + marker + tailChars must be at most thresholdChars, so that a pruned result is never longer than the original, ' +
        `found 10 + ${LONGEST_PRUNE_MARKER_LENGTH} + 20 = ${exact}, above thresholdChars ${exact - 1} ` +
        `(the marker is counted at its longest, ${LONGEST_PRUNE_MARKER_LENGTH} code points); raise thresholdChars to at least ${exact}, ` +
        `or lower headChars + tailChars to at most ${exact - 1 - LONGEST_PRUNE_MARKER_LENGTH}`,
    );
  });

  it('rejects a head that alone exceeds the default threshold', () => {
    const error = configError(() => parsePrunerConfig({ headChars: PRUNER_DEFAULTS.thresholdChars - 100 }));
    const head = PRUNER_DEFAULTS.thresholdChars - 100;
    const tail = PRUNER_DEFAULTS.tailChars;
    expect(error.message).toContain(
      `found ${formatted(head)} + ${LONGEST_PRUNE_MARKER_LENGTH} + ${formatted(tail)} = ${formatted(head + LONGEST_PRUNE_MARKER_LENGTH + tail)}`,
    );
    expect(error.message).toContain('raise thresholdChars to at least');
  });
});

function formatted(value: number): string {
  return value.toLocaleString('en-US');
}

describe('pruneMarker', () => {
  it('says how many code points were omitted and which event holds the original', () => {
    expect(pruneMarker(12_345, 42)).toBe('\n[… 12,345 characters omitted by the tool-result pruner; the original is event #42 …]\n');
    expect(pruneMarker(1, 0)).toBe('\n[… 1 characters omitted by the tool-result pruner; the original is event #0 …]\n');
  });

  it('is longest for the largest numbers it accepts', () => {
    expect(LONGEST_PRUNE_MARKER_LENGTH).toBe(codePoints(pruneMarker(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)));
    expect(pruneMarker(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).toContain('9,007,199,254,740,991 characters');
    expect(LONGEST_PRUNE_MARKER_LENGTH + 4_096 + 1_024).toBeLessThanOrEqual(8_192);
  });

  it.each([
    [0, 1],
    [-1, 1],
    [1.5, 1],
    [Number.NaN, 1],
    [2 ** 53, 1],
    [1, -1],
    [1, 0.5],
    [1, 2 ** 53],
  ])('rejects omitted %s and seq %s, which could break the bound', (omitted, seq) => {
    expect(() => pruneMarker(omitted, seq)).toThrow(InvalidEventError);
  });

  it('never exceeds the bound, for any omitted count and seq up to safe-integer sizes', () => {
    const safe = fc.oneof(
      fc.integer({ min: 1, max: 1_000_000 }),
      fc.maxSafeNat().filter((value) => value >= 1),
    );
    fc.assert(
      fc.property(safe, fc.oneof(fc.nat(10_000), fc.maxSafeNat()), (omitted, seq) => {
        expect(codePoints(pruneMarker(omitted, seq))).toBeLessThanOrEqual(LONGEST_PRUNE_MARKER_LENGTH);
      }),
      { numRuns: 5_000 },
    );
  });

  it('fits head + marker + tail within the threshold whenever the configuration was accepted', () => {
    const length = fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 20_000 }));
    fc.assert(
      fc.property(
        length,
        length,
        length,
        fc.maxSafeNat().filter((value) => value >= 1),
        fc.maxSafeNat(),
        (threshold, head, tail, omitted, seq) => {
          let config: ReturnType<typeof parsePrunerConfig>;
          try {
            config = parsePrunerConfig({ thresholdChars: threshold, headChars: head, tailChars: tail });
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigError);
            expect(head + LONGEST_PRUNE_MARKER_LENGTH + tail).toBeGreaterThan(threshold);
            return;
          }
          expect(config.headChars + codePoints(pruneMarker(omitted, seq)) + config.tailChars).toBeLessThanOrEqual(config.thresholdChars);
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
