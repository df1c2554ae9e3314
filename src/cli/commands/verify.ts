// `shadowlog verify <id>|--all`: hash chain, seq density and the SurfaceOp rules.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { assertSessionId, type SurfaceFold, type VerifyReport, verifyLog } from '../../log/index.js';
import {
  type CheckpointFinding,
  encodeWalkedFold,
  hasCheckpoints,
  type LogStore,
  nodeSha256Hex,
  readInputFile,
  resolveSessionId,
  verifyCheckpoints,
  verifyJsonlFile,
} from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';

export async function verifyCommand(
  context: CommandContext,
  given: string | undefined,
  options: { all: boolean; file?: string },
): Promise<number> {
  const chosen = [given !== undefined, options.all, options.file !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('verify takes one of: a session id, --all, or --file EXPORT.jsonl');
  if (options.file !== undefined) {
    const path = resolve(context.io.cwd, options.file);
    if (!existsSync(path)) throw new UsageError(`no file ${options.file}; give the path of a JSONL export`);
    const { sessionId: fileSessionId, report, trailer } = await verifyJsonlFile(readInputFile(path), { registry: createCliRegistry() });
    if (context.json) context.printJson({ sessionId: fileSessionId, file: path, ...report, trailer });
    else {
      printReport(context, `${options.file} (${fileSessionId})`, report);
      if (trailer === 'missing' && report.ok) context.print('  no trailer: completeness cannot be checked (a version 1 export)');
    }
    return report.ok ? 0 : 1;
  }
  if (given !== undefined) assertSessionId(given);
  const store = await context.store();
  if (given !== undefined) {
    const sessionId = await resolveSessionId(store, given);
    const report = await verifySession(store, sessionId);
    if (context.json) context.printJson({ sessionId, ...report });
    else printReport(context, sessionId, report);
    return report.ok ? 0 : 1;
  }
  const reports: Array<SessionReport & { sessionId: string }> = [];
  for (const session of await store.listSessions()) {
    const report = await verifySession(store, session.id);
    reports.push({ sessionId: session.id, ...report });
    if (!context.json) printReport(context, session.id, report);
  }
  const ok = reports.every((report) => report.ok);
  if (context.json) context.printJson({ ok, sessions: reports });
  else context.print(`${reports.length} session(s) checked, ${reports.filter((report) => !report.ok).length} with problems`);
  return ok ? 0 : 1;
}

/** The log's report, and each fold checkpoint of the session as the walk found it. */
type SessionReport = VerifyReport & { readonly checkpoints: readonly CheckpointFinding[] };

/**
 * Walks the whole log (never from a checkpoint), and compares every checkpoint of the session
 * with the fold of the walk at its seq. `ok` is false too when an open would trust a checkpoint
 * that disagrees with the log: that open would show a wrong surface.
 */
async function verifySession(store: LogStore, sessionId: string): Promise<SessionReport> {
  const registry = createCliRegistry();
  const entries = hasCheckpoints(store) ? await store.listCheckpoints(sessionId) : [];
  const walked = new Map<number, string>();
  const seqs = new Set(entries.map((entry) => entry.seq));
  const visit = (fold: SurfaceFold) => walked.set(fold.nextSeq, encodeWalkedFold(sessionId, fold));
  const report = await verifyLog(store.read(sessionId), { registry, hasher: nodeSha256Hex, foldAt: { seqs, visit } });
  if (!hasCheckpoints(store) || entries.length === 0) return { ...report, checkpoints: [] };
  const head = await store.head(sessionId);
  const checkpoints = await verifyCheckpoints(store, sessionId, entries, walked, { registry, nextSeq: head?.nextSeq ?? 0 });
  const misleading = checkpoints.some((finding) => finding.trustedByOpen === true && finding.status !== 'valid');
  return { ...report, ok: report.ok && !misleading, checkpoints };
}

function printReport(context: CommandContext, sessionId: string, report: VerifyReport & Partial<SessionReport>): void {
  if (report.ok) {
    context.print(`${sessionId}: ok — ${report.events} events, hash chain intact, seqs dense, every replacement valid`);
  } else if (report.problems.length > 0) {
    context.print(`${sessionId}: FAILED at seq ${report.firstBadSeq} — ${report.problems.length} problem(s)`);
    for (const problem of report.problems.slice(0, 50)) context.print(`  seq ${problem.seq}: ${problem.code}: ${problem.message}`);
    if (report.problems.length > 50) context.print(`  … and ${report.problems.length - 50} more (--json lists all)`);
  } else {
    context.print(
      `${sessionId}: FAILED — the log is intact (${report.events} events), but a fold checkpoint an open would trust disagrees with it`,
    );
  }
  for (const warning of report.warnings.slice(0, 50)) context.print(`  warning, seq ${warning.seq}: ${warning.code}: ${warning.message}`);
  if (report.warnings.length > 50) context.print(`  … and ${report.warnings.length - 50} more warnings (--json lists all)`);
  for (const finding of report.checkpoints ?? [])
    context.print(`  checkpoint at seq ${finding.seq}: ${finding.status} — ${describeFinding(finding)}`);
}

/** What verify found of a checkpoint, and what an open does with it. */
function describeFinding(finding: CheckpointFinding): string {
  if (finding.status === 'valid') return 'equals the fold of the log there';
  if (finding.trustedByOpen === true) return `${finding.reason}; an open would trust it`;
  // One an open ignores: does it hold the log's fold (another key's), or another (forged or damaged)?
  const compared =
    finding.matchesLog === true
      ? "; its fold equals the log's there"
      : finding.matchesLog === false
        ? "; its fold differs from the log's there"
        : '';
  return `${finding.reason}${compared}; an open ignores it`;
}

/** Registers `shadowlog verify` on the program. */
export function registerVerifyCommand(program: Command, run: RunCommand): void {
  program
    .command('verify [id]')
    .description('check the hash chain, seq density and every replacement (exit 1 on a problem)')
    .option('--all', 'verify every session in the store')
    .option('--file <export>', 'verify a JSONL export without importing it')
    .action((id: string | undefined, options: { all?: boolean; file?: string }) =>
      run('read', (context) =>
        verifyCommand(context, id, { all: options.all === true, ...(options.file === undefined ? {} : { file: options.file }) }),
      )(),
    );
}
