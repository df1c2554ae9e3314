// `shadowlog origins <id> <seq>`: the original events a summary or pruned node stands for.

import type { Command } from 'commander';
import { assertSessionId, origins, type SessionSeq } from '../../log/index.js';
import { resolveSessionId } from '../../store/index.js';
import { type RunCommand, seqArgument } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { renderMessage } from '../render-text.js';

export async function originsCommand(context: CommandContext, given: string, seq: number, full: boolean): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const readEvent = (eventSeq: SessionSeq) => store.readEvent(sessionId, eventSeq);
  const found = await origins(seq as SessionSeq, readEvent);
  if (context.json) {
    context.printJson({ seq, origins: found });
    return 0;
  }
  context.print(`#${seq} stands for ${found.length} original event${found.length === 1 ? '' : 's'}:`);
  for (const originSeq of found) context.print(renderMessage(await readEvent(originSeq), { maxChars: full ? 0 : 300 }));
  return 0;
}

/** Registers `shadowlog origins` on the program. */
export function registerOriginsCommand(program: Command, run: RunCommand): void {
  program
    .command('origins <id> <seq>')
    .description('the original events that a summary or pruned node stands for')
    .option('--full', 'do not shorten long messages')
    .action((id: string, seq: string, options: { full?: boolean }) =>
      run('read', (context) => originsCommand(context, id, seqArgument(seq), options.full === true))(),
    );
}
