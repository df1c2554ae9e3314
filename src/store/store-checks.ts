// Checks every backend makes before it writes a batch or reads a range.

import { ConfigError, CorruptLogError, InvalidEventError, SeqOutOfRangeError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { isSessionSeq } from '../log/seq.js';
import { assertSessionId } from '../log/session-id.js';
import { isCheckpointDigest } from './checkpoint-key.js';
import { DEFAULT_PAGE_SIZE, type ReadRange, type StoredCheckpoint } from './log-store.js';

/** The session id is safe and the batch's seqs run densely from `expectedSeq`. */
export function checkAppendBatch(sessionId: string, events: readonly LogEvent[], expectedSeq: number): void {
  assertSessionId(sessionId);
  if (!isSessionSeq(expectedSeq)) throw new InvalidEventError('expectedSeq', 'a non-negative safe integer', String(expectedSeq));
  events.forEach((event, index) => {
    if (event.seq !== expectedSeq + index) {
      throw new CorruptLogError(
        `a batch appended at seq ${expectedSeq} must hold seqs ${expectedSeq}, ${expectedSeq + 1}, …; event ${index} has seq ${event.seq}`,
        { seq: event.seq },
      );
    }
  });
}

/** A read range with its defaults filled in, the end clamped to the log's length. */
export function resolveReadRange(range: ReadRange, nextSeq: number): { fromSeq: number; endSeq: number; pageSize: number } {
  const fromSeq = checkRangeValue('fromSeq', range.fromSeq ?? 0, 0);
  const pageSize = checkRangeValue('pageSize', range.pageSize ?? DEFAULT_PAGE_SIZE, 1);
  const endSeq = Math.min(checkRangeValue('toSeq', range.toSeq ?? nextSeq, 0), nextSeq);
  return { fromSeq, endSeq, pageSize };
}

function checkRangeValue(key: keyof ReadRange, value: number, minimum: number): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new ConfigError(key, `${key} must be a whole number of at least ${minimum}, found ${String(value)}`);
  }
  return value;
}

/**
 * The error for a page of stored bodies that holds fewer events than its seq range: it names the
 * first seq that is missing (found by reading the stored seqs, on this rare path only).
 */
export function missingEventsError(sessionId: string, fromSeq: number, bodies: readonly string[], where: string): CorruptLogError {
  let missing = fromSeq + bodies.length;
  for (let index = 0; index < bodies.length; index++) {
    const seq = storedSeqOf(bodies[index] as string);
    if (seq !== fromSeq + index) {
      missing = fromSeq + index;
      break;
    }
  }
  return new CorruptLogError(`session ${sessionId} is missing event ${missing} (the events after it are there); ${where} is damaged`, {
    seq: missing,
  });
}

function storedSeqOf(body: string): number | undefined {
  try {
    const seq: unknown = (JSON.parse(body) as { seq?: unknown }).seq;
    return typeof seq === 'number' ? seq : undefined;
  } catch {
    return undefined; // a damaged body: the parser reports it, with its seq, when it is read
  }
}

/**
 * An event from its stored body (the canonical JSON of the whole event, hash included): a fresh
 * object on every read, so no caller can change what another one reads. `where` names what is
 * damaged when it is not: 'the file', 'the table'.
 */
export function parseStoredEvent(sessionId: string, seq: number, body: string, where: string): LogEvent {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch (error) {
    throw new CorruptLogError(
      `session ${sessionId}, event ${seq}: the stored body is not JSON; ${where} is damaged`,
      { seq },
      { cause: error },
    );
  }
  const found = typeof event === 'object' && event !== null ? (event as { seq?: unknown }).seq : undefined;
  if (found !== seq) {
    throw new CorruptLogError(
      `session ${sessionId}, event ${seq}: expected a stored body with seq ${seq}, found ${String(found)}; ${where} is damaged`,
      { seq },
    );
  }
  return event as LogEvent;
}

/** A checkpoint a store is asked to keep: a seq from 1 to the session's next seq, a digest, a payload. */
export function checkCheckpointWrite(checkpoint: StoredCheckpoint, nextSeq: number): void {
  const { seq, digest, payload } = checkpoint;
  if (!isSessionSeq(seq) || seq === 0 || seq > nextSeq) throw new SeqOutOfRangeError(seq, nextSeq + 1);
  if (!isCheckpointDigest(digest)) {
    const found = JSON.stringify(digest) ?? String(digest);
    throw new InvalidEventError(
      'digest',
      'a keyed digest hmac-sha256:<16 hex key id>:<64 hex mac>',
      found.length > 100 ? `${found.slice(0, 100)}…` : found,
    );
  }
  if (typeof payload !== 'string') throw new InvalidEventError('payload', 'a string', typeof payload);
}

/** How many checkpoints to keep: a whole number from 1 (checkpoints are append-only: pruning never deletes the newest). */
export function checkKeep(keep: number): number {
  if (!Number.isSafeInteger(keep) || keep < 1)
    throw new ConfigError(
      'keep',
      `keep must be a whole number of at least 1 (pruning keeps the newest checkpoint: checkpoints are append-only), found ${String(keep)}`,
    );
  return keep;
}
