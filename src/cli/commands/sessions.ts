// `shadowlog sessions`: the sessions in the store, one line each: where it came from (shadowlog's
// harness, the proxy, or an import of Claude Code, Codex or pi), its calls, compactions, tokens,
// cost, last activity, project, models and first request; each sub-session (format 2's
// session/start.parent) listed under its parent, and a session the proxy linked to the one it
// likely continues (session/start.continues) marked so; a what-if session (session/start.whatif)
// under the session whose call it asks again. --source, --project and --since choose; --sort orders.

import type { Command } from 'commander';
import { SESSION_SOURCES, type SessionSource } from '../../log/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { pricesOption } from '../price-option.js';
import { overviewOf, type SessionOverview } from '../session-overview.js';
import { formatSessionLine, SESSION_HEADER } from '../session-table.js';
import { UsageError } from '../usage-error.js';
import { describeWhatIfLink } from '../whatif-link-text.js';

export const SESSION_SORTS = ['last-activity', 'calls', 'tokens', 'cost'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

export interface SessionsOptions {
  readonly source?: string;
  readonly project?: string;
  readonly since?: string;
  readonly sort?: string;
  readonly prices?: string;
  /** Only the tree of sessions: each branch and sub-session under its parent, with where it forks. */
  readonly tree?: boolean;
}

export async function sessionsCommand(context: CommandContext, options: SessionsOptions = {}): Promise<number> {
  const source = sourceOption(options.source);
  const sort = sortOption(options.sort);
  const since = options.since === undefined ? undefined : sinceOption(options.since, Date.now());
  const prices = pricesOption(context, options.prices);
  const store = await context.store();
  const stored = await store.listSessions();
  const sessions: SessionOverview[] = [];
  for (const session of stored) {
    if (since !== undefined && Date.parse(session.updatedAt) < since) continue;
    const overview = await overviewOf(store, session, prices);
    if (source !== undefined && overview.source !== source) continue;
    if (options.project !== undefined && !(overview.project ?? '').includes(options.project)) continue;
    sessions.push(overview);
  }
  linkWhatIfs(sessions);
  // --json keeps the store's order unless --sort is given, as it always listed them.
  if (sort !== undefined || !context.json) sessions.sort(compareBy(sort ?? 'last-activity'));
  if (context.json) {
    context.printJson(sessions);
    return 0;
  }
  if (sessions.length === 0) {
    context.print(
      stored.length === 0 ? `no sessions in ${store.location}` : `none of the ${stored.length} sessions in ${store.location} match`,
    );
    return 0;
  }
  if (options.tree === true) {
    printBranchTree(context, sessions);
    return 0;
  }
  printTree(context, sessions);
  const unpriced = [...new Set(sessions.flatMap((session) => session.cost.unpricedModels))].sort();
  if (unpriced.length > 0) {
    context.print(
      `* calls of ${unpriced.join(', ')} are not in the price table of ${prices.date}; their cost is left out (give prices with --prices FILE)`,
    );
  }
  return 0;
}

/** Each audited session listed learns the what-if sessions listed that ask its calls again. */
function linkWhatIfs(sessions: SessionOverview[]): void {
  const byAudited = new Map<string, string[]>();
  for (const session of sessions) {
    const audited = session.whatif?.sessionId;
    if (audited !== undefined) byAudited.set(audited, [...(byAudited.get(audited) ?? []), session.id]);
  }
  for (const [index, session] of sessions.entries()) {
    const whatifs = byAudited.get(session.id);
    if (whatifs !== undefined) sessions[index] = { ...session, whatifs };
  }
}

/** The session a listed one is shown under: its parent (a sub-session), or the session whose call it asks again (a what-if). */
function ownerOf(session: SessionOverview): string | undefined {
  return session.parent?.sessionId ?? session.whatif?.sessionId;
}

/** Sessions in order, each sub-session and what-if session under its parent (a parent not listed is named after it). */
function printTree(context: CommandContext, sessions: readonly SessionOverview[]): void {
  const listed = new Set(sessions.map((session) => session.id));
  const children = new Map<string, SessionOverview[]>();
  for (const session of sessions) {
    const parent = ownerOf(session);
    if (parent !== undefined && listed.has(parent)) children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  // The rows first, each with its depth, so that the column is as wide as its widest indented name.
  const rows: Array<{ session: SessionOverview; depth: number }> = [];
  const seen = new Set<string>();
  const place = (session: SessionOverview, depth: number) => {
    rows.push({ session, depth });
    seen.add(session.id);
    for (const child of children.get(session.id) ?? []) if (!seen.has(child.id)) place(child, depth + 1);
  };
  for (const session of sessions) {
    const parent = ownerOf(session);
    if (parent === undefined || !listed.has(parent)) place(session, 0);
  }
  // A cycle of parents (only a hand-made store has one) is still listed, flat.
  for (const session of sessions) if (!seen.has(session.id)) place(session, 0);
  const width = Math.max(...rows.map(({ session, depth }) => session.id.length + (depth > 0 ? 2 * depth + 2 : 0)), 7);
  context.print(SESSION_HEADER(width));
  for (const { session, depth } of rows) {
    const orphan =
      session.parent === undefined
        ? ''
        : session.forkSeq !== undefined
          ? `  (branch of ${session.parent.sessionId} after #${session.forkSeq}; counts its own events only)`
          : !listed.has(session.parent.sessionId)
            ? `  (sub-session of ${session.parent.sessionId})`
            : '';
    const continues = session.continues === undefined ? '' : `  (likely continues ${session.continues.sessionId})`;
    const whatif = session.whatif === undefined ? '' : `  (${describeWhatIfLink(session.whatif)})`;
    const whatifs =
      session.whatifs === undefined ? '' : `  (${plural(session.whatifs.length, 'what-if session', { separators: true })} below)`;
    context.print(`${formatSessionLine(session, depth, width)}${orphan}${continues}${whatif}${whatifs}`);
  }
}

/** `sessions --tree`: the sessions as a tree of ids, each branch saying where it forks and how many events are its own. */
function printBranchTree(context: CommandContext, sessions: readonly SessionOverview[]): void {
  const listed = new Set(sessions.map((session) => session.id));
  const children = new Map<string, SessionOverview[]>();
  for (const session of sessions) {
    const parent = ownerOf(session);
    if (parent !== undefined && listed.has(parent)) children.set(parent, [...(children.get(parent) ?? []), session]);
  }
  const seen = new Set<string>();
  const describe = (session: SessionOverview): string => {
    if (session.forkSeq !== undefined) {
      const own = session.events - session.forkSeq - 1;
      return `${session.id}  branch after #${session.forkSeq} of ${session.parent?.sessionId}, ${plural(own, 'own event', { separators: true })} (${session.events.toLocaleString('en-US')} with the prefix)`;
    }
    const kind =
      session.parent !== undefined ? `sub-session of ${session.parent.sessionId}, ` : session.whatif !== undefined ? 'what-if, ' : '';
    return `${session.id}  ${kind}${plural(session.events, 'event', { separators: true })}`;
  };
  const place = (session: SessionOverview, prefix: string, connector: string, childPrefix: string) => {
    seen.add(session.id);
    context.print(`${prefix}${connector}${describe(session)}`);
    const below = (children.get(session.id) ?? []).filter((child) => !seen.has(child.id));
    below.forEach((child, index) => {
      const last = index === below.length - 1;
      place(child, `${prefix}${childPrefix}`, last ? '└─ ' : '├─ ', last ? '   ' : '│  ');
    });
  };
  for (const session of sessions) {
    const parent = ownerOf(session);
    if (parent === undefined || !listed.has(parent)) place(session, '', '', '');
  }
  for (const session of sessions) if (!seen.has(session.id)) place(session, '', '', '');
}

function compareBy(sort: SessionSort): (a: SessionOverview, b: SessionOverview) => number {
  const key = (session: SessionOverview): number => {
    switch (sort) {
      case 'calls':
        return session.calls;
      case 'tokens':
        return session.tokens.total;
      case 'cost':
        return session.cost.usd ?? -1;
      default:
        return Date.parse(session.lastActivity);
    }
  };
  return (a, b) => key(b) - key(a) || a.id.localeCompare(b.id);
}

function sourceOption(value: string | undefined): SessionSource | undefined {
  if (value === undefined) return undefined;
  if (!(SESSION_SOURCES as readonly string[]).includes(value))
    throw new UsageError(`--source must be one of ${SESSION_SOURCES.join(', ')}, found ${JSON.stringify(value)}`);
  return value as SessionSource;
}

function sortOption(value: string | undefined): SessionSort | undefined {
  if (value === undefined) return undefined;
  if (!(SESSION_SORTS as readonly string[]).includes(value))
    throw new UsageError(`--sort must be one of ${SESSION_SORTS.join(', ')}, found ${JSON.stringify(value)}`);
  return value as SessionSort;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The time --since names, in ms: a date or time (2026-02-01, 2026-02-01T12:00Z), or a duration back from now (30m, 12h, 7d, 2w). */
export function sinceOption(value: string, now: number): number {
  const duration = /^(\d+)([mhdw])$/.exec(value);
  if (duration !== null) return now - Number(duration[1]) * (UNIT_MS[duration[2] as string] as number);
  const time = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time))
    throw new UsageError(
      `--since takes a date (2026-02-01), a time (2026-02-01T12:00Z) or a duration (30m, 12h, 7d, 2w), found ${JSON.stringify(value)}`,
    );
  return time;
}

/** Registers `shadowlog sessions` on the program. */
export function registerSessionsCommand(program: Command, run: RunCommand): void {
  program
    .command('sessions')
    .description('list the sessions in the store: source, calls, compactions, tokens, cost, last activity, project, models, first request')
    .option('--source <source>', `only sessions from ${SESSION_SOURCES.join(', ')}`)
    .option('--project <text>', 'only sessions whose working directory contains the text')
    .option('--since <when>', 'only sessions active since a date (2026-02-01) or for a duration back from now (30m, 12h, 7d, 2w)')
    .option('--sort <key>', `order by ${SESSION_SORTS.join(', ')}, largest or latest first (default last-activity)`)
    .option('--prices <file>', 'a JSON price table laid over the built-in one (as tune takes)')
    .option('--tree', 'only the tree of sessions: each branch and sub-session under its parent, with where it forks')
    .action((options: SessionsOptions) => run('read', (context) => sessionsCommand(context, options))());
}
