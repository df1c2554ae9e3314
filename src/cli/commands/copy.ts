// `shadowlog copy --from STORE --to STORE --all|<id>…`: sessions from one store to another (e.g.
// SQLite to PostgreSQL and back) with every hash kept, a progress bar on stderr, and a summary.

import type { Command } from 'commander';
import { assertSessionId, withCleanup } from '../../log/index.js';
import { type CopiedSession, type CopyProgress, copySessions, type LogStore, resolveSessionId } from '../../store/index.js';
import type { RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { createProgressBar } from '../progress-bar.js';
import { createCliRegistry } from '../registry.js';
import { openStore, parseStoreSpec, type StoreSpec } from '../store-option.js';
import { UsageError } from '../usage-error.js';

export interface CopyCommandOptions {
  readonly from: string;
  readonly to: string;
  readonly all: boolean;
  readonly sessionIds: readonly string[];
}

export async function copyCommand(context: CommandContext, options: CopyCommandOptions): Promise<number> {
  if (options.all === options.sessionIds.length > 0)
    throw new UsageError('copy takes --all, or the ids of the sessions to copy (not both)');
  const sessionIds = options.sessionIds.map((id) => assertSessionId(id));
  const from = storeSpec('--from', options.from, context.io.cwd);
  const to = storeSpec('--to', options.to, context.io.cwd);
  const source = await openStore(from, 'read');
  return withCleanup(
    async () => {
      const target = await openStore(to, 'write', (message) => context.io.stderr.write(`shadowlog: ${message}\n`));
      return withCleanup(
        async () => {
          if (source.location === target.location) {
            throw new UsageError(`--from and --to are the same store (${source.location}); name two different stores`);
          }
          if (options.all) return copy(context, source, target, undefined);
          const resolved: string[] = [];
          for (const given of sessionIds) resolved.push(await resolveSessionId(source, given));
          return copy(context, source, target, resolved);
        },
        () => target.close(),
      );
    },
    () => source.close(),
  );
}

function storeSpec(option: string, value: string, cwd: string): StoreSpec {
  if (value === '') throw new UsageError(`${option} needs a store: sqlite:PATH or postgres://…`);
  return parseStoreSpec(value, cwd, option);
}

async function copy(
  context: CommandContext,
  source: LogStore,
  target: LogStore,
  sessionIds: readonly string[] | undefined,
): Promise<number> {
  const bar = createProgressBar(context.io.stderr, { label: 'copying' });
  const count = (value: number) => value.toLocaleString('en-US');
  const onProgress = (progress: CopyProgress) =>
    bar.update({
      done: progress.events,
      total: progress.totalEvents,
      detail: `${progress.session}/${progress.sessions} sessions, ${count(progress.events)}/${count(progress.totalEvents)} events, ${progress.sessionId}`,
    });
  // In text, each session is reported when it is done, so that a copy stopped by an error still
  // says what it copied (running it again skips those).
  const onSession = (session: CopiedSession) => {
    if (context.json) return;
    bar.finish();
    context.print(
      session.status === 'copied'
        ? `copied ${session.sessionId}: ${plural(session.events, 'event', { separators: true })}`
        : `skipped ${session.sessionId}: the target already holds the same ${count(session.events)} events`,
    );
  };
  let result: Awaited<ReturnType<typeof copySessions>>;
  try {
    result = await copySessions(source, target, {
      registry: createCliRegistry(),
      onProgress,
      onSession,
      ...(sessionIds === undefined ? {} : { sessionIds }),
    });
  } finally {
    bar.finish();
  }
  if (context.json) {
    context.printJson({ from: source.location, to: target.location, ...result });
    return 0;
  }
  const sessions = (value: number) => `${value} session${value === 1 ? '' : 's'}`;
  const skipped = result.skipped === 0 ? '' : `; skipped ${sessions(result.skipped)} the target already held`;
  context.print(
    `copied ${sessions(result.copied)} (${plural(result.events, 'event', { separators: true })}) from ${source.location} to ${target.location}, every hash kept${skipped}`,
  );
  return 0;
}

/** Registers `shadowlog copy` on the program. */
export function registerCopyCommand(program: Command, run: RunCommand): void {
  program
    .command('copy [ids...]')
    .description(
      'copy sessions from one store to another (e.g. SQLite to PostgreSQL), every hash kept and every chain checked; identical sessions already there are skipped, different ones refused',
    )
    .requiredOption('--from <store>', 'the store to copy from: sqlite:PATH or postgres://…')
    .requiredOption('--to <store>', 'the store to copy to: sqlite:PATH or postgres://…')
    .option('--all', 'copy every session of the --from store')
    .action((ids: string[], options: { from: string; to: string; all?: boolean }) =>
      run('write', (context) => copyCommand(context, { from: options.from, to: options.to, all: options.all === true, sessionIds: ids }))(),
    );
}
