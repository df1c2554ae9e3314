// The attempts of one model call, tried again at the transport after a failure that may pass
// (providers/retry-schedule.ts): the spine asks it, after each failure, how long to wait, and
// logs every attempt as a model/error and every retry as a step of its own.

import type { ProviderError } from '../providers/provider-error.js';
import { decideRetry, type RetryClock, type RetryDecision, type RetrySettings } from '../providers/retry-schedule.js';

export class TransportRetries {
  private made = 0;
  private since: number;

  constructor(
    private readonly settings: RetrySettings,
    private readonly clock: RetryClock,
  ) {
    this.since = clock.now();
  }

  /** Counts an attempt about to be made. */
  attempt(): void {
    this.made++;
  }

  /** The number of the latest attempt, from 1. */
  get attempts(): number {
    return this.made;
  }

  /** Whether the failure of the latest attempt is worth another, and after how long. */
  decide(error: ProviderError): RetryDecision {
    return decideRetry(error, { retries: this.made - 1, elapsedMs: this.clock.now() - this.since }, this.settings, this.clock.random);
  }

  /** The request changed (a capability compacted the surface): its attempts count afresh. */
  restart(): void {
    this.made = 0;
    this.since = this.clock.now();
  }

  /** Waits before a retry; false when the turn was aborted meanwhile. */
  async wait(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return !signal.aborted;
    } catch (error) {
      if (signal.aborted) return false;
      throw error;
    }
  }
}
