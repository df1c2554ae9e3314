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

export class ProviderError extends ShadowlogError {
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly contextOverflow: boolean;

  constructor(kind: ProviderErrorKind, provider: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(
      `PROVIDER_${kind.toUpperCase().replaceAll('-', '_')}`,
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.kind = kind;
    this.provider = provider;
    this.status = options.status;
    this.retryable = RETRYABLE.has(kind);
    this.contextOverflow = kind === 'context-overflow';
  }
}
