// The surface of a log computed the naive way, from scratch: a plain array spliced at each
// replace. An independent reading of SPEC §3 that tests compare the incremental fold with.

import type { LogEvent } from '../../src/log/event.js';

export const SURFACE_TYPES = new Set(['system/message', 'user/message', 'assistant/message', 'tool/result']);

export interface NaiveNode {
  seq: number;
  sourceEventSeqs: number[];
}

/** The surface of a log (or a prefix of one), from scratch. */
export function naiveSurface(events: readonly LogEvent[]): NaiveNode[] {
  const nodes: NaiveNode[] = [];
  for (const event of events) {
    if (!SURFACE_TYPES.has(event.type)) continue;
    const op = event.surfaceOp;
    if (op === 'append') {
      nodes.push({ seq: event.seq, sourceEventSeqs: [] });
      continue;
    }
    if (op === undefined) throw new Error(`event ${event.seq} is a surface event without a surfaceOp`);
    const start = nodes.findIndex((node) => node.seq === op.startSeq);
    const end = nodes.findIndex((node) => node.seq === op.endSeq);
    if (start < 0 || end < start) throw new Error(`event ${event.seq}: range ${op.startSeq}..${op.endSeq} is not on the naive surface`);
    nodes.splice(start, end - start + 1, { seq: event.seq, sourceEventSeqs: [...(event.sourceEventSeqs ?? [])] });
  }
  return nodes;
}
