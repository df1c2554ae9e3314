// origins (SPEC §3): the inverse projection from a surface node to the original events.

import { copyOfSeq } from './copy-of.js';
import { CorruptLogError, ShadowlogError } from './errors.js';
import { isSurfaceType, type LogEvent } from './event.js';
import type { SessionSeq } from './seq.js';
import { isReplaceOp } from './surface-op.js';

export class NotASurfaceEventError extends ShadowlogError {
  readonly seq: number;
  readonly type: string;
  constructor(seq: number, type: string) {
    super(
      'NOT_A_SURFACE_EVENT',
      `event ${seq} is a ${type} event, which the model is never shown; origins applies to surface events (messages and tool results)`,
    );
    this.seq = seq;
    this.type = type;
  }
}

export type ReadEvent = (seq: SessionSeq) => LogEvent | Promise<LogEvent>;

/**
 * The append-origin events that the surface event at `seq` stands for, ascending: itself
 * when it was appended, else the recursive expansion of its sourceEventSeqs (log-only events
 * among them, such as a summary's metering event, are not messages and are left out). An
 * appended copy of an earlier message (format 2, data.copyOf) stands for what it copies.
 */
export async function origins(seq: SessionSeq, readEvent: ReadEvent): Promise<SessionSeq[]> {
  const root = await readEvent(seq);
  if (!isSurfaceType(root.type)) throw new NotASurfaceEventError(seq, root.type);
  const found = new Set<SessionSeq>();
  const stack: LogEvent[] = [root];
  while (stack.length > 0) {
    const event = stack.pop() as LogEvent;
    if (!isReplaceOp(event.surfaceOp)) {
      const copied = copyOfSeq(event);
      if (copied === undefined) {
        found.add(event.seq);
        continue;
      }
      const original = await readEvent(copied);
      if (!isSurfaceType(original.type)) {
        throw new CorruptLogError(`event ${event.seq}: data.copyOf names event ${copied}, a ${original.type} event, not a message`, {
          seq: event.seq,
        });
      }
      stack.push(original);
      continue;
    }
    for (const source of event.sourceEventSeqs ?? []) {
      const sourceEvent = await readEvent(source);
      if (isSurfaceType(sourceEvent.type)) stack.push(sourceEvent);
    }
  }
  return [...found].sort((a, b) => a - b);
}
