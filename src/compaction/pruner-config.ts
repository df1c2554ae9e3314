// The tool-result pruner's configuration (SPEC §9) and the marker it puts in place of the
// middle of a long tool result. `head + marker + tail ≤ threshold` is checked here, once, with
// the longest marker that can ever be written, so that pruning can never make a result longer.

import { ConfigError, InvalidEventError } from '../log/errors.js';
import { asSessionSeq } from '../log/seq.js';
import { readInteger, readRecord } from './policy/config-checks.js';
import { formatCount } from './policy/format-count.js';

/** The configuration as a user writes it; lengths are in Unicode code points. */
export interface PrunerOptions {
  /** A tool result longer than this is pruned. Default 4,096. */
  readonly thresholdChars?: number;
  /** Code points kept from the start. Default 2,048. */
  readonly headChars?: number;
  /** Code points kept from the end. Default 512. */
  readonly tailChars?: number;
}

/** A validated pruner configuration with every default applied. */
export interface PrunerConfig {
  readonly thresholdChars: number;
  readonly headChars: number;
  readonly tailChars: number;
}

/** Chosen by the evidence of docs/evidence.md (`npm run evidence`); DSH's 8,192 / 4,096 / 1,024 are `--preset dsh`. */
export const PRUNER_DEFAULTS: PrunerConfig = Object.freeze({ thresholdChars: 4_096, headChars: 2_048, tailChars: 512 });

const PRUNER_KEYS = Object.keys({ thresholdChars: true, headChars: true, tailChars: true } satisfies Record<keyof PrunerOptions, true>);

/**
 * The text that stands for the omitted middle of a tool result: how many code points were
 * left out, and the seq of the event that still holds the whole result.
 */
export function pruneMarker(omittedCodePoints: number, originalSeq: number): string {
  // Both numbers are bounded by Number.MAX_SAFE_INTEGER here, which is what makes
  // LONGEST_PRUNE_MARKER_LENGTH a true bound; anything else is a caller's bug.
  if (!Number.isSafeInteger(omittedCodePoints) || omittedCodePoints < 1) {
    throw new InvalidEventError('omittedCodePoints', 'a positive safe integer', String(omittedCodePoints));
  }
  const seq = asSessionSeq(originalSeq, 'originalSeq');
  return `\n[… ${formatCount(omittedCodePoints)} characters omitted by the tool-result pruner; the original is event #${seq} …]\n`;
}

/**
 * The length in code points of the longest marker pruneMarker can return. Its only variable
 * parts are two numbers that it accepts up to Number.MAX_SAFE_INTEGER, and a number's printed
 * length never shrinks as it grows, so the marker for (MAX_SAFE_INTEGER, MAX_SAFE_INTEGER) is
 * the longest. In practice the omitted count stays below a JavaScript string's maximum length
 * (about 2^30), so the real markers are some ten code points shorter; the bound gives that away
 * for a guarantee that needs no assumption about the engine.
 */
export const LONGEST_PRUNE_MARKER_LENGTH = [...pruneMarker(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)].length;

/**
 * Checks a pruner configuration read from JSON (or any value of unknown shape) and returns it
 * typed as written, for `createToolResultPruner`; a ConfigError names the first wrong value.
 */
export function readPrunerOptions(input: unknown): PrunerOptions {
  parsePrunerConfig(input);
  return (input ?? {}) as PrunerOptions;
}

/** Checks `input` (undefined means all defaults) and returns the configuration with defaults applied. */
export function parsePrunerConfig(input: unknown): PrunerConfig {
  if (input === undefined) return PRUNER_DEFAULTS;
  const record = readRecord(input, '', 'the pruner configuration', PRUNER_KEYS);
  const read = (key: keyof PrunerOptions, fix: string): number =>
    record[key] === undefined ? PRUNER_DEFAULTS[key] : readInteger(record[key], key, 1, fix);
  const settings: PrunerConfig = {
    thresholdChars: read('thresholdChars', 'it is the length in code points above which a tool result is pruned, e.g. 8192'),
    headChars: read('headChars', 'it is the number of code points kept from the start of a pruned result, e.g. 4096'),
    tailChars: read('tailChars', 'it is the number of code points kept from the end of a pruned result, e.g. 1024'),
  };
  const needed = settings.headChars + LONGEST_PRUNE_MARKER_LENGTH + settings.tailChars;
  if (needed > settings.thresholdChars) {
    const { headChars, tailChars, thresholdChars } = settings;
    throw new ConfigError(
      'thresholdChars',
      `headChars + marker + tailChars must be at most thresholdChars, so that a pruned result is never longer than the original, ` +
        `found ${formatCount(headChars)} + ${LONGEST_PRUNE_MARKER_LENGTH} + ${formatCount(tailChars)} = ${formatCount(needed)}, ` +
        `above thresholdChars ${formatCount(thresholdChars)} (the marker is counted at its longest, ${LONGEST_PRUNE_MARKER_LENGTH} code points); ` +
        `raise thresholdChars to at least ${formatCount(needed)}, or lower headChars + tailChars to at most ` +
        `${formatCount(thresholdChars - LONGEST_PRUNE_MARKER_LENGTH)}`,
    );
  }
  return settings;
}
