// `shadowlog checkpoint <id>`: writes a fold checkpoint of the session at its head, so that the
// next open reads the checkpoint and the events after it instead of the whole log. The fold is
// built by reading the whole log, not from an earlier checkpoint: a new checkpoint owes nothing
// to an old one. Its digest is a MAC under this machine's checkpoint key (created on first use, see
// docs/stores.md), which is what lets an open trust it. A checkpoint is derived data beside the
// log; the log is not changed.

import type { Command } from 'commander';
import { assertSessionId, SessionNotFoundError } from '../../log/index.js';
import { hasCheckpoints, SessionLog } from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';

export async function checkpointCommand(context: CommandContext, sessionId: string): Promise<number> {
  assertSessionId(sessionId);
  const store = await context.store();
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  const log = await SessionLog.open(store, sessionId, { registry: createCliRegistry(), checkpoints: false });
  const entry = await log.writeCheckpoint();
  const kept = hasCheckpoints(store) ? (await store.listCheckpoints(sessionId)).map((each) => each.seq) : [];
  if (context.json) {
    context.printJson({ sessionId, seq: entry.seq, digest: entry.digest, length: entry.length, kept });
    return 0;
  }
  const keyId = entry.digest.split(':')[1] ?? '';
  context.print(
    `${sessionId}: fold checkpoint written at seq ${entry.seq} under checkpoint key ${keyId} (${log.fold.size} surface nodes, ${entry.length} characters); checkpoints kept at seq ${kept.join(', ')}`,
  );
  return 0;
}

/** Registers `shadowlog checkpoint` on the program. */
export function registerCheckpointCommand(program: Command, run: RunCommand): void {
  program
    .command('checkpoint <id>')
    .description('write a fold checkpoint of the session at its head, so that opening it reads only the events after it')
    .action((id: string) => run('write', (context) => checkpointCommand(context, id))());
}
