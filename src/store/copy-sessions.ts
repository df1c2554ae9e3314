// Copying sessions between stores (`shadowlog copy`, e.g. SQLite to PostgreSQL and back): every
// event exactly as it is, so every hash is kept. Each session goes into the target in one
// transaction, its chain and surface re-checked on the way, as import checks a file. A session
// the target already holds identically is skipped, so a copy that stopped halfway can simply be
// run again; one the target holds with different events is refused before anything is written.
//
//   const result = await copySessions(sqlite, postgres, { onProgress: (p) => draw(p) });

import { CorruptLogError, SessionNotFoundError, ShadowlogError } from '../log/errors.js';
import type { LogEvent } from '../log/event.js';
import { assertSessionId } from '../log/session-id.js';
import type { ForkLink } from './branch-link.js';
import { ChainCheck, type ChainCheckOptions } from './chain-check.js';
import type { LogHead, LogStore } from './log-store.js';

export interface CopyProgress {
  /** The session being copied, and its place among those to copy (from 1). */
  readonly sessionId: string;
  readonly session: number;
  readonly sessions: number;
  /** Events copied so far, over all sessions, and how many there are to copy. */
  readonly events: number;
  readonly totalEvents: number;
}

export interface CopiedSession {
  readonly sessionId: string;
  readonly events: number;
  /** `skipped`: the target already held this session, event for event. */
  readonly status: 'copied' | 'skipped';
}

export interface CopyResult {
  readonly sessions: readonly CopiedSession[];
  readonly copied: number;
  readonly skipped: number;
  /** Events written to the target. */
  readonly events: number;
}

export interface CopySessionsOptions extends ChainCheckOptions {
  /** The sessions to copy (default: every session of the source). */
  readonly sessionIds?: readonly string[];
  /** Events per read and per insert (default: the source's page size). */
  readonly pageSize?: number;
  /** Called after each page written, and once per skipped session. */
  readonly onProgress?: (progress: CopyProgress) => void;
  /** Called when a session has been copied or skipped. */
  readonly onSession?: (session: CopiedSession) => void;
}

export interface SessionConflict {
  readonly sessionId: string;
  readonly sourceEvents: number;
  readonly targetEvents: number;
}

/** Sessions the target holds with other events than the source: a copy refuses to touch them. */
export class SessionConflictError extends ShadowlogError {
  readonly target: string;
  readonly conflicts: readonly SessionConflict[];
  constructor(target: string, conflicts: readonly SessionConflict[]) {
    const shown = conflicts
      .slice(0, 5)
      .map((conflict) => `${conflict.sessionId} (${conflict.targetEvents} events there, ${conflict.sourceEvents} here)`);
    if (conflicts.length > 5) shown.push(`and ${conflicts.length - 5} more`);
    super(
      'SESSION_CONFLICT',
      `${target} already holds ${conflicts.length === 1 ? 'a session' : `${conflicts.length} sessions`} of the same id with different events: ${shown.join(', ')}; nothing was copied. Copy the other sessions by id, or move these aside first`,
    );
    this.target = target;
    this.conflicts = conflicts;
  }
}

interface Planned {
  readonly sessionId: string;
  readonly head: LogHead;
  readonly present: boolean;
}

/**
 * Copies sessions from `source` to `target`, keeping every event and hash. Checks every session
 * first: one missing from the source is a SessionNotFoundError, and sessions the target holds
 * differently are one SessionConflictError; either way nothing is written. Then each session is
 * written whole or not at all; a failure stops the copy, and sessions copied before it stay.
 */
