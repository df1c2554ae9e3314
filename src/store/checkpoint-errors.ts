// Errors of fold checkpoints (fold-checkpoints.ts): a checkpoint key file that cannot be used,
// and a checkpoint that would overwrite one the store keeps (checkpoints are append-only).

import { ShadowlogError } from '../log/errors.js';

/**
 * The checkpoint key file (checkpoint-key.ts) cannot be used: others may read or replace it, it
 * is not the user's, it does not hold a key, or it could not be read or created. No checkpoint
 * is written under it, and none is proven by it.
 */
export class CheckpointKeyError extends ShadowlogError {
  readonly path: string;
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('CHECKPOINT_KEY', message, options);
    this.path = path;
  }
}

/**
 * A checkpoint at a seq where the store keeps another one (another payload or digest). Checkpoints
 * are append-only: the stored one is kept and this one is not written. The same checkpoint written
 * again (a retry) is no error.
 */
export class CheckpointExistsError extends ShadowlogError {
  readonly sessionId: string;
  readonly seq: number;
  /** The digest of the checkpoint the store keeps at that seq. */
  readonly storedDigest: string;
  constructor(location: string, sessionId: string, seq: number, storedDigest: string) {
    super(
      'CHECKPOINT_EXISTS',
      `${location} already keeps another fold checkpoint of session ${sessionId} at seq ${seq} (digest ${storedDigest.slice(0, 40)}…); checkpoints are append-only, so it is kept and this one was not written: the next one is written at a later seq`,
    );
    this.sessionId = sessionId;
    this.seq = seq;
    this.storedDigest = storedDigest;
  }
}
