// The hash chain (SPEC §2): each event's hash covers the previous hash and its own envelope.

import { canonicalJson } from './canonical-json.js';
import type { LogEvent } from './event.js';
import { sha256Hex } from './sha256.js';

export const GENESIS_HASH = '0'.repeat(64);

export type UnsealedEvent = Omit<LogEvent, 'hash'>;

/**
 * The lowercase hex SHA-256 of the UTF-8 bytes of `text`. The log's own is sha256Hex (plain
 * TypeScript, so that log/ needs nothing from Node); a program on Node passes a faster one
 * (shadowlog's store layer uses node:crypto). Every hasher must give the same digests.
 */
export type Hasher = (text: string) => string;

/** The canonical JSON of an envelope without its hash: the bytes the hash is taken over. */
export function envelopeJson(event: UnsealedEvent): string {
  const envelope: Record<string, unknown> = { data: event.data, seq: event.seq, time: event.time, type: event.type };
  if (event.surfaceOp !== undefined) envelope.surfaceOp = event.surfaceOp;
  if (event.sourceEventSeqs !== undefined) envelope.sourceEventSeqs = event.sourceEventSeqs;
  if (event.ignorable === true) envelope.ignorable = true;
  return canonicalJson(envelope);
}

export function computeEventHash(prevHash: string, event: UnsealedEvent, hasher: Hasher = sha256Hex): string {
  return hasher(prevHash + envelopeJson(event));
}