export async function copySessions(source: LogStore, target: LogStore, options: CopySessionsOptions = {}): Promise<CopyResult> {
  const ids = options.sessionIds ?? (await source.listSessions()).map((session) => session.id);
  // A branch goes with its ancestors, each before its branches, so that it is stored linked to them (SPEC §14).
  const { ordered, links } = await withAncestors(source, [...new Set(ids.map((id) => assertSessionId(id)))]);
  const plan = await planCopy(source, target, ordered);
  const totalEvents = plan.reduce((sum, planned) => sum + (planned.present ? 0 : planned.head.nextSeq), 0);
  const sessions: CopiedSession[] = [];
  let events = 0;
  for (const [index, planned] of plan.entries()) {
    const progress = (copied: number) =>
      options.onProgress?.({ sessionId: planned.sessionId, session: index + 1, sessions: plan.length, events: copied, totalEvents });
    let copied: CopiedSession;
    if (planned.present) {
      copied = { sessionId: planned.sessionId, events: planned.head.nextSeq, status: 'skipped' };
      progress(events);
    } else {
      const before = events;
      // A branch keeps only its own events: its prefix is its parent's, copied (or found) before it.
      const ownFrom = (links.get(planned.sessionId)?.forkSeq ?? -1) + 1;
      const written = await target.appendAll(
        planned.sessionId,
        checkedPages(source, planned, options, (count) => progress(before + count), ownFrom),
        { expectedSeq: ownFrom },
      );
      events += written;
      copied = { sessionId: planned.sessionId, events: written, status: 'copied' };
    }
    sessions.push(copied);
    options.onSession?.(copied);
  }
  const skipped = sessions.filter((session) => session.status === 'skipped').length;
  return { sessions, copied: sessions.length - skipped, skipped, events };
}

/** `ids` with the ancestors of each branch among them added, every session after its parent; and each branch's link. */
async function withAncestors(source: LogStore, ids: readonly string[]): Promise<{ ordered: string[]; links: Map<string, ForkLink> }> {
  const links = new Map<string, ForkLink>();
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = async (id: string): Promise<void> => {
    if (placed.has(id)) return;
    placed.add(id);
    const head = await source.head(id);
    if (head === undefined) throw new SessionNotFoundError(id);
    const link = await source.readForkLink?.(id);
    if (link !== undefined) {
      links.set(id, link);
      await place(link.parentSessionId);
    }
    ordered.push(id);
  };
  for (const id of ids) await place(id);
  return { ordered, links };
}

/** Each session's head in the source, and whether the target holds it already; refuses conflicts. */
async function planCopy(source: LogStore, target: LogStore, ids: readonly string[]): Promise<Planned[]> {
  const plan: Planned[] = [];
  const conflicts: SessionConflict[] = [];
  for (const sessionId of ids) {
    const head = await source.head(sessionId);
    if (head === undefined) throw new SessionNotFoundError(sessionId);
    const there = await target.head(sessionId);
    // The last hash covers every event before it, so equal heads mean equal sessions.
    if (there !== undefined && (there.nextSeq !== head.nextSeq || there.lastHash !== head.lastHash)) {
      conflicts.push({ sessionId, sourceEvents: head.nextSeq, targetEvents: there.nextSeq });
    }
    plan.push({ sessionId, head, present: there !== undefined });
  }
  if (conflicts.length > 0) throw new SessionConflictError(target.location, conflicts);
  return plan;
}

/** The session's events up to its planned head, each checked, a page at a time. */
async function* checkedPages(
  source: LogStore,
  planned: Planned,
  options: CopySessionsOptions,
  progress: (count: number) => void,
  ownFrom = 0,
): AsyncGenerator<readonly LogEvent[]> {
  const { sessionId, head } = planned;
  const checker = new ChainCheck(options);
  const refuse = (message: string, seq: number | undefined, cause?: unknown) =>
    new CorruptLogError(
      `session ${sessionId} (in ${source.location}): ${message}; nothing of it was copied (\`shadowlog verify ${sessionId}\` on the source says more)`,
      seq === undefined ? {} : { seq },
      cause === undefined ? undefined : { cause },
    );
  const range = { toSeq: head.nextSeq, ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }) };
  for await (const page of source.read(sessionId, range)) {
    const checked = page.map((event) => {
      try {
        return checker.check(event);
      } catch (error) {
        if (!ShadowlogError.isInstance(error)) throw error;
        throw refuse(error.message, (error as { seq?: number }).seq ?? event.seq, error);
      }
    });
    // The whole log is checked (its chain runs through the prefix); a branch's own events are written.
    const kept = ownFrom === 0 ? checked : checked.filter((event) => event.seq >= ownFrom);
    if (kept.length > 0) yield kept;
    progress(checker.nextSeq);
  }
  try {
    checker.finish();
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    throw refuse(error.message, (error as { seq?: number }).seq, error);
  }
  // The events read must be the ones the planned head names: the last hash covers them all.
  if (checker.nextSeq !== head.nextSeq || checker.lastHash !== head.lastHash) {
    throw refuse(
      `read ${checker.nextSeq} events ending in hash ${checker.lastHash.slice(0, 12)}…, expected ${head.nextSeq} ending in ${head.lastHash.slice(0, 12)}…`,
      undefined,
    );
  }
}
