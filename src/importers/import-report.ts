// What an import tells its user, per file and per session: how much was mapped to shadowlog's
// own events, what was kept whole as foreign lines, and what could not be mapped, by line.

import type { SessionParent } from '../log/event.js';
import type { ImportFormat } from './import-errors.js';

/** A line, or a part of one, that shadowlog could not give a core meaning; the line itself is kept. */
export interface UnmappedPart {
  readonly line: number;
  readonly reason: string;
}

export interface SessionReport {
  readonly sessionId: string;
  readonly parent?: SessionParent;
  /**
   * For a branch (SPEC §14), a shadowlog export of one or a source's (a Claude Code rewind or
   * fork, a Codex fork): `linked` when the store held its parent (or the import wrote it first)
   * and the branch was stored linked to it (its own events written); `standalone` when it did
   * not, and the whole log was stored, the prefix carried (`reason` names what was missing).
   */
  readonly fork?: {
    readonly parentSessionId: string;
    readonly forkSeq: number;
    readonly stored: 'linked' | 'standalone';
    readonly reason?: string;
  };
  /**
   * A session the source says is a fork of another (a Claude Code `--fork-session` file, a
   * Codex rollout with `forked_from_id`) imported whole, not as a branch: the parent it names
   * (as a shadowlog session id) and why it is not linked to it.
   */
  readonly unlinkedFork?: { readonly parentSessionId: string; readonly reason: string };
  /**
   * 'imported': written now; 'already-present': the store held this exact session (or all of it
   * that is complete yet), nothing was written; 'grew': the store held the start of it (the file
   * grew since it was imported), and the new events were appended.
   */
  readonly status: 'imported' | 'already-present' | 'grew';
  /** The session's events in the store after the import. */
  readonly events: number;
  /** The events this import wrote (all of them for 'imported', the new ones for 'grew', 0 for 'already-present'). */
  readonly written: number;
  /**
   * Events held back because the file is still being written (it changed within the settle time)
   * and records to come could change them: an answer whose lines may continue, a compaction
   * whose summary is not written yet. `fromLine` is the first line they come from.
   */
  readonly pending?: { readonly events: number; readonly fromLine: number | null };
  readonly modelCalls: number;
  /** The source's own compactions, mapped to replacements. */
  readonly compactions: number;
  /** Lines kept whole as foreign events (claude-code/…, codex/…, pi/…). */
  readonly foreignLines: number;
  readonly unmapped: readonly UnmappedPart[];
  /** The size of the session's events as canonical JSON, a measure of what the store holds. */
  readonly logBytes: number;
}

export interface FileReport {
  readonly path: string;
  readonly format: ImportFormat;
  /** How the format was told: named with --format, or detected (and by what). */
  readonly detected: string | null;
  readonly sourceBytes: number;
  readonly lines: number;
  /** The last line, cut short and skipped (SPEC §11). */
  readonly tornLine: { readonly line: number; readonly bytes: number } | null;
  /** Lines that held more than one record: each was split and imported. */
  readonly joinedLines: readonly { readonly line: number; readonly records: number }[];
  /** For a shadowlog export: 'ok', its trailer matched; 'missing', a version-1 export without one. */
  readonly trailer?: 'ok' | 'missing';
  /** The sessions the file became: the main one first, then sub-sessions. */
  readonly sessions: readonly SessionReport[];
}

/** A file under a directory that is no session of a known format (notes, an empty file, another tool's data): left alone. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** A session file under a directory that could not be imported (damaged, or the store holds the session with other events). */
export interface FailedFile {
  readonly path: string;
  /** The error's code: CORRUPT_LOG, SESSION_CONFLICT, IMPORT_REFUSED, … */
  readonly code: string;
  readonly message: string;
  /** The line it names, when it names one. */
  readonly line: number | null;
}

export interface ImportSummary {
  readonly files: readonly FileReport[];
  /** Files under a directory given that are not sessions, each with why (a file named alone is refused instead). */
  readonly skipped: readonly SkippedFile[];
  /** Session files under a directory given that failed, after the others were imported (a file named alone fails the import instead). */
  readonly failed: readonly FailedFile[];
}
