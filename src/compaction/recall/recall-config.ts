// The recall tool's bounds: characters per call, calls per turn, matches per search. Every
// result is cut to the first bound with a marker saying what was left out.

import { ConfigError } from '../../log/errors.js';
import { readInteger, readRecord } from '../policy/config-checks.js';

export interface RecallConfig {
  /** The most characters (code points) one recall result holds, marker excluded. Default 4,000. */
  readonly maxCharsPerCall: number;
  /** Recall calls answered per turn; later ones are refused with an error result. Default 4. */
  readonly maxCallsPerTurn: number;
  /** Matches one search lists. Default 8. */
  readonly maxMatches: number;
}

export const RECALL_DEFAULTS: RecallConfig = Object.freeze({ maxCharsPerCall: 4_000, maxCallsPerTurn: 4, maxMatches: 8 });

const KEYS = ['maxCharsPerCall', 'maxCallsPerTurn', 'maxMatches'] as const;

export function parseRecallConfig(input: unknown = {}): RecallConfig {
  const record = readRecord(input, '', 'the recall options', KEYS);
  const read = (key: (typeof KEYS)[number], fix: string) =>
    record[key] === undefined ? RECALL_DEFAULTS[key] : readInteger(record[key], key, 1, fix);
  const config = {
    maxCharsPerCall: read('maxCharsPerCall', 'it is the most characters one recall result holds, e.g. 4000'),
    maxCallsPerTurn: read('maxCallsPerTurn', 'it is how many recall calls a turn may make, e.g. 4'),
    maxMatches: read('maxMatches', 'it is how many matches one search lists, e.g. 8'),
  };
  if (config.maxCharsPerCall < 200)
    throw new ConfigError(
      'maxCharsPerCall',
      `maxCharsPerCall must be at least 200 so that one match fits, found ${config.maxCharsPerCall}; raise it`,
    );
  return config;
}

/** `text` cut to `max` code points, with a marker when anything was left out. */
export function boundRecallResult(text: string, max: number): string {
  const points = [...text];
  if (points.length <= max) return text;
  return `${points.slice(0, max).join('')}\n[recall result cut at ${max} characters; ${points.length - max} more were left out — narrow the search, or read a slice with from and to]`;
}
