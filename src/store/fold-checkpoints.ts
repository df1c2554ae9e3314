// Fold checkpoints over a store that keeps them (CheckpointStore): writing one of a fold, and
// finding the newest one a reader may start from. A checkpoint is derived data beside the log,
// used only once proven: its digest must be a MAC of its payload under this process's checkpoint
// key (checkpoint-key.ts), which only a shadowlog process that computed the fold (from the log, or
// from a proven checkpoint and the events after it) writes; and it must name this session and
// the log must hold the hashes it names (event 0, and the event before its seq), which binds it to
// this position of this chain. One that fails is ignored, the log is read from further back, and
// the report says which and why. `verify` compares each one with the fold of the log itself.

import { parseEnvelope } from '../log/envelope.js';
import { messageOf, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import type { EventTypeRegistry } from '../log/event-types.js';
import {
  CHECKPOINT_VERSION,
  type CheckpointHeader,
  decodeFoldState,
  encodeFoldCheckpoint,
  foldPayloadOf,
  type ObservedState,
  observedStateOf,
  readCheckpointHeader,
} from '../log/fold-checkpoint.js';
import type { FoldState } from '../log/fold-state.js';
import type { JsonValue } from '../log/json-value.js';
import { SurfaceFold } from '../log/surface-fold.js';
import { type CheckpointKey, type CheckpointKeyLookup, checkpointDigest, checkpointProof, findCheckpointKey } from './checkpoint-key.js';
import type { CheckpointEntry, CheckpointStore, LogStore } from './log-store.js';

/**
 * What a checkpoint turned out to be. `valid`: it passed every check (and, in verify, equals the
 * fold of the log at its seq). `unproven`: its digest is not a MAC under this process's checkpoint
 * key (written under another key, or before checkpoints were keyed, or this process has no key):
 * nothing says that a shadowlog process folded it. `stale`: the log does not hold the history it
 * was taken of (the event before its seq has another hash, or the log is shorter). `corrupt`: its
 * payload does not match the MAC written with it under this key, or does not hold together, or the
 * events after it cannot be applied to it (or, in verify, it differs from the log's fold).
 * `foreign`: taken of another session (another id, or another event 0). `incompatible`: written by
 * another checkpoint version, or under event types this reader knows otherwise.
 */
export type CheckpointStatus = 'valid' | 'unproven' | 'stale' | 'corrupt' | 'foreign' | 'incompatible';

export interface CheckpointFinding {
  /** The seq the checkpoint was taken at. */
  readonly seq: number;
  readonly status: CheckpointStatus;
  /** Why, for any status but valid. */
  readonly reason: string;
  /** In verify's findings: true when it passes the checks an open makes, so that an open would start from it. */
  readonly trustedByOpen?: boolean;
  /**
   * In verify's findings: does its fold equal the fold of the log at its seq? Undefined when it
   * could not be compared (its payload is not a fold of that seq, or the log does not fold there).
   */
  readonly matchesLog?: boolean;
}

/** How a session was opened: from which checkpoint, and which ones were ignored on the way. */
export interface CheckpointReport {
  /** The seq of the checkpoint the fold started from; undefined when the log was read from seq 0. */
  readonly restoredFrom: number | undefined;
  /** Checkpoints looked at and not used, newest first: each was ignored, not trusted. */
  readonly ignored: readonly CheckpointFinding[];
}

export const NO_CHECKPOINT: CheckpointReport = Object.freeze({ restoredFrom: undefined, ignored: Object.freeze([]) });

/** Checkpoints kept per session when one is written: the newest few (older ones serve only `--at` opens). */
export const DEFAULT_CHECKPOINTS_KEPT = 3;

/**
 * Writes a checkpoint of `fold` (of session `sessionId`), its digest a MAC under `key`, and prunes
 * all but the newest `keep` (at least 1). Write only a fold computed from the log, or from a
 * checkpoint proven under `key` and the events after it: the MAC vouches for it to every reader
 * holding the key.
 */
export async function writeFoldCheckpoint(
  store: CheckpointStore,
  sessionId: string,
  fold: SurfaceFold,
  options: { readonly key: CheckpointKey; readonly keep?: number; readonly observed?: ObservedState },
): Promise<CheckpointEntry> {
  const payload = encodeFoldCheckpoint(sessionId, fold.snapshot(), options.observed);
  const entry = { seq: fold.nextSeq, digest: checkpointDigest(options.key, payload), payload };
  await store.writeCheckpoint(sessionId, entry);
  await store.pruneCheckpoints(sessionId, options.keep ?? DEFAULT_CHECKPOINTS_KEPT);
  return { seq: entry.seq, digest: entry.digest, length: payload.length };
}

export interface RestoreOptions {
  readonly registry: EventTypeRegistry;
  /**
   * The key a checkpoint must be proven under. Default: the key in the process's key file
   * (checkpointKeyPath), which a reader never creates; without one, no checkpoint is proven.
   */
  readonly checkpointKey?: CheckpointKey;
  /** The session's next seq now. */
  readonly nextSeq: number;
  /** Only checkpoints at or before this seq are candidates (an open up to a position). */
  readonly toSeq?: number;
  /**
   * An observer whose state must come from the checkpoint too (SessionLog's `observer`): one
   * that holds none under this key is `incompatible`, and one whose state `restore` refuses
   * (with a ShadowlogError) is `corrupt`. Restored only from the checkpoint that is used.
   */
  readonly observer?: { readonly key: string; restore(saved: JsonValue): void };
}

/** The fold of the newest checkpoint that passes every check, if any, with what was ignored on the way. */
export async function restoreFromCheckpoint(
  store: LogStore & CheckpointStore,
  sessionId: string,
  options: RestoreOptions,
): Promise<{ fold: SurfaceFold | undefined; report: CheckpointReport }> {
  const ignored: CheckpointFinding[] = [];
  const limit = Math.min(options.toSeq ?? options.nextSeq, options.nextSeq);
  const entries = await store.listCheckpoints(sessionId);
  const link = await store.readForkLink?.(sessionId);
  if (entries.length === 0 && link === undefined) return { fold: undefined, report: { restoredFrom: undefined, ignored } };
  let key: CheckpointKeyLookup | undefined;
  for (const entry of entries) {
    if (entry.seq > limit && entry.seq <= options.nextSeq) continue;
    key ??= lookupKey(options);
    const checked = await checkWithKey(store, sessionId, entry.seq, options, key);
    if (checked.fold !== undefined) return { fold: checked.fold, report: { restoredFrom: entry.seq, ignored } };
    if (checked.finding !== undefined) ignored.push(checked.finding);
  }
  // A branch (SPEC §14): a checkpoint of an ancestor taken within the prefix serves it, since its
  // events up to there are the ancestor's. The ancestor's own findings are not this session's.
  let bound = limit;
  for (let fork = link; fork !== undefined; fork = await store.readForkLink?.(fork.parentSessionId)) {
    bound = Math.min(bound, fork.forkSeq + 1);
    for (const entry of await store.listCheckpoints(fork.parentSessionId)) {
      if (entry.seq > bound) continue;
      key ??= lookupKey(options);
      const checked = await checkWithKey(store, fork.parentSessionId, entry.seq, { ...options, nextSeq: bound }, key);
      if (checked.fold !== undefined) return { fold: checked.fold, report: { restoredFrom: entry.seq, ignored } };
    }
  }
  return { fold: undefined, report: { restoredFrom: undefined, ignored } };
}

/** A checkpoint that passed every check, with its fold and payload; or why it is not to be used. */
export type CheckedCheckpoint =
  | { readonly fold: SurfaceFold; readonly payload: string; readonly body: Record<string, unknown>; readonly finding?: undefined }
  | { readonly fold?: undefined; readonly finding: CheckpointFinding | undefined };

/**
 * Checks the checkpoint of `sessionId` at `seq` against the key and the log, and restores its
 * fold. A checkpoint that has gone meanwhile (pruned by a writer) gives neither fold nor finding.
 */
export function checkCheckpoint(
  store: LogStore & CheckpointStore,
  sessionId: string,
  seq: number,
  options: Omit<RestoreOptions, 'toSeq'>,
): Promise<CheckedCheckpoint> {
  return checkWithKey(store, sessionId, seq, options, lookupKey(options));
}

function lookupKey(options: Pick<RestoreOptions, 'checkpointKey'>): CheckpointKeyLookup {
  return options.checkpointKey === undefined ? findCheckpointKey() : { key: options.checkpointKey };
}

async function checkWithKey(
  store: LogStore & CheckpointStore,
  sessionId: string,
  seq: number,
  options: Omit<RestoreOptions, 'toSeq' | 'checkpointKey'>,
  lookup: CheckpointKeyLookup,
): Promise<CheckedCheckpoint> {
  const stored = await store.readCheckpoint(sessionId, seq);
  if (stored === undefined) return { finding: undefined };
  const refuse = (status: CheckpointStatus, reason: string): CheckedCheckpoint => ({ finding: { seq, status, reason } });
  // Proven first: nothing in a payload is believed before its MAC is checked.
  if (lookup.key === undefined) return refuse('unproven', lookup.missing);
  const disproof = checkpointProof(lookup.key, stored.digest, stored.payload);
  if (disproof !== undefined) return refuse(disproof.kind === 'altered' ? 'corrupt' : 'unproven', disproof.reason);
  let header: CheckpointHeader;
  let body: Record<string, unknown>;
  try {
    ({ header, body } = readCheckpointHeader(stored.payload));
  } catch (error) {
    return refuse('corrupt', messageOf(error));
  }
  if (header.sessionId !== sessionId) return refuse('foreign', `it was taken of session ${JSON.stringify(header.sessionId)}`);
  if (header.seq !== seq) return refuse('corrupt', `it is stored at seq ${seq} but says it was taken at seq ${header.seq}`);
  if (header.checkpointVersion !== CHECKPOINT_VERSION) {
    return refuse(
      'incompatible',
      `it is checkpoint version ${header.checkpointVersion}; this shadowlog reads version ${CHECKPOINT_VERSION}`,
    );
  }
  if (seq > options.nextSeq) return refuse('stale', `it was taken at seq ${seq}, but the log has ${options.nextSeq} events`);
  const [first, before] = await store.readEventsAt(sessionId, seq === 1 ? [0] : [0, seq - 1]);
  if (first?.hash !== header.firstHash) return refuse('foreign', "its event 0 is not this session's (another history under the same id)");
  const last = before ?? first;
  if (last.hash !== header.headHash) {
    return refuse(
      'stale',
      `it was taken after an event ${seq - 1} with hash ${short(header.headHash)}, but the log's has ${short(last.hash)}`,
    );
  }
  let state: FoldState;
  try {
    state = decodeFoldState(header, body);
  } catch (error) {
    return refuse('corrupt', messageOf(error));
  }
  const disagreement = typesDisagreement(state, options.registry);
  if (disagreement !== undefined) return refuse('incompatible', disagreement);
  try {
    const events = await store.readEventsAt(sessionId, state.nodeSeqs);
    const bySeq = new Map<number, LogEvent>();
    for (const event of events) bySeq.set(event.seq, parseEnvelope(event));
    const fold = SurfaceFold.restore(state, (node) => bySeq.get(node) as LogEvent, { registry: options.registry });
    if (options.observer !== undefined) {
      const observed = observedStateOf(body);
      if (observed?.key !== options.observer.key) {
        const held = observed === undefined ? 'none' : `the state of ${JSON.stringify(observed.key)}`;
        return refuse('incompatible', `it holds no observed state of ${JSON.stringify(options.observer.key)} (it holds ${held})`);
      }
      options.observer.restore(observed.state);
    }
    return { fold, payload: stored.payload, body };
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    return refuse('corrupt', messageOf(error));
  }
}

/** Why `registry` would fold the types the checkpoint saw otherwise than its writer did, if it would. */
function typesDisagreement(state: FoldState, registry: EventTypeRegistry): string | undefined {
  for (const { type, known, metering } of state.extensionTypes) {
    if (registry.isKnown(type) !== known || (known && registry.isMetering(type) !== metering)) {
      const said = known ? (metering ? 'a known metering type' : 'a known type') : 'an unknown type';
      return `its writer took ${type} for ${said}, and this reader does not`;
    }
  }
  return undefined;
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}

/**
 * Each of the session's checkpoints as verify finds it: the checks an open makes, and then its
 * payload compared with the fold of the log itself at its seq (`walked`, from the walk verify
 * makes anyway: verifyLog's foldAt). Valid only when both agree. One an open ignores is compared
 * too (`matchesLog`), so that a forged one is told from one written under another key.
 */
export async function verifyCheckpoints(
  store: LogStore & CheckpointStore,
  sessionId: string,
  entries: readonly CheckpointEntry[],
  walked: ReadonlyMap<number, string>,
  options: Omit<RestoreOptions, 'toSeq'>,
): Promise<CheckpointFinding[]> {
  const findings: CheckpointFinding[] = [];
  const key = lookupKey(options);
  for (const entry of entries) {
    const seq = entry.seq;
    const checked = await checkWithKey(store, sessionId, seq, options, key);
    if (checked.fold === undefined) {
      // Gone meanwhile (pruned by a writer): nothing to say of it.
      if (checked.finding === undefined) continue;
      const matchesLog = await matchesWalk(store, sessionId, seq, walked);
      findings.push({ ...checked.finding, trustedByOpen: false, ...(matchesLog === undefined ? {} : { matchesLog }) });
      continue;
    }
    const expected = walked.get(seq);
    if (expected === undefined) {
      findings.push({ seq, status: 'stale', reason: `the log does not fold up to seq ${seq} (see its problems)`, trustedByOpen: true });
    } else if (expected !== foldPayloadOf(checked.body)) {
      const reason = 'it passes the checks an open makes, but differs from the fold of the log at its seq';
      findings.push({ seq, status: 'corrupt', reason, trustedByOpen: true, matchesLog: false });
    } else {
      findings.push({ seq, status: 'valid', reason: '', trustedByOpen: true, matchesLog: true });
    }
  }
  return findings;
}

/** Does the fold the checkpoint at `seq` holds equal the walk's there? Undefined when the walk did not get there. */
async function matchesWalk(
  store: CheckpointStore,
  sessionId: string,
  seq: number,
  walked: ReadonlyMap<number, string>,
): Promise<boolean | undefined> {
  const expected = walked.get(seq);
  const stored = await store.readCheckpoint(sessionId, seq);
  if (expected === undefined || stored === undefined) return undefined;
  try {
    return foldPayloadOf(readCheckpointHeader(stored.payload).body) === expected;
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    return false;
  }
}

/**
 * What an open says of the checkpoint it started from when the events after it cannot be applied
 * to its fold: it is dropped, and the session is read from seq 0.
 */
export function unappliedFinding(checkpointSeq: number, eventSeq: number, error: unknown): CheckpointFinding {
  return {
    seq: checkpointSeq,
    status: 'corrupt',
    reason: `event ${eventSeq}, after it, cannot be applied to its fold (${messageOf(error)}); the fold from it was dropped`,
  };
}

/** The encoded fold a walk has at a checkpoint's seq, for verifyCheckpoints. */
export function encodeWalkedFold(sessionId: string, fold: SurfaceFold): string {
  return encodeFoldCheckpoint(sessionId, fold.snapshot());
}
