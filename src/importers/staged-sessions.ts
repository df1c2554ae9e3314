// The sessions an import has mapped, checked against the store before anything is written
// (import-files.ts): what each needs written, a branch after its parent and linked only when its
// parent holds its fork point (SPEC §14), and the second of two files that give one session refused.

import type { LogEvent } from '../log/event.js';
import type { LogStore } from '../store/log-store.js';
import { type ImportConflict, ImportConflictError, ImportInputError } from './import-errors.js';
import type { ImportInput } from './import-inputs.js';
import type { SessionReport } from './import-report.js';
import type { SourceFile } from './source-file.js';
import { reconcileWithStore } from './store-reconcile.js';

/** A session ready to be written: every event the file gives, how many may be written now, and what its report says of it. */
export interface StagedSession {
  readonly input: ImportInput;
  readonly sessionId: string;
  readonly events: readonly LogEvent[];
  /** Events [0, writable) may be written now; the rest wait for the file to settle. */
  readonly writable: number;
  /** For a branch of a session tree, the link it is stored with: its events up to forkSeq are its parent's, not written again. */
  readonly branchOf?: { readonly parentSessionId: string; readonly forkSeq: number };
  readonly file?: SourceFile;
  readonly report: Pick<SessionReport, 'parent' | 'unmapped' | 'fork' | 'treePath' | 'unlinkedFork'>;
}

export interface Outcome {
  readonly status: SessionReport['status'];
  readonly stored: number;
  readonly written: number;
  /** A branch whose parent the store does not hold with its fork point: stored whole, and why. */
  readonly standalone?: string;
}

/**
 * What each session needs written: all of it when new, the rest when the store holds its start.
 * Conflicts of files named alone throw, writing nothing; under a directory they fail their file.
 */
export async function reconcileAll(
  store: LogStore,
  staged: readonly StagedSession[],
  fail: (input: ImportInput, error: unknown) => void,
): Promise<Map<StagedSession, Outcome>> {
  const outcomes = new Map<StagedSession, Outcome>();
  const byId = new Map<string, StagedSession>();
  const conflicts: ImportConflict[] = [];
  for (const session of staged) {
    byId.set(session.sessionId, session);
    const link = session.branchOf;
    if (link !== undefined) {
      // A branch is written after its parent, and only once the parent holds its fork point.
      const parent = byId.get(link.parentSessionId);
      const parentStored = parent === undefined ? undefined : outcomes.get(parent)?.stored;
      // The parent of the same file failed, and the file with it; one of another file (a fork) leaves the branch whole.
      if (parent !== undefined && parentStored === undefined && parent.input === session.input) continue;
      if (parentStored !== undefined && parentStored <= link.forkSeq) {
        outcomes.set(session, { status: 'imported', stored: 0, written: 0 });
        continue;
      }
    }
    // A branch of a session this import does not write: linked when the store holds the parent
    // with its fork point, else stored whole (the prefix carried), saying why.
    const failedParent =
      link !== undefined && byIdBefore(staged, session, link.parentSessionId) && !hasOutcome(outcomes, link.parentSessionId);
    const missing =
      link === undefined
        ? undefined
        : failedParent
          ? `its parent ${link.parentSessionId} was not imported (it failed)`
          : byIdBefore(staged, session, link.parentSessionId)
            ? undefined
            : await parentMissing(store, session, link);
    if (missing !== undefined) {
      const found = await reconcileWithStore(store, { ...session, path: session.input.path });
      if (found.kind === 'new') {
        outcomes.set(session, { status: 'imported', stored: session.writable, written: session.writable, standalone: missing });
        continue;
      }
    }
    const ownFrom = link === undefined ? 0 : link.forkSeq + 1;
    const found = await reconcileWithStore(store, { ...session, path: session.input.path });
    if (found.kind === 'new') {
      const stored = session.writable > ownFrom ? session.writable : 0;
      outcomes.set(session, { status: 'imported', stored, written: stored === 0 ? 0 : stored - ownFrom });
    } else if (found.kind === 'held') {
      const stored = Math.max(found.stored, session.writable);
      const written = stored - found.stored;
      outcomes.set(session, { status: written === 0 ? 'already-present' : 'grew', stored, written });
    } else if (session.input.fromDirectory === true) fail(session.input, new ImportConflictError(store.location, [found.conflict]));
    else conflicts.push(found.conflict);
  }
  if (conflicts.length > 0) throw new ImportConflictError(store.location, conflicts);
  return outcomes;
}

function hasOutcome(outcomes: ReadonlyMap<StagedSession, Outcome>, sessionId: string): boolean {
  for (const each of outcomes.keys()) if (each.sessionId === sessionId) return true;
  return false;
}

/** Whether `parentSessionId` is staged before `session` (the import writes it first). */
function byIdBefore(staged: readonly StagedSession[], session: StagedSession, parentSessionId: string): boolean {
  for (const each of staged) {
    if (each === session) return false;
    if (each.sessionId === parentSessionId) return true;
  }
  return false;
}

/** Why a branch cannot be stored linked to a parent this import does not write; undefined when it can. */
async function parentMissing(
  store: LogStore,
  session: StagedSession,
  link: NonNullable<StagedSession['branchOf']>,
): Promise<string | undefined> {
  if (store.readForkLink === undefined) return `${store.location} keeps no branches`;
  const head = await store.head(link.parentSessionId);
  if (head === undefined || head.nextSeq <= link.forkSeq) {
    return `${store.location} has no session ${link.parentSessionId} with event ${link.forkSeq}`;
  }
  const event = await store.readEvent(link.parentSessionId, link.forkSeq);
  return event.hash === session.events[link.forkSeq]?.hash
    ? undefined
    : `session ${link.parentSessionId} here holds another event ${link.forkSeq}`;
}

/** Two files that give one session: the second is refused (under a directory, it fails and the first imports). */
export function refuseDuplicates(staged: readonly StagedSession[], fail: (input: ImportInput, error: unknown) => void): StagedSession[] {
  const seen = new Map<string, string>();
  const unique: StagedSession[] = [];
  for (const session of staged) {
    const earlier = seen.get(session.sessionId);
    if (earlier === undefined) {
      seen.set(session.sessionId, session.input.path);
      unique.push(session);
      continue;
    }
    fail(
      session.input,
      new ImportInputError(
        `${earlier} and ${session.input.path} both give session ${session.sessionId}; import them one at a time, the second with --as ID`,
      ),
    );
  }
  return unique;
}
