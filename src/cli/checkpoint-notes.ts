// What a command that opens a session says about the fold checkpoints it ignored: on stderr, so
// that stdout stays the command's answer (JSON or text). Each was ignored, never trusted, and the
// session was read from further back; the note says which, why, and that verify tells more.
// Checkpoints this machine's key does not prove (written under another key, or before checkpoints
// were keyed) are common after an upgrade or on a shared store: one line says so for all of them.
// Any other (altered under this key, damaged, stale, foreign) gets a line of its own.

import type { CheckpointFinding, CheckpointReport } from '../store/index.js';
import type { CommandContext } from './context.js';

export function noteIgnoredCheckpoints(context: CommandContext, sessionId: string, report: CheckpointReport): void {
  if (report.ignored.length === 0) return;
  const from = report.restoredFrom === undefined ? 'read from seq 0' : `read from the checkpoint at seq ${report.restoredFrom}`;
  const hint = `\`shadowlog checkpoint ${sessionId}\` writes a new one, \`shadowlog verify ${sessionId}\` checks them all`;
  const unproven = report.ignored.filter((finding) => finding.status === 'unproven');
  if (unproven.length > 0) {
    const seqs = unproven.map((finding) => finding.seq).join(', ');
    const reasons = [...new Set(unproven.map((finding) => finding.reason))].join('; ');
    const count = unproven.length === 1 ? 'fold checkpoint' : 'fold checkpoints';
    context.io.stderr.write(
      `shadowlog: note: ${sessionId}: ${count} at seq ${seqs} ignored, not proven by this machine's checkpoint key (${reasons}); the session was ${from}. ${hint}\n`,
    );
  }
  for (const finding of report.ignored.filter((each: CheckpointFinding) => each.status !== 'unproven')) {
    context.io.stderr.write(
      `shadowlog: note: ${sessionId}: fold checkpoint at seq ${finding.seq} ignored (${finding.status}: ${finding.reason}); the session was ${from}. ${hint}\n`,
    );
  }
}
