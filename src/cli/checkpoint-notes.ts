// What a command that opens a session says about the fold checkpoints it ignored: on stderr, so
// that stdout stays the command's answer (JSON or text). Each was ignored, never trusted, and the
// session was read from further back; the note says which, why, and that verify tells more.

import type { CheckpointReport } from '../store/index.js';
import type { CommandContext } from './context.js';

export function noteIgnoredCheckpoints(context: CommandContext, sessionId: string, report: CheckpointReport): void {
  if (report.ignored.length === 0) return;
  const from = report.restoredFrom === undefined ? 'read from seq 0' : `read from the checkpoint at seq ${report.restoredFrom}`;
  for (const finding of report.ignored) {
    context.io.stderr.write(
      `shadowlog: note: ${sessionId}: fold checkpoint at seq ${finding.seq} ignored (${finding.status}: ${finding.reason}); the session was ${from}. \`shadowlog checkpoint ${sessionId}\` writes a new one, \`shadowlog verify ${sessionId}\` checks them all\n`,
    );
  }
}
