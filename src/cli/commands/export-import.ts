// `shadowlog export <id>` and `shadowlog import <file…|dir>`: JSONL out; shadowlog exports and
// other harnesses' sessions (Claude Code, Codex CLI, pi) in.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { type ImportFormat, type ImportInput, ImportInputError, importFiles, readImportInputs } from '../../importers/index.js';
import { assertSessionId } from '../../log/index.js';
import { collectInputBytes, exportSession, exportSessionToFile, resolveSessionId } from '../../store/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';
import { importJson, printImport } from './import-report-text.js';

export interface ExportCommandOptions {
  /** Replace an existing output file. */
  readonly force?: boolean;
}

export async function exportCommand(
  context: CommandContext,
  given: string,
  outputPath: string | undefined,
  options: ExportCommandOptions = {},
): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  if (outputPath === undefined || outputPath === '-') {
    if (options.force === true) throw new UsageError('--force replaces an --output file; the export goes to standard output without one');
    await exportSession(store, sessionId, context.io.stdout);
    return 0;
  }
  // Written beside the target and renamed when complete: a failed export leaves no file.
  const written = await exportSessionToFile(store, sessionId, resolve(context.io.cwd, outputPath), { force: options.force === true });
  if (context.json) context.printJson({ sessionId, events: written.events, file: written.path, headHash: written.headHash });
  else context.print(`exported ${written.events} events of ${sessionId} to ${outputPath}`);
  return 0;
}

export interface ImportCommandOptions {
  readonly format: ImportFormat | 'auto';
  /** The session id for the one file given. */
  readonly as?: string;
  /** The context window to record on imported calls whose source states none. */
  readonly window?: number;
  /** Seconds: a file changed more recently is still being written, and what is not settled at its end is held back. */
  readonly settle?: number;
}

export async function importCommand(context: CommandContext, paths: readonly string[], options: ImportCommandOptions): Promise<number> {
  if (options.as !== undefined) assertSessionId(options.as);
  for (const path of paths) {
    if (path !== '-' && !existsSync(resolve(context.io.cwd, path))) {
      throw new UsageError(
        `no file ${path}; give session files or directories (shadowlog exports, Claude Code, Codex or pi sessions), or - for standard input`,
      );
    }
  }
  if (paths.filter((path) => path === '-').length > 1) throw new ImportInputError('- (standard input) can be given once');
  const inputs: ImportInput[] = [];
  for (const path of paths) {
    // Standard input is read under a file's bounds: /dev/zero piped in is refused, not held.
    if (path === '-') inputs.push({ path: '-', bytes: await collectInputBytes(context.io.stdin, '-') });
    else inputs.push(...(await readImportInputs([path], context.io.cwd)));
  }
  const store = await context.store();
  const summary = await importFiles(store, inputs, {
    format: options.format,
    registry: createCliRegistry(),
    ...(options.as === undefined ? {} : { sessionId: options.as }),
    ...(options.window === undefined ? {} : { window: options.window }),
    ...(options.settle === undefined ? {} : { settleMs: options.settle * 1000 }),
  });
  if (context.json) context.printJson(importJson(summary));
  else printImport(context, summary, store.location);
  return summary.failed.length > 0 ? 1 : 0;
}

/** Registers `shadowlog export` on the program. */
export function registerExportCommand(program: Command, run: RunCommand): void {
  program
    .command('export <id>')
    .description('write a session as JSONL (to stdout, or --output FILE)')
    .option('-o, --output <file>', 'the file to write (it must not exist yet, unless --force)')
    .option('--force', 'replace the --output file if it exists (the file itself: a symbolic link there is replaced, not followed)')
    .action((id: string, options: { output?: string; force?: boolean }) =>
      run('read', (context) => exportCommand(context, id, options.output, { force: options.force === true }))(),
    );
}

/** Registers `shadowlog import` on the program. */
export function registerImportCommand(program: Command, run: RunCommand): void {
  program
    .command('import <files...>')
    .description(
      'store sessions: shadowlog JSONL exports, and Claude Code, Codex CLI and pi sessions with their compactions mapped (a directory imports every session file under it, subagents linked, and skips files that are not sessions; - reads standard input); everything is read and checked before anything is stored; importing a file again writes nothing, and a file that grew appends its new records',
    )
    .addOption(
      new Option('--format <format>', 'the format of the files; auto tells each by its content')
        .choices(['auto', 'claude-code', 'codex', 'pi', 'shadowlog'])
        .default('auto'),
    )
    .option('--as <id>', 'store the one file given under this session id instead of the one it gives (its sub-sessions are named after it)')
    .option(
      '--window <tokens>',
      "the model's context window to record on imported calls whose source states none (else the model table's)",
      (value) => integerArgument(value, 'tokens', 1),
    )
    .option(
      '--settle <seconds>',
      'a file changed less than this long ago is still being written: what may still change at its end (an answer whose lines keep coming) is held back until a later import (default 0)',
      (value) => integerArgument(value, 'seconds', 0),
    )
    .action((files: string[], options: { format: ImportCommandOptions['format']; as?: string; window?: number; settle?: number }) =>
      run('write', (context) =>
        importCommand(context, files, {
          format: options.format,
          ...(options.as === undefined ? {} : { as: options.as }),
          ...(options.window === undefined ? {} : { window: options.window }),
          ...(options.settle === undefined ? {} : { settle: options.settle }),
        }),
      )(),
    );
}
