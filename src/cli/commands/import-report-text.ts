// What `shadowlog import` prints: per file, the format and how it was told, each session it
// became with its figures, and every part that could not be mapped, by line; warnings (a torn
// last line, joined records, a missing trailer) on stderr. With --json, one document whose top
// level keeps the fields of a single-file import ({sessionId, events, tornFinalLine, …}) and
// whose `files` hold every report.

import type { FileReport, ImportSummary, SessionReport } from '../../importers/index.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';

const UNMAPPED_SHOWN = 20;

export function importJson(summary: ImportSummary): Record<string, unknown> {
  const file = summary.files[0];
  const session = file?.sessions[0];
  return {
    sessionId: session?.sessionId ?? null,
    events: session?.events ?? 0,
    tornFinalLine: file?.tornLine !== null && file?.tornLine !== undefined,
    tornLine: file?.tornLine ?? null,
    alreadyPresent: session?.status === 'already-present',
    status: session?.status ?? null,
    ...(file?.trailer === undefined ? {} : { trailer: file.trailer }),
    format: file?.format ?? null,
    files: summary.files,
    skipped: summary.skipped,
    failed: summary.failed,
  };
}

export function printImport(context: CommandContext, summary: ImportSummary, location: string): void {
  for (const file of summary.files) {
    warn(context, file);
    if (file.format === 'shadowlog') printExport(context, file, location);
    else printForeign(context, file, location);
  }
  printSkippedAndFailed(context, summary);
}

/** Files under a directory that are not sessions (stdout: nothing is wrong), and those that failed (stderr, with what to do). */
export function printSkippedAndFailed(context: CommandContext, summary: ImportSummary): void {
  for (const file of summary.skipped) context.print(`skipped ${file.path}: ${file.reason}`);
  for (const file of summary.failed) {
    context.io.stderr.write(
      `shadowlog: failed: ${file.path}${file.line === null ? '' : ` line ${file.line}`}: ${file.code}: ${file.message}\n`,
    );
  }
  if (summary.failed.length > 0) {
    const imported = summary.files.length;
    context.io.stderr.write(
      `shadowlog: ${summary.failed.length} ${summary.failed.length === 1 ? 'file' : 'files'} failed (listed above); the other ${imported} ${imported === 1 ? 'file was' : 'files were'} imported\n`,
    );
  }
}

function warn(context: CommandContext, file: FileReport): void {
  const where = file.format === 'shadowlog' ? '' : `${file.path} `;
  if (file.tornLine !== null) {
    const records = file.format === 'shadowlog' ? 'event' : 'record';
    context.io.stderr.write(
      `shadowlog: warning: ${where}line ${file.tornLine.line} (the last, ${file.tornLine.bytes.toLocaleString('en-US')} bytes) was cut short and was skipped; every ${records} before it was imported\n`,
    );
  }
  for (const joined of file.joinedLines) {
    context.io.stderr.write(
      `shadowlog: warning: ${where}line ${joined.line} held ${joined.records} records written onto one line (a defect of the program that wrote it); each was imported on its own\n`,
    );
  }
  if (file.trailer === 'missing') {
    context.io.stderr.write(
      'shadowlog: warning: no trailer: completeness cannot be checked (a version 1 export, written before exports counted their events)\n',
    );
  }
}

function printExport(context: CommandContext, file: FileReport, location: string): void {
  for (const session of file.sessions) {
    context.print(
      session.status === 'already-present'
        ? `${session.sessionId} is already in ${location} with the same ${plural(session.events, 'event', { separators: true })}; nothing written`
        : `imported ${plural(session.events, 'event', { separators: true })} as ${session.sessionId} into ${location}; hash chain and surface verified${file.trailer === 'ok' ? ', trailer matched' : ''}`,
    );
    if (session.fork !== undefined && session.status !== 'already-present') context.print(describeFork(session.fork, session.written));
  }
}

function printForeign(context: CommandContext, file: FileReport, location: string): void {
  const how = file.detected === null ? 'as given with --format' : `detected: ${file.detected}`;
  context.print(
    `${file.path}: ${file.format} (${how}), ${plural(file.lines, 'line', { separators: true })}, ${plural(file.sourceBytes, 'byte', { separators: true })}`,
  );
  for (const session of file.sessions) {
    context.print(`  ${describeSession(session, location)}`);
    const carried = session.fork?.carried;
    if (carried !== undefined) {
      const lines =
        carried.fromLine === carried.toLine
          ? `line ${carried.fromLine}, shared with its parent, is`
          : `lines ${carried.fromLine}–${carried.toLine}, shared with its parent, are`;
      context.print(
        `    forks before line ${carried.fromLine}, not where it leaves (line ${session.fork?.leavesAtLine}): ${carried.reason}; ${lines} mapped again in its own events`,
      );
    }
    if (session.treePath !== undefined) context.print(`    ${describeTreePath(session)}`);
    if (session.pending !== undefined) context.print(`    ${describePending(session.pending)}`);
    const unmapped = sameLinesOnce(session.unmapped.map((part) => `line ${part.line}: ${part.reason}`));
    for (const line of unmapped.slice(0, UNMAPPED_SHOWN)) context.print(`    ${line}`);
    if (unmapped.length > UNMAPPED_SHOWN) {
      context.print(`    … and ${unmapped.length - UNMAPPED_SHOWN} more not mapped (--json lists all)`);
    }
  }
}

