// How a provider call failed, classified so that the spine and capabilities can act on it.

import { ShadowlogError } from '../log/errors.js';

export type ProviderErrorKind =
  | 'context-overflow'
  | 'rate-limit'
  | 'authentication'
  | 'server'
  | 'invalid-request'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'malformed-response'
  | 'missing-api-key';

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate-limit', 'server', 'network', 'timeout']);

export interface ProviderErrorOptions {
  readonly status?: number | undefined;
  readonly cause?: unknown;
  /**
   * Whether trying the same request again may succeed, when the kind alone does not say (a 409,
   * or the server's own `x-should-retry` header); by default the kind decides.
   */
  readonly retryable?: boolean | undefined;
  /** How long the server asked to be left alone before a retry (retry-after-ms, retry-after). */
  readonly retryAfterMs?: number | undefined;
  /** The id the provider gave the request (x-request-id, request-id), for its support. */
  readonly requestId?: string | undefined;
}

/** A failed model call, classified: its kind, whether a retry can help, and what the provider said. */
export class ProviderError extends ShadowlogError {
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly contextOverflow: boolean;
  readonly retryAfterMs: number | undefined;
  readonly requestId: string | undefined;

  constructor(kind: ProviderErrorKind, provider: string, message: string, options: ProviderErrorOptions = {}) {
    super(
      `PROVIDER_${kind.toUpperCase().replaceAll('-', '_')}`,
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.kind = kind;
    this.provider = provider;
    this.status = options.status;
    this.contextOverflow = kind === 'context-overflow';
    // An abort or an overflow is never worth the same request again, whatever a header says.
    this.retryable = kind === 'aborted' || this.contextOverflow ? false : (options.retryable ?? RETRYABLE.has(kind));
    this.retryAfterMs = options.retryAfterMs;
    this.requestId = options.requestId;
  }
}
