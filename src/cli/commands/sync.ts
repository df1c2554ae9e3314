// `shadowlog sync [--watch]`: the sessions of every harness found on this machine (Claude Code,
// Codex CLI, pi, each where it keeps them) imported into the store, and with --watch kept in step
// as they grow. Per harness it says what it found and what it did; files that are not sessions
// are listed as skipped, damaged ones on stderr (exit 1), after the rest were imported.

import { homedir } from 'node:os';
import type { Command } from 'commander';
import {
  DEFAULT_SETTLE_MS,
  DEFAULT_WATCH_INTERVAL_MS,
  type HarnessSyncReport,
  harnessLocations,
  type SyncPassReport,
  syncHarnesses,
  watchHarnesses,
} from '../../importers/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { plural } from '../plural.js';
import { createCliRegistry } from '../registry.js';

export interface SyncCommandOptions {
  readonly watch: boolean;
  /** Watch: the longest time between passes, in ms. */
  readonly intervalMs?: number;
  /** Watch: poll only, no file-system events. */
  readonly poll?: boolean;
  /** Seconds a file must be unchanged before what may still change at its end is written. */
  readonly settle?: number;
}

export async function syncCommand(context: CommandContext, options: SyncCommandOptions): Promise<number> {
  const store = await context.store();
  const locations = harnessLocations({ env: process.env, home: homedir() });
  const common = {
    registry: createCliRegistry(),
    locations,
    settleMs: (options.settle ?? DEFAULT_SETTLE_MS / 1000) * 1000,
  };
  if (!options.watch) {
    const report = await syncHarnesses(store, common);
    if (context.json) context.printJson({ store: store.location, ...report });
    else printPass(context, report, store.location, true);
    return report.harnesses.some((harness) => harness.failed.length > 0) ? 1 : 0;
  }
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  if (context.io.signal?.aborted === true) stop();
  context.io.signal?.addEventListener('abort', stop);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let passes = 0;
  let written = 0;
  try {
    const intervalMs = options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
    if (!context.json) {
      context.print(
        `watching ${locations.map((location) => tilde(location.directory)).join(', ')} into ${store.location}: a pass on each change and every ${intervalMs} ms${options.poll === true ? ' (polling only)' : ''}; Ctrl-C stops`,
      );
    }
    await watchHarnesses(store, {
      ...common,
      intervalMs,
      ...(options.poll === true ? { poll: true } : {}),
      signal: stopping.signal,
      onWatchLost: (directory, error) =>
        context.io.stderr.write(
          `shadowlog: warning: ${tilde(directory)} cannot be watched (${error instanceof Error ? error.message : String(error)}); it is looked at every ${intervalMs} ms instead\n`,
        ),
      onPass: (report) => {
        passes++;
        written += report.harnesses.reduce(
          (sum, harness) => sum + harness.sessions.reduce((total, session) => total + session.written, 0),
          0,
        );
        if (context.json) {
          context.write(`${JSON.stringify({ time: new Date().toISOString(), ...report })}\n`);
        } else if (passes === 1) printPass(context, report, store.location, false);
        else printChanges(context, report);
      },
    });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    context.io.signal?.removeEventListener('abort', stop);
  }
  if (!context.json) context.print(`stopped after ${passes} passes; ${written} events written in all`);
  return 0;
}

function printPass(context: CommandContext, report: SyncPassReport, location: string, last: boolean): void {
  for (const harness of report.harnesses) {
    const where = `${tilde(harness.directory)}${harness.from === 'default' ? '' : ` (${harness.from})`}`;
    if (!harness.found) {
      context.print(`${harness.harness}: ${where}: not found, nothing to import`);
      continue;
    }
    const count = (status: string) => harness.sessions.filter((session) => session.status === status).length;
    context.print(
      `${harness.harness}: ${where}: ${plural(harness.files, 'file')}; sessions: ${count('imported')} imported, ${count('grew')} grew, ${count('already-present')} unchanged; ${plural(harness.skipped.length, 'file')} skipped, ${harness.failed.length} failed`,
    );
    printDetails(context, harness);
  }
  const written = report.harnesses.reduce(
    (sum, harness) => sum + harness.sessions.reduce((total, session) => total + session.written, 0),
    0,
  );
  if (last) context.print(`${written} events written into ${location}`);
}

/** A later pass of --watch: only what changed. */
function printChanges(context: CommandContext, report: SyncPassReport): void {
  const time = new Date().toISOString().slice(11, 19);
  for (const harness of report.harnesses) {
    for (const session of harness.sessions) {
      if (session.written === 0) continue;
      const what =
        session.status === 'grew' ? `grew by ${plural(session.written, 'event')}` : `imported, ${plural(session.written, 'event')}`;
      context.print(`${time} ${session.sessionId}: ${what}, ${plural(session.modelCalls, 'model call')} in all (${tilde(session.path)})`);
    }
    // What is held back is written in a later pass, and printed then.
    printDetails(context, { ...harness, sessions: [] });
  }
}

function printDetails(context: CommandContext, harness: HarnessSyncReport): void {
  for (const session of harness.sessions) {
    if (session.pending > 0) {
      context.print(
        `  ${session.sessionId}: ${session.pending} events held back, the file is still being written (written once complete, or unchanged for the settle time)`,
      );
    }
  }
  for (const file of harness.skipped) context.print(`  skipped ${tilde(file.path)}: ${file.reason}`);
  for (const file of harness.failed) {
    context.io.stderr.write(
      `shadowlog: failed: ${tilde(file.path)}${file.line === null ? '' : ` line ${file.line}`}: ${file.code}: ${file.message}\n`,
    );
  }
}

/** A path under the home directory, as ~/… */
function tilde(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** Registers `shadowlog sync` on the program. */
export function registerSyncCommand(program: Command, run: RunCommand): void {
  program
    .command('sync')
    .description(
      "import every harness's sessions found on this machine (Claude Code ~/.claude/projects, Codex ~/.codex/sessions, pi ~/.pi/agent/sessions, or where CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR say), appending what grew; --watch keeps following them",
    )
    .option('--watch', 'keep following the sessions as they grow, until Ctrl-C')
    .option('--interval <ms>', `--watch: the longest time between passes (default ${DEFAULT_WATCH_INTERVAL_MS})`, (value) =>
      integerArgument(value, 'milliseconds', 10),
    )
    .option('--poll', '--watch: look every --interval only, without file-system events (network file systems)')
    .option(
      '--settle <seconds>',
      `a file changed less than this long ago is still being written: an answer whose lines may still come waits until the next record or this long (default ${DEFAULT_SETTLE_MS / 1000})`,
      (value) => integerArgument(value, 'seconds', 0),
    )
    .action((options: { watch?: boolean; interval?: number; poll?: boolean; settle?: number }) =>
      run('write', (context) =>
        syncCommand(context, {
          watch: options.watch === true,
          ...(options.interval === undefined ? {} : { intervalMs: options.interval }),
          ...(options.poll === true ? { poll: true } : {}),
          ...(options.settle === undefined ? {} : { settle: options.settle }),
        }),
      )(),
    );
}
