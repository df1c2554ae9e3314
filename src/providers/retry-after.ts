// What a rejected response says about retrying it, read as the official SDKs read it:
// `retry-after-ms` (milliseconds), else `retry-after` (seconds, or an HTTP date), and
// `x-should-retry`, the server's own verdict, which overrides the status.

/** The longest wait one timer can hold (setTimeout fires at once beyond it). */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

/**
 * The wait the server asked for, in milliseconds; undefined when it asked none, or gave a
 * value that is not a positive wait (unparseable, zero, negative, a date in the past).
 */
export function retryAfterMsOf(headers: Headers, now: () => number = Date.now): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null) {
    const value = Number.parseFloat(milliseconds);
    if (isWait(value)) return Math.ceil(value);
  }
  const retryAfter = headers.get('retry-after');
  if (retryAfter === null) return undefined;
  const seconds = Number.parseFloat(retryAfter);
  const value = Number.isNaN(seconds) ? Date.parse(retryAfter) - now() : seconds * 1000;
  return isWait(value) ? Math.ceil(value) : undefined;
}

/** true or false when the server sent `x-should-retry: true|false`; else undefined. */
export function shouldRetryHeader(headers: Headers): boolean | undefined {
  const value = headers.get('x-should-retry');
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** The provider's id for the request: OpenAI's x-request-id, Anthropic's request-id. */
export function requestIdOf(headers: Headers): string | undefined {
  return headers.get('x-request-id') ?? headers.get('request-id') ?? undefined;
}

function isWait(value: number): boolean {
  return Number.isFinite(value) && value > 0 && value <= LONGEST_WAIT_MS;
}
