// `shadowlog fork <id> --at SEQ | --turn N [--as NEWID]`: a branch (SPEC §14). The new session's
// events 0 … SEQ are the parent's, read from it and never copied; its own start with a
// session/fork. --turn N forks after turn N's turn/end. The parent is never written.

import type { Command } from 'commander';
import { assertSessionId, dataOf, ShadowlogError, withCleanup } from '../../log/index.js';
import { resolveSessionId, SessionLog } from '../../store/index.js';
import { integerArgument, type RunCommand, seqArgument } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';

export interface ForkOptions {
  readonly at?: number;
  readonly turn?: number;
  readonly as?: string;
}

/** A turn that has no turn/end in the session: it cannot name a fork point. */
export class TurnNotEndedError extends ShadowlogError {
  readonly sessionId: string;
  readonly turn: number;
  constructor(sessionId: string, turn: number, turns: number) {
    super(
      'TURN_NOT_ENDED',
      `session ${sessionId} has no turn/end of turn ${turn} (${turns === 0 ? 'it has no ended turn' : `its ended turns run 1 to ${turns}`}); fork after an ended turn, or at a seq with --at`,
    );
    this.sessionId = sessionId;
    this.turn = turn;
  }
}

export async function forkCommand(context: CommandContext, given: string, options: ForkOptions): Promise<number> {
  assertSessionId(given);
  if ((options.at === undefined) === (options.turn === undefined)) throw new UsageError('fork takes --at SEQ or --turn N (one of them)');
  if (options.as !== undefined) assertSessionId(options.as);
  const store = await context.store();
  const parentId = await resolveSessionId(store, given);
  const at = options.at ?? (await turnEndSeq(context, parentId, options.turn as number));
  const branchId = options.as ?? `${parentId.slice(0, 100)}-fork-${at}`;
  assertSessionId(branchId);
  const ownership = await store.acquireOwnership(branchId);
  return withCleanup(
    async () => {
      const branch = await SessionLog.fork(store, parentId, { at, id: branchId, registry: createCliRegistry() });
      if (context.json) {
        context.printJson({ sessionId: branchId, parent: parentId, forkSeq: at, events: branch.nextSeq });
        return 0;
      }
      context.print(
        `forked ${parentId} after its event #${at}${options.turn === undefined ? '' : ` (the end of turn ${options.turn})`} as ${branchId}: events 0–${at} are ${parentId}'s, read from it; #${at + 1} is the session/fork`,
      );
      context.print(`continue it with: shadowlog chat --session ${branchId}`);
      return 0;
    },
    () => ownership.release(),
  );
}

/** The seq of turn `turn`'s turn/end in the session (the last one, if a reopened turn ended twice). */
async function turnEndSeq(context: CommandContext, sessionId: string, turn: number): Promise<number> {
  const store = await context.store();
  let found: number | undefined;
  let ended = 0;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      if (event.type !== 'turn/end') continue;
      const data = dataOf(event, 'turn/end');
      ended = Math.max(ended, data.turn);
      if (data.turn === turn) found = event.seq;
    }
  }
  if (found === undefined) throw new TurnNotEndedError(sessionId, turn, ended);
  return found;
}

/** Registers `shadowlog fork` on the program. */
export function registerForkCommand(program: Command, run: RunCommand): void {
  program
    .command('fork <id>')
    .description('a branch: a new session that continues this one from a point, reading its prefix from it (the parent is never written)')
    .option('--at <seq>', 'fork after event SEQ', seqArgument)
    .option('--turn <n>', "fork after turn N's turn/end", (value) => integerArgument(value, 'a turn number', 1))
    .option('--as <id>', 'the branch id (default <id>-fork-<seq>)')
    .action((id: string, options: ForkOptions) => run('write', (context) => forkCommand(context, id, options))());
}
