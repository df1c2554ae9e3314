// The checks a session's events pass on their way into a store from outside it (import from a
// file, copy from another store), one event at a time: the envelope, seqs dense from 0, the hash
// chain, and every SurfaceOp rule (the fold). Replay reads a stored prefix through the same
// checks, link by link, so that it can say where a chain breaks and still rebuild what it asked for.

import { parseEnvelope } from '../log/envelope.js';
import { CorruptLogError, HashChainError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { rehashEvent } from '../log/event-json.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import { GENESIS_HASH, type Hasher } from '../log/hash.js';
import { SurfaceFold } from '../log/surface-fold.js';
import { nodeSha256Hex } from './node-sha256.js';

export interface ChainCheckOptions {
  readonly registry?: EventTypeRegistry;
  /** Computes the SHA-256 of each event (default: node:crypto). */
  readonly hasher?: Hasher;
}

/** One event read against the chain: its envelope checked, its hash recomputed. */
export interface ChainLink {
  readonly event: LogEvent;
  /** The hash over the previous event's stored hash and this envelope. */
  readonly recomputedHash: string;
  /** The recomputed hash is the stored one. */
  readonly intact: boolean;
}

export class ChainCheck {
  readonly fold: SurfaceFold;
  private readonly hasher: Hasher;
  private prevHash = GENESIS_HASH;

  constructor(options: ChainCheckOptions = {}) {
    this.fold = new SurfaceFold(options.registry === undefined ? {} : { registry: options.registry });
    this.hasher = options.hasher ?? nodeSha256Hex;
  }

  /** The seq the next event must have: the number of events checked. */
  get nextSeq(): number {
    return this.fold.nextSeq;
  }

  /** The hash of the last event checked (the genesis hash before the first). */
  get lastHash(): string {
    return this.prevHash;
  }

  /**
   * Checks `value` as the next event and returns it. A bad envelope or SurfaceOp throws its own
   * typed error; a seq out of turn a CorruptLogError, a broken chain a HashChainError, naming the seq.
   */
  check(value: unknown): LogEvent {
    const link = this.link(value);
    if (!link.intact) throw brokenLink(link);
    this.accept(link);
    return link.event;
  }

  /**
   * Reads `value` as the next event without changing anything: its envelope and seq are checked
   * (throwing as check does) and its hash recomputed. A broken link is returned, not thrown.
   */
  link(value: unknown): ChainLink {
    const event = parseEnvelope(value);
    if (event.seq !== this.fold.nextSeq) {
      throw new CorruptLogError(`expected event seq ${this.fold.nextSeq}, found ${event.seq}`, { seq: event.seq });
    }
    // Also remembers the event's canonical body when the hash matches: the store writes it as is.
    const recomputedHash = rehashEvent(this.prevHash, event, this.hasher);
    return { event, recomputedHash, intact: recomputedHash === event.hash };
  }

  /**
   * Applies a link read by link() to the fold (which may refuse it) and moves on. After a broken
   * link the chain goes on from the event's stored hash, as verify does, so that each later
   * link is judged on its own.
   */
  accept(link: ChainLink): void {
    this.fold.apply(link.event);
    this.prevHash = link.event.hash;
  }

  /** Checks what only the end of a log can show: every metering event met its replacement. */
  finish(): void {
    const [meter] = this.fold.unclaimedMeteringEvents();
    if (meter !== undefined) {
      throw new CorruptLogError(
        `event ${meter.seq}: ${meter.type} measures a replacement, but no replacement lists it in its sourceEventSeqs; the log ends without the replacement written in one batch with it`,
        { seq: meter.seq },
      );
    }
  }
}

/** The error for a broken link: which event, and the stored and recomputed hashes. */
export function brokenLink(link: ChainLink, message?: string, options?: { cause?: unknown }): HashChainError {
  return new HashChainError(link.event.seq, link.event.hash, link.recomputedHash, message, options);
}
