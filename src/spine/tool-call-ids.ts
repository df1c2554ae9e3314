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
  /**
   * The ids restored from a fold checkpoint, in ascending order: searched, never turned into a
   * set, so that restoring them costs one pass over the list (a session's calls can be hundreds
   * of thousands).
   */
  private restored: readonly string[] = [];
  /** The ids noted since (all of them, when nothing was restored). */
  private readonly noted = new Set<string>();

  /** Whether the session used `id` for a call. */
  has(id: string): boolean {
    return this.noted.has(id) || sortedHas(this.restored, id);
  }

  /** The ids used so far, each once, in ascending order (what a fold checkpoint keeps of them). */
  save(): string[] {
    const added = [...this.noted].sort(compare);
    const out: string[] = [];
    let i = 0;
    let j = 0;
    const restored = this.restored;
    while (i < restored.length || j < added.length) {
      const next =
        j >= added.length || (i < restored.length && (restored[i] as string) <= (added[j] as string)) ? restored[i++] : added[j++];
      if (out[out.length - 1] !== next) out.push(next as string);
    }
    return out;
  }

  /** The ids of a `save`; throws FoldStateError when `saved` is not a list of ids in strictly ascending order. */
  static restore(saved: unknown): ToolCallIds {
    if (!Array.isArray(saved)) throw new FoldStateError('the tool-call ids are not a list');
    let previous: string | undefined;
    for (const id of saved) {
      if (typeof id !== 'string') throw new FoldStateError('the tool-call ids hold a value that is not a string');
      if (previous !== undefined && !(previous < id)) throw new FoldStateError('the tool-call ids are not in strictly ascending order');
      previous = id;
    }
    const ids = new ToolCallIds();
    ids.restored = saved as string[];
    return ids;
  }

  /** Takes the ids of `other` in place of its own (`other` is not used afterwards). */
  replaceWith(other: ToolCallIds): void {
    this.restored = other.restored;
    this.noted.clear();
    for (const id of other.noted) this.noted.add(id);
  }

  /** Notes the ids of an event's tool calls; give it every event of the session, history first. */
  observe(event: LogEvent): void {
    if (event.type !== 'assistant/message') return;
    for (const call of dataOf(event, 'assistant/message').toolCalls) this.noted.add(call.callId);
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
      if (typeof id === 'string' && id !== '' && !this.has(id) && !taken.has(id)) {
        taken.add(id);
        return call;
      }
      const base = `shadowlog-call-${seq}-${position + 1}`;
      let fresh = base;
      for (let suffix = 2; this.has(fresh) || taken.has(fresh) || fromProvider.has(fresh); suffix++) fresh = `${base}-${suffix}`;
      taken.add(fresh);
      return { ...call, callId: fresh, ...(typeof id === 'string' ? { providerCallId: id } : {}) };
    });
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedHas(sorted: readonly string[], id: string): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = sorted[middle] as string;
    if (value === id) return true;
    if (value < id) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}
