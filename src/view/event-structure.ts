// The structure of a session's events as the audit page needs it before any content: each
// event's type, the sources a replacement lists, the event a copy copies, each turn's number.
// Recorded event by event; take() hands over what was recorded since the last take().

import type { LogEvent } from '../log/event.js';
import { isReplaceOp } from '../log/surface-op.js';
import type { EventStructure } from './view-data.js';

export class StructureRecorder {
  private readonly typeNumbers = new Map<string, number>();
  private readonly typeNames: string[] = [];
  private types: number[] = [];
  private sources: number[][] = [];
  private copies: number[] = [];
  private turns: number[] = [];
  private count = 0;

  /** The seq the next event must have. */
  get nextSeq(): number {
    return this.count;
  }

  add(event: LogEvent): void {
    let type = this.typeNumbers.get(event.type);
    if (type === undefined) {
      type = this.typeNames.length;
      this.typeNumbers.set(event.type, type);
      this.typeNames.push(event.type);
    }
    this.types.push(type);
    const listed = event.sourceEventSeqs;
    if (Array.isArray(listed) && listed.length > 0) this.sources.push([event.seq, isReplaceOp(event.surfaceOp) ? 1 : 0, ...listed]);
    const data = event.data as Record<string, unknown> | undefined;
    if (typeof data?.copyOf === 'number') this.copies.push(event.seq, data.copyOf);
    if (event.type === 'turn/start' && typeof data?.turn === 'number') this.turns.push(event.seq, data.turn);
    this.count++;
  }

  take(): EventStructure {
    const taken: EventStructure = {
      typeNames: [...this.typeNames],
      types: this.types,
      sources: this.sources,
      copies: this.copies,
      turns: this.turns,
    };
    this.types = [];
    this.sources = [];
    this.copies = [];
    this.turns = [];
    return taken;
  }
}

/** The structure of events `from` on of `structure`, which starts at `fromSeq` (a follow stream's first message skips what the page holds). */
export function structureFrom(structure: EventStructure, fromSeq: number, from: number): EventStructure {
  if (from <= fromSeq) return structure;
  const pairsFrom = (pairs: readonly number[]) => {
    const out: number[] = [];
    for (let at = 0; at + 1 < pairs.length; at += 2)
      if ((pairs[at] as number) >= from) out.push(pairs[at] as number, pairs[at + 1] as number);
    return out;
  };
  return {
    typeNames: structure.typeNames,
    types: structure.types.slice(from - fromSeq),
    sources: structure.sources.filter((entry) => (entry[0] as number) >= from),
    copies: pairsFrom(structure.copies),
    turns: pairsFrom(structure.turns),
  };
}
