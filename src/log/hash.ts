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

/**
 * SHA-256 as the library uses it: one choice for all of it, passed in where it is used (the
 * store layer's node:crypto one on Node, store/node-sha256.ts; the log's own plain TypeScript
 * one, log/sha256.ts, elsewhere). Every implementation gives the same digests.
 */
export interface Sha256 {
  /** The lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
  readonly hex: Hasher;
  /** A streaming hash of the bytes given to it, from none. */
  begin(): Sha256State;
}

/**
 * A SHA-256 in progress. Each `update` takes whole code points: a text split inside a surrogate
 * pair would be hashed as two lone surrogates (each encoded as U+FFFD).
 */
export interface Sha256State {
  /** Hashes the UTF-8 bytes of `text` after those already hashed. */
  update(text: string): Sha256State;
  /** An independent state that has hashed the same bytes: the two go on separately. */
  copy(): Sha256State;
  /** The hex digest of the bytes hashed so far; the state can go on being updated. */
  hex(): string;
}

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
