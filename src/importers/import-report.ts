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
   * For a branch (SPEC §14). Of a shadowlog export: `linked` when the store held its parent and
   * the branch was stored linked to it (its own events written); `standalone` when it did not,
   * and the whole log was stored, the prefix carried (`reason` names what was missing). Of a pi
   * session tree: always `linked`, with the line where it leaves its parent's path and, when it
   * could not fork there, the lines it carries in its own events and why. Of a Claude Code
   * rewind or fork, or a Codex fork: `linked` when its parent is in the store or written first
   * by the same import; else `standalone`, with the reason.
   */
  readonly fork?: {
    readonly parentSessionId: string;
    readonly forkSeq: number;
    readonly stored: 'linked' | 'standalone';
    readonly reason?: string;
    /** The line of its first entry not on its parent's path. */
    readonly leavesAtLine?: number;
    /** Entries it shares with its parent but carries in its own events, and why (forking after them would leave a tool call without its result). */
    readonly carried?: { readonly fromLine: number; readonly toLine: number; readonly reason: string };
  };
  /** For a session made of one path of a pi session tree: where the path ends, and whether pi is on it now. */
  readonly treePath?: TreePath;
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
  /** The session's events in the store after the import (a branch's include its parent's prefix, which is not stored again). */
  readonly events: number;
  /** The events this import wrote (all of them for 'imported', the new ones for 'grew', 0 for 'already-present'; a branch's own only). */
  readonly written: number;
  /**
   * Events held back because the file is still being written (it changed within the settle time)
   * and records to come could change them: an answer whose lines may continue, a compaction
   * whose summary is not written yet. `fromLine` is the first line they come from.
   */
  readonly pending?: { readonly events: number; readonly fromLine: number | null };
  /** The model calls among its events (a branch's own events: its prefix is counted with its parent). */
  readonly modelCalls: number;
  /** The source's own compactions, mapped to replacements (a branch's own). */
  readonly compactions: number;
  /** Lines kept whole as foreign events (claude-code/…, codex/…, pi/…; a branch's own). */
  readonly foreignLines: number;
  /** What could not be mapped (a branch's own lines: its prefix is reported with its parent). */
  readonly unmapped: readonly UnmappedPart[];
  /** The size of the events the store holds of the session (a branch's own), as canonical JSON. */
  readonly logBytes: number;
}

/** One path of a session tree (pi), as a session: where it ends in the file. */
export interface TreePath {
  /** Its last entry's line and id. */
  readonly leafLine: number;
  readonly leafEntryId: string;
  /** True for the path to the file's last entry: the one pi shows the model when it opens the file. */
  readonly latest: boolean;
  /** Set when the latest path is not the main session (the store holds the main session with the path it was imported with). */
  readonly note?: string;
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
