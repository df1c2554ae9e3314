// The typed errors of an export: the collector refused the spans (an HTTP status), did not answer
// (nothing listening, a timeout), or the spans could not be sent for another reason.

import { ShadowlogError } from '../log/index.js';

export type OtlpFailure = 'refused' | 'unreachable' | 'timeout' | 'failed';

/** An export the collector did not accept, after the exporter's retries. */
export class OtlpExportError extends ShadowlogError {
  readonly url: string;
  readonly failure: OtlpFailure;
  /** The HTTP status, when the collector answered. */
  readonly status: number | undefined;
  /** Spans the collector accepted before this failure. */
  readonly spansSent: number;
  constructor(url: string, failure: OtlpFailure, status: number | undefined, spansSent: number, message: string, cause?: unknown) {
    super(
      failure === 'refused'
        ? 'OTLP_REFUSED'
        : failure === 'unreachable' || failure === 'timeout'
          ? 'OTLP_UNREACHABLE'
          : 'OTLP_EXPORT_FAILED',
      message,
      { cause },
    );
    this.url = url;
    this.failure = failure;
    this.status = status;
    this.spansSent = spansSent;
  }
}
