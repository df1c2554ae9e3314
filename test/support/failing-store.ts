// A LogStore that fails chosen appends, to simulate a crash or a full disk at a precise step.

import { ShadowlogError } from '../../src/log/errors.js';
import type { LogEvent } from '../../src/log/event.js';
import type { AppendOptions, LogStore } from '../../src/store/log-store.js';

export class InjectedFailure extends ShadowlogError {
  constructor(what: string) {
    super('INJECTED_FAILURE', `injected failure: ${what}`);
  }
}

/** Wraps `inner`; appends for which `shouldFail` answers true throw and write nothing. */
export function failingStore(
  inner: LogStore,
  shouldFail: (events: readonly LogEvent[], appendIndex: number) => boolean,
): LogStore & { appends: number } {
  const wrapper = Object.create(inner) as LogStore & { appends: number };
  wrapper.appends = 0;
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
