// Metering events and the replacements they measure (SPEC §7, §9). Compaction writes a summary
// or prune event that names the nodes it shadows, in one batch with the replacing node. The
// fold keeps each metering event's list until the replacement that lists the event among its
// sourceEventSeqs claims it, so that a list naming a seq the replacement does not shadow, a seq
// that is not on the surface, or one claimed twice is refused: the record shows what it covers.

import { FoldStateError, SurfaceOpError } from './errors.js';
import type { MeterState } from './fold-state.js';

export interface MeteringEvent {
  readonly seq: number;
  readonly type: string;
  /** The nodes its replacement shadows, in surface order. */
  readonly shadowedSeqs: readonly number[];
  /** The replacement that listed it in its sourceEventSeqs, once one has. */
  claimedBy: number | undefined;
}

/** What the ledger needs to know of the surface. */
export interface SurfacePositions {
  isCurrent(seq: number): boolean;
  nodeAfter(seq: number): { readonly seq: number } | undefined;
}

export class MeteringLedger {
  private readonly events = new Map<number, MeteringEvent>();

  /**
   * Checks, when the metering event `seq` is applied, that the nodes it names are a run of
   * consecutive current surface nodes in surface order: the only thing a replacement can shadow.
   */
  checkRange(seq: number, type: string, shadowedSeqs: readonly number[], surface: SurfacePositions): void {
    if (shadowedSeqs.length === 0) {
      throw new SurfaceOpError(
        'sources-metering',
        seq,
        `${type} names no shadowed nodes; the replacement it measures shadows at least one`,
      );
    }
    let previous: number | undefined;
    for (const shadowed of shadowedSeqs) {
      if (!surface.isCurrent(shadowed)) {
        const why =
          shadowed >= seq
            ? `${shadowed} is not an earlier event`
            : `${shadowed} is not on the current surface (already shadowed, or not a surface event)`;
        throw new SurfaceOpError('sources-metering', seq, `${type} says its replacement shadows ${shadowed}, but ${why}`);
      }
      if (previous !== undefined && surface.nodeAfter(previous)?.seq !== shadowed) {
        throw new SurfaceOpError(
          'sources-metering',
          seq,
          `${type} names ${previous} and then ${shadowed}, which do not stand next to each other on the surface; a replacement shadows a run of consecutive nodes, listed in surface order`,
        );
      }
      previous = shadowed;
    }
  }

  get(seq: number): MeteringEvent | undefined {
    return this.events.get(seq);
  }

  /** Records a metering event; returns its undo. */
  record(seq: number, type: string, shadowedSeqs: readonly number[]): () => void {
    this.events.set(seq, { seq, type, shadowedSeqs: [...shadowedSeqs], claimedBy: undefined });
    return () => {
      this.events.delete(seq);
    };
  }

  /**
   * Checks that the replacement `replacementSeq`, which shadows `shadowed` and lists the
   * metering event `meter`, is the one `meter` describes. Throws a SurfaceOpError naming both.
   */
  checkClaim(meter: MeteringEvent, replacementSeq: number, shadowed: readonly number[]): void {
    if (meter.claimedBy !== undefined) {
      throw new SurfaceOpError(
        'sources-metering',
        replacementSeq,
        `sourceEventSeqs lists ${meter.type} ${meter.seq}, which already measures the replacement at seq ${meter.claimedBy}; a metering event belongs to one replacement`,
      );
    }
    const same = meter.shadowedSeqs.length === shadowed.length && meter.shadowedSeqs.every((seq, index) => seq === shadowed[index]);
    if (!same) {
      throw new SurfaceOpError(
        'sources-metering',
        replacementSeq,
        `this replace shadows ${listOf(shadowed)}, but its metering event ${meter.type} ${meter.seq} says it shadows ${listOf(meter.shadowedSeqs)}; the two must name the same nodes, in surface order`,
      );
    }
  }

  /** Marks `meter` as measuring `replacementSeq`; returns the undo. */
  claim(meter: MeteringEvent, replacementSeq: number): () => void {
    meter.claimedBy = replacementSeq;
    return () => {
      meter.claimedBy = undefined;
    };
  }

  /** Every metering event, in seq order; a claimed one without its list (see MeterState). */
  snapshot(): MeterState[] {
    const out: MeterState[] = [];
    for (const meter of this.events.values()) {
      const claimed = meter.claimedBy !== undefined;
      out.push({ seq: meter.seq, type: meter.type, shadowedSeqs: claimed ? [] : meter.shadowedSeqs, claimedBy: meter.claimedBy ?? null });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Takes the events of a snapshot (into an empty ledger). */
  restore(meters: readonly MeterState[]): void {
    for (const meter of meters) {
      if (this.events.has(meter.seq)) throw new FoldStateError(`metering event ${meter.seq} is listed twice`);
      this.events.set(meter.seq, {
        seq: meter.seq,
        type: meter.type,
        shadowedSeqs: [...meter.shadowedSeqs],
        claimedBy: meter.claimedBy ?? undefined,
      });
    }
  }

  /** Metering events no replacement has claimed (yet), in seq order. */
  unclaimed(): MeteringEvent[] {
    return [...this.events.values()].filter((meter) => meter.claimedBy === undefined).sort((a, b) => a.seq - b.seq);
  }
}

function listOf(seqs: readonly number[]): string {
  const shown = seqs.length > 12 ? [...seqs.slice(0, 12), `… (${seqs.length} in all)`] : seqs;
  return `[${shown.join(', ')}]`;
}
