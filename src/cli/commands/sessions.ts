// `shadowlog sessions`: the sessions in the store, each sub-session (format 2's
// session/start.parent) named with its parent and listed under it, and a session the proxy
// linked to the one it likely continues (session/start.continues) marked so.

import type { Command } from 'commander';
import { dataOf, type SessionContinuation, type SessionParent } from '../../log/index.js';
import type { LogStore, StoredSession } from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';

type ListedSession = StoredSession & { parent?: SessionParent; continues?: SessionContinuation };

export async function sessionsCommand(context: CommandContext): Promise<number> {
  const store = await context.store();
  const sessions = await withParents(store, await store.listSessions());
  if (context.json) {
    context.printJson(sessions);
    return 0;
  }
  if (sessions.length === 0) {
    context.print(`no sessions in ${store.location}`);
    return 0;
  }
  const width = Math.max(...sessions.map((session) => session.id.length + 2), 7);
  context.print(`${'SESSION'.padEnd(width)}  ${'EVENTS'.padStart(8)}  CREATED                   UPDATED`);
  const listed = new Set(sessions.map((session) => session.id));
  const children = new Map<string, ListedSession[]>();
  for (const session of sessions) {
    const parent = session.parent?.sessionId;
    if (parent !== undefined && listed.has(parent)) children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  const printTree = (session: ListedSession, depth: number, seen: Set<string>) => {
    const name = `${'  '.repeat(depth)}${depth > 0 ? '└ ' : ''}${session.id}`;
    const orphan =
      session.parent !== undefined && !listed.has(session.parent.sessionId) ? `  (sub-session of ${session.parent.sessionId})` : '';
    const continues = session.continues === undefined ? '' : `  (likely continues ${session.continues.sessionId})`;
    context.print(
      `${name.padEnd(width)}  ${String(session.events).padStart(8)}  ${session.createdAt.padEnd(24)}  ${session.updatedAt}${orphan}${continues}`,
    );
    seen.add(session.id);
    for (const child of children.get(session.id) ?? []) if (!seen.has(child.id)) printTree(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const session of sessions) {
    const parent = session.parent?.sessionId;
    if (parent === undefined || !listed.has(parent)) printTree(session, 0, seen);
  }
  // A cycle of parents (only a hand-made store has one) is still listed, flat.
  for (const session of sessions) if (!seen.has(session.id)) printTree(session, 0, seen);
  return 0;
}

/** Each session with the parent its session/start names, and the session it likely continues (a proxy's link), if any. */
async function withParents(store: LogStore, sessions: readonly StoredSession[]): Promise<ListedSession[]> {
  const listed: ListedSession[] = [];
  for (const session of sessions) {
    const { parent, continues } = dataOf(await store.readEvent(session.id, 0), 'session/start');
    listed.push({ ...session, ...(parent === undefined ? {} : { parent }), ...(continues === undefined ? {} : { continues }) });
  }
  return listed;
}

/** Registers `shadowlog sessions` on the program. */
export function registerSessionsCommand(program: Command, run: RunCommand): void {
  program
    .command('sessions')
    .description('list the sessions in the store')
    .action(run('read', (context) => sessionsCommand(context)));
}
