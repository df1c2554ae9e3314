// Tool-call ids that are unique within a session. Providers do not promise that: some answer
// every call with `call_0`, repeat an id within one answer, or send an empty one, and the log
// pairs each tool/result with its call by id. Such a call gets an id of its own and keeps the
// provider's as providerCallId. Renderers send the session's id in both halves of the pair
// (the call and its result), whatever the wire protocol: no provider checks an id against the
// ones it issued, and so each request pairs calls and results unambiguously.

import { FoldStateError } from '../log/errors.js';
import type { LogEvent, ToolCall } from '../log/event.js';
import { dataOf } from '../log/event-data.js';

export class ToolCallIds {
  private used = new Set<string>();

  /** The ids used so far, in the order they were first used (what a fold checkpoint keeps of them). */
  save(): string[] {
    return [...this.used];
  }

  /** The ids of a `save`; throws FoldStateError when `saved` is not a list of ids. */
  static restore(saved: unknown): ToolCallIds {
    if (!Array.isArray(saved) || !saved.every((id) => typeof id === 'string'))
      throw new FoldStateError('the tool-call ids are not a list of strings');
    const ids = new ToolCallIds();
    ids.used = new Set(saved as string[]);
    return ids;
  }

  /** Takes the ids of `other` in place of its own. */
  replaceWith(other: ToolCallIds): void {
    this.used = new Set(other.used);
  }

  /** Notes the ids of an event's tool calls; give it every event of the session, history first. */
  observe(event: LogEvent): void {
    if (event.type !== 'assistant/message') return;
    for (const call of dataOf(event, 'assistant/message').toolCalls) this.used.add(call.callId);
  }

  /**
   * The calls of an answer with ids the session has not used: a call whose id is empty, repeats
   * an earlier call of the answer, or was used before in the session gets `shadowlog-call-SEQ-N`
   * (SEQ the seq the assistant message will have, N the call's position from 1; a suffix is
   * added in the unlikely case a provider used that too), deterministic from the log.
   */
  assign(calls: readonly ToolCall[], seq: number): ToolCall[] {
    const taken = new Set<string>();
    const fromProvider = new Set(calls.map((call) => call.callId));
    return calls.map((call, position) => {
      const id: unknown = call.callId;
      if (typeof id === 'string' && id !== '' && !this.used.has(id) && !taken.has(id)) {
        taken.add(id);
        return call;
      }
      const base = `shadowlog-call-${seq}-${position + 1}`;
      let fresh = base;
      for (let suffix = 2; this.used.has(fresh) || taken.has(fresh) || fromProvider.has(fresh); suffix++) fresh = `${base}-${suffix}`;
      taken.add(fresh);
      return { ...call, callId: fresh, ...(typeof id === 'string' ? { providerCallId: id } : {}) };
    });
  }
}
