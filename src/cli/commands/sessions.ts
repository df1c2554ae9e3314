// `shadowlog sessions`: the sessions in the store.

import type { CommandContext } from '../context.js';

export async function sessionsCommand(context: CommandContext): Promise<number> {
  const store = await context.store();
  const sessions = await store.listSessions();
  if (context.json) {
    context.printJson(sessions);
    return 0;
  }
  if (sessions.length === 0) {
    context.print(`no sessions in ${store.location}`);
    return 0;
  }
  const width = Math.max(...sessions.map((session) => session.id.length), 7);
  context.print(`${'SESSION'.padEnd(width)}  ${'EVENTS'.padStart(8)}  CREATED                   UPDATED`);
  for (const session of sessions) {
    context.print(
      `${session.id.padEnd(width)}  ${String(session.events).padStart(8)}  ${session.createdAt.padEnd(24)}  ${session.updatedAt}`,
    );
  }
  return 0;
}
