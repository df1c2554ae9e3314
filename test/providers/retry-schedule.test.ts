// The retry schedule the spine runs, as the official SDKs define it: which errors are worth a
// retry, the backoff and its jitter, the server's own wait (retry-after-ms, retry-after in
// seconds or as a date) and verdict (x-should-retry), the limit and the deadline.

import { describe, expect, it } from 'vitest';
import { classifyHttpError, readErrorDetails } from '../../src/providers/classify-http-error.js';
import { ProviderError } from '../../src/providers/provider-error.js';
import { requestIdOf, retryAfterMsOf, shouldRetryHeader } from '../../src/providers/retry-after.js';
import { backoffMs, DEFAULT_RETRY_SETTINGS, decideRetry, resolveRetrySettings } from '../../src/providers/retry-schedule.js';

const rejected = (status: number, headers: Record<string, string> = {}, body = '') =>
  classifyHttpError({ provider: 'openai', service: 'test', status, details: readErrorDetails(body), headers: new Headers(headers) });

describe('which failures are retried', () => {
  it('retries 408, 409, 429 and every 5xx, as the SDKs do, and no other status', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 504, 529])
      expect({ status, retryable: rejected(status).retryable }).toEqual({ status, retryable: true });
    for (const status of [400, 401, 403, 404, 413, 422])
      expect({ status, retryable: rejected(status).retryable }).toEqual({ status, retryable: false });
  });

  it('obeys x-should-retry over the status, but never retries an overflow', () => {
    expect(rejected(500, { 'x-should-retry': 'false' }).retryable).toBe(false);
    expect(rejected(400, { 'x-should-retry': 'true' }, '{"error":{"message":"try again"}}').retryable).toBe(true);
    expect(rejected(429, { 'x-should-retry': 'maybe' }).retryable).toBe(true);
    const overflow = rejected(400, { 'x-should-retry': 'true' }, '{"error":{"message":"prompt is too long: 9 tokens > 5 maximum"}}');
    expect(overflow).toMatchObject({ kind: 'context-overflow', retryable: false });
  });

  it('retries connection failures and timeouts, never an abort', () => {
    expect(new ProviderError('network', 'openai', 'x').retryable).toBe(true);
    expect(new ProviderError('timeout', 'openai', 'x').retryable).toBe(true);
    expect(new ProviderError('aborted', 'openai', 'x', { retryable: true }).retryable).toBe(false);
  });
});

describe('the wait a server asks for', () => {
  const now = () => Date.parse('2026-11-30T12:00:00Z');
  it('reads retry-after-ms first, then retry-after in seconds or as an HTTP date', () => {
    expect(retryAfterMsOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(retryAfterMsOf(new Headers({ 'retry-after-ms': '12.5' }), now)).toBe(13);
    expect(retryAfterMsOf(new Headers({ 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryAfterMsOf(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMsOf(new Headers({ 'retry-after': 'Mon, 30 Nov 2026 12:00:30 GMT' }), now)).toBe(30_000);
  });

  it('ignores a wait that is not one: absent, unparseable, zero, negative, past, beyond one timer', () => {
    for (const headers of [
      {},
      { 'retry-after': 'soon' },
      { 'retry-after': '0' },
      { 'retry-after': '-3' },
      { 'retry-after': 'Mon, 30 Nov 2026 11:59:00 GMT' },
      { 'retry-after-ms': 'x' },
      { 'retry-after': String(2 ** 31) },
    ]) {
      expect({ headers, wait: retryAfterMsOf(new Headers(headers), now) }).toEqual({ headers, wait: undefined });
    }
  });

  it('reads x-should-retry and the request id of either provider', () => {
    expect(shouldRetryHeader(new Headers({ 'x-should-retry': 'true' }))).toBe(true);
    expect(shouldRetryHeader(new Headers({ 'x-should-retry': 'false' }))).toBe(false);
    expect(shouldRetryHeader(new Headers({}))).toBeUndefined();
    expect(requestIdOf(new Headers({ 'x-request-id': 'req_1' }))).toBe('req_1');
    expect(requestIdOf(new Headers({ 'request-id': 'req_011CS' }))).toBe('req_011CS');
    expect(requestIdOf(new Headers({}))).toBeUndefined();
  });

  it('keeps the wait, the status and the request id on the error', () => {
    const error = rejected(429, { 'retry-after': '3', 'x-request-id': 'req_abc' });
    expect(error).toMatchObject({ kind: 'rate-limit', status: 429, retryAfterMs: 3_000, requestId: 'req_abc' });
  });
});

describe('the schedule', () => {
  const server = new ProviderError('server', 'openai', 'down');
  it('backs off from 0.5 s, doubling, to at most 8 s, less up to a quarter of jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((retries) => backoffMs(retries, () => 0))).toEqual([500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect([0, 1, 4].map((retries) => backoffMs(retries, () => 0.999_999))).toEqual([375, 750, 6_000]);
    expect(backoffMs(1, () => 0.5)).toBe(875);
  });

  it('retries twice by default, waiting the backoff, then stops at the limit', () => {
    expect(DEFAULT_RETRY_SETTINGS).toEqual({ maxRetries: 2, deadlineMs: 120_000 });
    const decide = (retries: number) => decideRetry(server, { retries, elapsedMs: 0 }, DEFAULT_RETRY_SETTINGS, () => 0);
    expect([0, 1, 2].map(decide)).toEqual([
      { retry: true, delayMs: 500 },
      { retry: true, delayMs: 1_000 },
      { retry: false, reason: 'limit' },
    ]);
  });

  it('waits what the server asked for instead of the backoff, unless that ends past the deadline', () => {
    const asked = new ProviderError('rate-limit', 'openai', 'slow down', { retryAfterMs: 30_000 });
    const settings = { maxRetries: 5, deadlineMs: 60_000 };
    expect(decideRetry(asked, { retries: 0, elapsedMs: 0 }, settings, () => 0)).toEqual({ retry: true, delayMs: 30_000 });
    expect(decideRetry(asked, { retries: 1, elapsedMs: 30_001 }, settings, () => 0)).toEqual({ retry: false, reason: 'deadline' });
    expect(decideRetry(new ProviderError('invalid-request', 'openai', 'no'), { retries: 0, elapsedMs: 0 }, settings, () => 0)).toEqual({
      retry: false,
      reason: 'not-retryable',
    });
  });

  it('refuses settings that are not counts or durations', () => {
    expect(resolveRetrySettings({ maxRetries: 0 })).toEqual({ maxRetries: 0, deadlineMs: 120_000 });
    expect(() => resolveRetrySettings({ maxRetries: -1 })).toThrow('retries.maxRetries must be an integer of 0 or more, found -1');
    expect(() => resolveRetrySettings({ deadlineMs: 0 })).toThrow(/retries\.deadlineMs must be a positive integer/);
  });
});
