// `shadowlog checkpoint <id>`: writes a fold checkpoint of the session at its head, so that the
// next open reads the checkpoint and the events after it instead of the whole log. The fold is
// built by reading the whole log, not from an earlier checkpoint: a new checkpoint owes nothing
// to an old one. Its digest is a MAC under this machine's checkpoint key (created on first use, see
// docs/stores.md), which is what lets an open trust it. Checkpoints are append-only: when one is
// kept at the head already, it is enough if this key proves it and it holds the same fold (a
// writer's, with its observer's state beside it); another is refused. A checkpoint is derived
// data beside the log; the log is not changed.

import type { Command } from 'commander';
import { assertSessionId, SessionNotFoundError } from '../../log/index.js';
import {
  type CheckpointEntry,
  CheckpointExistsError,
  checkCheckpoint,
  encodeWalkedFold,
  hasCheckpoints,
  type LogStore,
  resolveSessionId,
  SessionLog,
} from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';

export async function checkpointCommand(context: CommandContext, given: string): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const head = await store.head(sessionId);
  if (head === undefined) throw new SessionNotFoundError(sessionId);
  const { log, entry, written, notUsed } = await checkpointNearHead(store, sessionId, head.nextSeq);
  const kept = hasCheckpoints(store) ? (await store.listCheckpoints(sessionId)).map((each) => each.seq) : [];
  if (context.json) {
    const shown = { sessionId, seq: entry.seq, digest: entry.digest, length: entry.length, written, kept };
    context.printJson(notUsed === undefined ? shown : { ...shown, notUsed });
    return 0;
  }
  const keyId = entry.digest.split(':')[1] ?? '';
  const what = written ? 'fold checkpoint written' : 'a proven fold checkpoint of the same fold is kept already';
  const instead =
    notUsed === undefined
      ? ''
      : ` (the one kept at seq ${notUsed.seq} is not used: ${notUsed.status}: ${notUsed.reason}; checkpoints are append-only)`;
  context.print(
    `${sessionId}: ${what} at seq ${entry.seq} under checkpoint key ${keyId}${instead} (${log.fold.size} surface nodes, ${entry.length} characters); checkpoints kept at seq ${kept.join(', ')}`,
  );
  return 0;
}

/** How far below the head the command goes for a seq to write at, when the ones above are taken. */
const SEQS_BELOW_HEAD = 4;

/**
 * A checkpoint at the head: written, or one this key proves with the same fold kept there
 * already. Where another is kept (written before keys, under another key, or bad), the seq
 * below is tried, a few at most; then the CheckpointExistsError is the answer.
 */
async function checkpointNearHead(
  store: LogStore,
  sessionId: string,
  head: number,
): Promise<{ log: SessionLog; entry: CheckpointEntry; written: boolean; notUsed?: { seq: number; status: string; reason: string } }> {
  const registry = createCliRegistry();
  let notUsed: { seq: number; status: string; reason: string } | undefined;
  let refusal: unknown;
  for (let seq = head; seq >= Math.max(1, head - SEQS_BELOW_HEAD); seq--) {
    const log = await SessionLog.open(store, sessionId, { registry, checkpoints: false, toSeq: seq });
    const also = notUsed === undefined ? {} : { notUsed };
    try {
      return { log, entry: await log.writeCheckpoint(), written: true, ...also };
    } catch (error) {
      if (!CheckpointExistsError.isInstance(error) || !hasCheckpoints(store)) throw error;
      refusal ??= error;
      const checked = await checkCheckpoint(store, sessionId, seq, { registry, nextSeq: head });
      const stored = (await store.listCheckpoints(sessionId)).find((each) => each.seq === seq);
      if (
        checked.fold !== undefined &&
        stored !== undefined &&
        encodeWalkedFold(sessionId, checked.fold) === encodeWalkedFold(sessionId, log.fold)
      )
        return { log, entry: stored, written: false, ...also };
      notUsed ??= {
        seq,
        status: checked.finding?.status ?? 'corrupt',
        reason: checked.finding?.reason ?? 'it is proven, but differs from the fold of the log there',
      };
    }
  }
  throw refusal;
}

/** Registers `shadowlog checkpoint` on the program. */
export function registerCheckpointCommand(program: Command, run: RunCommand): void {
  program
    .command('checkpoint <id>')
    .description('write a fold checkpoint of the session at its head, so that opening it reads only the events after it')
    .action((id: string) => run('write', (context) => checkpointCommand(context, id))());
}
