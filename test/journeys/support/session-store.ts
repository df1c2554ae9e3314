// What a store holds, read through the command a user would run (`sessions --json`, `stats
// --json`), for journeys that compare two stores or one store before and after.

import { expect } from 'vitest';
import type { HarnessHome } from './harness-home.js';
import { shadowlog } from './journey-cli.js';

export interface ListedSession {
  readonly id: string;
  readonly events: number;
  readonly [field: string]: unknown;
}

/** `shadowlog sessions --json` (in `store`, when given), checked to succeed. */
export async function listedSessions(home: HarnessHome, store?: string): Promise<ListedSession[]> {
  const result = await shadowlog(home, [...(store === undefined ? [] : ['--store', store]), '--json', 'sessions']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as ListedSession[];
}

/**
 * The figures of `stats --json` that a session imported in two goes must share with the same
 * session imported at once: its calls, what they reported, its compactions and what they
 * shadowed. (Its event count may differ: a turn cut short is ended at the cut.)
 */
export async function sessionFigures(home: HarnessHome, sessionId: string, store?: string): Promise<Record<string, unknown>> {
  const result = await shadowlog(home, [...(store === undefined ? [] : ['--store', store]), '--json', 'stats', sessionId]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const stats = JSON.parse(result.stdout) as Record<string, unknown>;
  const { modelCalls, modelErrors, reportedInputTokens, cacheReadTokens, cacheWriteTokens, compactions, tokensBefore, tokensAfter } = stats;
  return { modelCalls, modelErrors, reportedInputTokens, cacheReadTokens, cacheWriteTokens, compactions, tokensBefore, tokensAfter };
}
