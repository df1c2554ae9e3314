// The state of a surface fold as plain data, nodes named by seq: what a fold checkpoint keeps
// (fold-checkpoint.ts encodes it), and what SurfaceFold.restore rebuilds a fold from, reading
// the node events back from the log.

import type { FormatVersion } from './event.js';

/** A metering event in the ledger: the nodes it says its replacement shadows, and the replacement that claimed it. */
export interface MeterState {
  readonly seq: number;
  readonly type: string;
  /** Kept only while unclaimed: a claimed event is refused by any later claim before its list is read. */
  readonly shadowedSeqs: readonly number[];
  readonly claimedBy: number | null;
}

/** The latest model/request the fold checked, and the surface nodes appended since (null after a replacement). */
export interface RequestState {
  readonly seq: number;
  readonly seqs: readonly number[];
  readonly appended: readonly number[] | null;
}

export interface FoldState {
  /** The number of events applied: the seq the state was taken at. */
  readonly nextSeq: number;
  /** The hash of event nextSeq - 1. */
  readonly headHash: string;
  /** The hash of event 0. */
  readonly firstHash: string;
  readonly formatVersion: FormatVersion;
  /** Every type seen that is not a core type, and whether the fold's registry knew it and took it for a metering event. */
  readonly extensionTypes: readonly { readonly type: string; readonly known: boolean; readonly metering: boolean }[];
  /** The surface, in order. */
  readonly nodeSeqs: readonly number[];
  /** The tool calls on the surface, in the order they were made: call id, the call's node, its result's node. */
  readonly calls: readonly (readonly [callId: string, callSeq: number, resultSeq: number | null])[];
  readonly meters: readonly MeterState[];
  /** One bit per event (bit seq & 7 of byte seq >> 3): was it of a surface type? */
  readonly surfaceBits: Uint8Array;
  readonly request: RequestState | null;
}
