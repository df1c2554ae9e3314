// A LogStore that fails chosen appends (and, if asked, releases of ownership), to simulate a
// crash or a full disk at a precise step.

import { ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import type { AppendOptions, LogStore, Ownership } from '../../src/store/log-store.js';

export class InjectedFailure extends ShadowlogError {
  constructor(what: string) {
    super('INJECTED_FAILURE', `injected failure: ${what}`);
  }
}

export interface FailingStoreOptions {
  /** Releases of ownership for which this answers true throw, as on a full disk, and release nothing. */
  readonly failRelease?: (sessionId: string) => boolean;
}

/** Wraps `inner`; appends for which `shouldFail` answers true throw and write nothing. */
export function failingStore(
  inner: LogStore,
  shouldFail: (events: readonly LogEvent[], appendIndex: number) => boolean,
  options: FailingStoreOptions = {},
): LogStore & { appends: number } {
  const wrapper = Object.create(inner) as LogStore & { appends: number };
  wrapper.appends = 0;
  const { failRelease } = options;
  if (failRelease !== undefined) {
    wrapper.acquireOwnership = async (sessionId: string): Promise<Ownership> => {
      const ownership = await inner.acquireOwnership(sessionId);
      return {
        sessionId: ownership.sessionId,
        owner: ownership.owner,
        release: async () => {
          if (failRelease(sessionId)) throw new InjectedFailure(`release of session ${sessionId}`);
          await ownership.release();
        },
      };
    };
  }
  wrapper.append = async (sessionId: string, events: readonly LogEvent[], options: AppendOptions) => {
    const index = wrapper.appends++;
    if (shouldFail(events, index)) throw new InjectedFailure(`append #${index} of ${events.map((event) => event.type).join(', ')}`);
    return inner.append(sessionId, events, options);
  };
  return wrapper;
}

/** Fails every append that contains an event of `type` (optionally only the nth such append). */
export function failOnType(type: string, nth = 0): (events: readonly LogEvent[]) => boolean {
  let seen = 0;
  return (events) => events.some((event) => event.type === type) && seen++ === nth;
}
