// The hash chain (SPEC §2): each event's hash covers the previous hash and its own envelope.

import { canonicalJson } from './canonical-json.js';
import type { LogEvent } from './event.js';
import { sha256Hex } from './sha256.js';

export const GENESIS_HASH = '0'.repeat(64);

export type UnsealedEvent = Omit<LogEvent, 'hash'>;

/** The canonical JSON of an envelope without its hash: the bytes the hash is taken over. */
export function envelopeJson(event: UnsealedEvent): string {
  const envelope: Record<string, unknown> = { data: event.data, seq: event.seq, time: event.time, type: event.type };
  if (event.surfaceOp !== undefined) envelope.surfaceOp = event.surfaceOp;
  if (event.sourceEventSeqs !== undefined) envelope.sourceEventSeqs = event.sourceEventSeqs;
  if (event.ignorable === true) envelope.ignorable = true;
  return canonicalJson(envelope);
}

export function computeEventHash(prevHash: string, event: UnsealedEvent): string {
  return sha256Hex(prevHash + envelopeJson(event));
}