/** Which path of a pi session tree the session is: pi's latest, or one it left (and where). */
function describeTreePath(session: SessionReport): string {
  const path = session.treePath as NonNullable<SessionReport['treePath']>;
  if (path.note !== undefined) return path.note;
  if (session.fork?.leavesAtLine === undefined) return `pi's latest path, to line ${path.leafLine}`;
  return `a path pi left: it leaves its parent's at line ${session.fork.leavesAtLine} and ends at line ${path.leafLine}`;
}

/** Identical lines printed once, in order, with how many times they occur: "line 1788: … (4 times)". */
function sameLinesOnce(lines: readonly string[]): string[] {
  const times = new Map<string, number>();
  for (const line of lines) times.set(line, (times.get(line) ?? 0) + 1);
  return [...times].map(([line, count]) => (count === 1 ? line : `${line} (${count} times)`));
}

function describePending(pending: NonNullable<SessionReport['pending']>): string {
  const from = pending.fromLine === null ? '' : ` (from line ${pending.fromLine})`;
  return `${plural(pending.events, 'more event', { separators: true })} held back${from}: the file changed within the settle time and they may still change (an answer still being written); a later import takes them when the file has grown past them or has settled`;
}

/** What an import did with an export of a branch: linked it to its parent, or stored it whole. */
function describeFork(fork: NonNullable<SessionReport['fork']>, written: number, exported = true): string {
  if (fork.stored === 'linked') {
    return `a branch of ${fork.parentSessionId} after #${fork.forkSeq}: linked to it, ${plural(written, 'own event', { separators: true })} written, events 0–${fork.forkSeq} read from ${fork.parentSessionId}`;
  }
  return exported
    ? `exported as a branch of ${fork.parentSessionId} after #${fork.forkSeq}, stored whole (the prefix carried), not linked: ${fork.reason}; import ${fork.parentSessionId} first to link it`
    : `a branch of ${fork.parentSessionId} after #${fork.forkSeq}, stored whole (the prefix carried), not linked: ${fork.reason}`;
}

/** A source's fork imported whole: the parent it names and why it is not a branch of it. */
function describeUnlinkedFork(fork: NonNullable<SessionReport['unlinkedFork']>): string {
  return `a fork of ${fork.parentSessionId} in the source, imported whole, not as a branch of it: ${fork.reason}`;
}

function describeSession(session: SessionReport, location: string): string {
  const parent =
    session.parent === undefined
      ? ''
      : ` (a sub-session of ${session.parent.sessionId}${session.parent.callId === undefined ? '' : `, spawned by its call ${session.parent.callId}`})`;
  const fork =
    session.fork !== undefined
      ? ` (${describeFork(session.fork, session.written, false)})`
      : session.unlinkedFork !== undefined
        ? ` (${describeUnlinkedFork(session.unlinkedFork)})`
        : '';
  // A branch of a session tree already stored, or grown: its link, without what this import wrote.
  const branch = session.fork === undefined ? '' : ` (a branch of ${session.fork.parentSessionId} after #${session.fork.forkSeq})`;
  const own = session.fork?.stored === 'linked' && session.events > 0 ? session.events - session.fork.forkSeq - 1 : undefined;
  const events =
    own === undefined
      ? plural(session.events, 'event', { separators: true })
      : `${plural(session.events, 'event', { separators: true })} (${own.toLocaleString('en-US')} its own; the figures after are of those)`;
  const figures = `${events}, ${plural(session.modelCalls, 'model call', { separators: true })}, ${plural(session.compactions, 'compaction', { separators: true })} mapped, ${plural(session.foreignLines, 'line', { separators: true })} kept as foreign events, ${plural(session.unmapped.length, 'part', { separators: true })} not mapped`;
  if (session.status === 'already-present')
    return `unchanged: ${session.sessionId}${parent}${branch} is already in ${location} with the same events (${figures}); nothing written`;
  if (session.status === 'grew')
    return `grew: appended ${plural(session.written, 'event', { separators: true })} to ${session.sessionId}${parent}${branch} in ${location}, which now has ${figures}; hash chain and surface verified`;
  return `imported ${session.sessionId}${parent}${fork} into ${location}: ${figures}; hash chain and surface verified`;
}
