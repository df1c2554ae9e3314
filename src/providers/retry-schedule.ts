// When to try a failed model call again, as both official SDKs do: errors that may pass
// (408, 409, 429, 5xx, connection failures and timeouts, or whatever `x-should-retry` says),
// twice by default, after the wait the server asked for or else an exponential backoff from
// 0.5 s to 8 s with up to 25 % jitter; and, beyond the SDKs, never past a total deadline.
// The spine runs the schedule, so that each attempt is a model call of its own in the log.

import { setTimeout as sleepFor } from 'node:timers/promises';
import { ConfigError } from '../log/errors.js';
import type { ProviderError } from './provider-error.js';

export interface RetrySettings {
  /** Retries after the first attempt (default 2, as the SDKs). */
  readonly maxRetries: number;
  /**
   * No retry starts later than this many milliseconds after the call's first attempt began
   * (default 120,000): a server that asks for a longer wait gets its error reported instead.
   */
  readonly deadlineMs: number;
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = { maxRetries: 2, deadlineMs: 120_000 };

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Time as the schedule sees it; tests pass their own so that no test waits for real seconds. */
export interface RetryClock {
  /** Milliseconds on a monotonic scale. */
  now(): number;
  /** Resolves after `ms`; rejects as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A number in [0, 1), for the jitter. */
  random(): number;
}

export const SYSTEM_RETRY_CLOCK: RetryClock = {
  now: () => performance.now(),
  sleep: async (ms, signal) => {
    await sleepFor(ms, undefined, { signal });
  },
  random: Math.random,
};

export function resolveRetrySettings(override: Partial<RetrySettings> = {}): RetrySettings {
  const settings = { ...DEFAULT_RETRY_SETTINGS, ...override };
  if (!(Number.isSafeInteger(settings.maxRetries) && settings.maxRetries >= 0)) {
    throw new ConfigError('retries.maxRetries', `retries.maxRetries must be an integer of 0 or more, found ${String(settings.maxRetries)}`);
  }
  if (!(Number.isSafeInteger(settings.deadlineMs) && settings.deadlineMs > 0)) {
    throw new ConfigError(
      'retries.deadlineMs',
      `retries.deadlineMs must be a positive integer of milliseconds, found ${String(settings.deadlineMs)}`,
    );
  }
  return settings;
}

export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number }
  | { readonly retry: false; readonly reason: 'not-retryable' | 'limit' | 'deadline' };

export interface AttemptHistory {
  /** Retries already made of this call. */
  readonly retries: number;
  /** Milliseconds since its first attempt began. */
  readonly elapsedMs: number;
}

export function decideRetry(error: ProviderError, history: AttemptHistory, settings: RetrySettings, random: () => number): RetryDecision {
  if (!error.retryable) return { retry: false, reason: 'not-retryable' };
  if (history.retries >= settings.maxRetries) return { retry: false, reason: 'limit' };
  const delayMs = error.retryAfterMs ?? backoffMs(history.retries, random);
  if (history.elapsedMs + delayMs > settings.deadlineMs) return { retry: false, reason: 'deadline' };
  return { retry: true, delayMs };
}

/** The SDKs' backoff: 0.5 s doubled per retry made, at most 8 s, less up to a quarter of jitter. */
export function backoffMs(retries: number, random: () => number): number {
  const base = Math.min(INITIAL_DELAY_MS * 2 ** retries, MAX_DELAY_MS);
  return Math.round(base * (1 - random() * 0.25));
}
