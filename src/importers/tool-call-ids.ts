// Call ids of imported tool calls: the source's own id where it is unique in the session (the
// common case), else a new one with the source's kept as providerCallId, so that a source that
// repeats an id (two branches, a tool that reuses ids) still imports. Results find their call
// through the source's id, and only while the call is on the surface waiting for its result.

import type { ToolCall } from '../log/event.js';
import type { SurfaceFold } from '../log/surface-fold.js';
import type { SourceToolCall } from './imported-call.js';

export class ToolCallIds {
  private readonly used = new Set<string>();
  /** The source's id → the session's id of its latest call. */
  private readonly bySource = new Map<string, string>();
  /** Calls whose result has not come yet → the seq of the message that made them. */
  private readonly waiting = new Map<string, number>();

  open(call: SourceToolCall): ToolCall {
    let callId = call.id;
    if (callId === '' || this.used.has(callId)) {
      let counter = 2;
      const base = call.id === '' ? 'call' : call.id;
      while (this.used.has(`${base}~${counter}`)) counter++;
      callId = `${base}~${counter}`;
    }
    this.used.add(callId);
    this.bySource.set(call.id, callId);
    return {
      callId,
      name: call.name,
      arguments: call.arguments,
      ...(call.argumentsText === undefined ? {} : { argumentsText: call.argumentsText }),
      ...(callId === call.id || call.id === '' ? {} : { providerCallId: call.id }),
    };
  }

  /** The session's id of the source's call `sourceId` (its latest, when the source repeated the id). */
  sessionIdOf(sourceId: string): string | undefined {
    return this.bySource.get(sourceId);
  }

  /** The calls of the message at `seq` wait for their results. */
  placed(calls: readonly ToolCall[], seq: number): void {
    for (const call of calls) this.waiting.set(call.callId, seq);
  }

  /** The session's id for the result of the source's call `sourceId`, if that call waits on the surface. */
  resultFor(sourceId: string, fold: SurfaceFold): string | undefined {
    const callId = this.bySource.get(sourceId);
    if (callId === undefined) return undefined;
    const seq = this.waiting.get(callId);
    return seq !== undefined && fold.isCurrent(seq) ? callId : undefined;
  }

  answered(callId: string): void {
    this.waiting.delete(callId);
  }
}
