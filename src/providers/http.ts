// The one POST every adapter makes, bounded in time: a timeout until the response headers
// arrive (as the official SDKs count theirs), then an idle timeout between received chunks,
// so that a server that never answers or a stream that stalls fails as 'timeout' instead of
// hanging the agent, while a long answer streams for as long as it keeps coming. Failures
// become ProviderErrors.

import { ConfigError } from '../log/errors.js';
import { ProviderError } from './provider-error.js';

export interface Timeouts {
  /**
   * From sending until the response headers arrive. It stops counting then: a long answer is
   * not cut mid-stream (the idle timeout watches it from there).
   */
  readonly totalMs: number;
  /** The longest silence allowed once the response headers have arrived. */
  readonly idleMs: number;
}

/** Ten minutes to answer, as the official SDKs allow; two minutes of silence mean a stall. */
export const DEFAULT_TIMEOUTS: Timeouts = { totalMs: 600_000, idleMs: 120_000 };

export function resolveTimeouts(override: Partial<Timeouts> = {}): Timeouts {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...override };
  for (const key of ['totalMs', 'idleMs'] as const) {
    if (!(Number.isSafeInteger(timeouts[key]) && timeouts[key] > 0)) {
      throw new ConfigError(
        `timeouts.${key}`,
        `timeouts.${key} must be a positive integer of milliseconds, found ${String(timeouts[key])}`,
      );
    }
  }
  return timeouts;
}

export interface PostRequest {
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeouts: Timeouts;
  readonly signal?: AbortSignal | undefined;
  /**
   * What keeps the idle timeout from firing: any bytes ('bytes', the default), or only the
   * caller's `progress()` ('caller'): a stream reader calls it for each event, so that a
   * server that sends nothing but keep-alive comments still stalls.
   */
  readonly idleResetBy?: 'bytes' | 'caller';
}

export interface HttpExchange {
  readonly status: number;
  readonly headers: Headers;
  /** The body as it arrives; each wait is bounded by the idle timeout. */
  chunks(): AsyncGenerator<Uint8Array>;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** Stops the timers and drops the connection if the body was not read to the end. */
  close(): void;
  /** The answer moved on (an event arrived): restarts the idle timeout. */
  progress(): void;
}

type StopReason = 'total' | 'idle' | 'caller' | 'closed';

export async function post(request: PostRequest): Promise<HttpExchange> {
  const { provider, url, timeouts, signal } = request;
  if (signal?.aborted) throw abortedError(provider, url, signal.reason);
  const controller = new AbortController();
  let stopReason: StopReason | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (reason: StopReason) => {
    stopReason ??= reason;
    controller.abort();
  };
  const onCallerAbort = () => stop('caller');
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const totalTimer = setTimeout(() => stop('total'), timeouts.totalMs);
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop('idle'), timeouts.idleMs);
  };
  const release = () => {
    clearTimeout(totalTimer);
    clearTimeout(idleTimer);
    signal?.removeEventListener('abort', onCallerAbort);
  };
  let headersReceived = false;
  const failure = (error: unknown): ProviderError => {
    release();
    if (stopReason === 'caller') return abortedError(provider, url, signal?.reason);
    if (stopReason === 'total') {
      return new ProviderError(
        'timeout',
        provider,
        `${url} did not answer within ${timeouts.totalMs} ms (timeouts.totalMs: no response headers); retry, or raise the timeout for a slow server`,
        { cause: error },
      );
    }
    if (stopReason === 'idle') {
      return new ProviderError(
        'timeout',
        provider,
        `${url} sent nothing for ${timeouts.idleMs} ms (timeouts.idleMs): the response stalled; retry`,
        { cause: error },
      );
    }
    const what = headersReceived ? `the connection to ${url} closed before the response was complete` : `could not reach ${url}`;
    const advice = headersReceived ? 'retry' : 'check the base URL and that the server is running';
    return new ProviderError('network', provider, `${what} (${describe(error)}); ${advice}`, { cause: error });
  };

  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { ...request.headers }, body: request.body, signal: controller.signal });
  } catch (error) {
    throw failure(error);
  }
  headersReceived = true;
  // The answer has begun: from here only silence ends it.
  clearTimeout(totalTimer);
  armIdle();
  const reader = response.body?.getReader();
  let finished = reader === undefined;
  if (finished) release();

  async function* chunks(): AsyncGenerator<Uint8Array> {
    if (reader === undefined) return;
    try {
      while (true) {
        const result = await reader.read().catch((error: unknown) => {
          finished = true;
          throw failure(error);
        });
        if (result.done) {
          finished = true;
          release();
          return;
        }
        if (request.idleResetBy !== 'caller') armIdle();
        yield result.value;
      }
    } finally {
      // The consumer stopped early (an error event in a stream, say): drop the connection.
      if (!finished) close();
    }
  }

  function close(): void {
    release();
    if (finished) return;
    finished = true;
    stop('closed');
  }

  return {
    status: response.status,
    headers: response.headers,
    chunks,
    async text() {
      const decoder = new TextDecoder();
      let text = '';
      for await (const chunk of chunks()) text += decoder.decode(chunk, { stream: true });
      return text + decoder.decode();
    },
    close,
    progress() {
      if (!finished) armIdle();
    },
  };
}

function abortedError(provider: string, url: string, reason: unknown): ProviderError {
  return new ProviderError('aborted', provider, `the request to ${url} was aborted by the caller`, { cause: reason });
}

/** The innermost message: fetch wraps the useful one ("connect ECONNREFUSED …") in a cause. */
function describe(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
