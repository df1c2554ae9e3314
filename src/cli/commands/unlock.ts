// `shadowlog unlock <id> --reason TEXT`: an operator declares the session's earlier lifecycle
// over. It appends session/end-seed (with who and why), which makes a compaction lock left
// open by a dead process stale. A live owner keeps its session: unlock needs ownership.

import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import { trackCompactionLocks } from '../../compaction/index.js';
import { assertSessionId, withCleanup } from '../../log/index.js';
import { resolveSessionId, SessionLog } from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';

export async function unlockCommand(context: CommandContext, given: string, reason: string): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  if (reason.trim() === '') throw new UsageError('unlock needs --reason TEXT: say why the lock is stale (it is recorded in the log)');
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const ownership = await store.acquireOwnership(sessionId);
  return withCleanup(
    async () => {
      const locks = trackCompactionLocks();
      const log = await SessionLog.open(store, sessionId, { registry: createCliRegistry(), observe: (event) => locks.observe(event) });
      const unlocked = locks.openCompactions();
      if (unlocked.length === 0) {
        if (context.json) context.printJson({ sessionId, unlocked: [], endSeedSeq: null });
        else context.print(`${sessionId} has no open compaction lock; nothing written`);
        return 0;
      }
      const who = `${safeUser()}@${hostname()}`;
      const [seed] = await log.append([{ type: 'session/end-seed', data: { reason: `unlock by ${who}: ${reason.trim()}` } }]);
      if (context.json) {
        context.printJson({ sessionId, unlocked, endSeedSeq: seed?.seq ?? null });
      } else {
        for (const lock of unlocked) context.print(`compaction ${lock.compactionId} (started at event #${lock.startSeq}) is now stale`);
        context.print(`appended session/end-seed #${seed?.seq} to ${sessionId}: unlock by ${who}: ${reason.trim()}`);
      }
      return 0;
    },
    () => ownership.release(),
  );
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown-user';
  }
}

/** Registers `shadowlog unlock` on the program. */
export function registerUnlockCommand(program: Command, run: RunCommand): void {
  program
    .command('unlock <id>')
    .description('declare an earlier lifecycle over (session/end-seed), making a compaction lock left by a dead process stale')
    .requiredOption('--reason <text>', 'why the lock is stale; recorded in the log with who unlocked it')
    .action((id: string, options: { reason: string }) => run('write', (context) => unlockCommand(context, id, options.reason))());
}
