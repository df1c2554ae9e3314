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
  /** 'imported': written now; 'already-present': the store held this exact session, nothing was written. */
  readonly status: 'imported' | 'already-present';
  readonly events: number;
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

export interface ImportSummary {
  readonly files: readonly FileReport[];
}
