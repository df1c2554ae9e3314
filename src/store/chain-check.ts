// The checks a session's events pass on their way into a store from outside it (import from a
// file, copy from another store), one event at a time: the envelope, seqs dense from 0, the hash
// chain, and every SurfaceOp rule (the fold).

import { parseEnvelope } from '../log/envelope.js';
import { CorruptLogError } from '../log/errors.js';
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
   * typed error; a seq out of turn or a broken chain a CorruptLogError naming the seq.
   */
  check(value: unknown): LogEvent {
    const event = parseEnvelope(value);
    if (event.seq !== this.fold.nextSeq) {
      throw new CorruptLogError(`expected event seq ${this.fold.nextSeq}, found ${event.seq}`, { seq: event.seq });
    }
    // Also remembers the event's canonical body when the hash matches: the store writes it as is.
    const hash = rehashEvent(this.prevHash, event, this.hasher);
    if (hash !== event.hash) {
      throw new CorruptLogError(
        `event ${event.seq}: the hash chain is broken (stored ${event.hash.slice(0, 12)}…, recomputed ${hash.slice(0, 12)}…); the event was changed after it was written`,
        { seq: event.seq },
      );
    }
    this.fold.apply(event);
    this.prevHash = hash;
    return event;
  }
}
