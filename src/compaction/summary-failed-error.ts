// The error of a summarizer that could not produce a usable summary.

import { ShadowlogError } from '../log/errors.js';

export class SummaryFailedError extends ShadowlogError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SUMMARY_FAILED', message, options);
  }
}
