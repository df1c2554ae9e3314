// `shadowlog export <id>` and `shadowlog import <file…|dir>`: JSONL out; shadowlog exports and
// other harnesses' sessions (Claude Code, Codex CLI, pi) in.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { type Command, Option } from 'commander';
import { type ImportFormat, type ImportInput, ImportInputError, importFiles, readImportInputs } from '../../importers/index.js';
import { assertSessionId, SessionNotFoundError } from '../../log/index.js';
import { exportSession, exportSessionToFile } from '../../store/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { createCliRegistry } from '../registry.js';
import { UsageError } from '../usage-error.js';
import { importJson, printImport } from './import-report-text.js';

export async function exportCommand(context: CommandContext, sessionId: string, outputPath: string | undefined): Promise<number> {
  assertSessionId(sessionId);
  const store = await context.store();
  if ((await store.head(sessionId)) === undefined) throw new SessionNotFoundError(sessionId);
  if (outputPath === undefined || outputPath === '-') {
    await exportSession(store, sessionId, context.io.stdout);
    return 0;
  }
  // Written beside the target and renamed when complete: a failed export leaves no file.
  const written = await exportSessionToFile(store, sessionId, resolve(context.io.cwd, outputPath));
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
    if (path === '-') inputs.push({ path: '-', bytes: await readAll(context.io.stdin) });
    else inputs.push(...(await readImportInputs([path], context.io.cwd)));
  }
  const store = await context.store();
  const summary = await importFiles(store, inputs, {
    format: options.format,
    registry: createCliRegistry(),
    ...(options.as === undefined ? {} : { sessionId: options.as }),
    ...(options.window === undefined ? {} : { window: options.window }),
  });
  if (context.json) context.printJson(importJson(summary));
  else printImport(context, summary, store.location);
  return 0;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Registers `shadowlog export` on the program. */
export function registerExportCommand(program: Command, run: RunCommand): void {
  program
    .command('export <id>')
    .description('write a session as JSONL (to stdout, or --output FILE)')
    .option('-o, --output <file>', 'the file to write (it must not exist yet)')
    .action((id: string, options: { output?: string }) => run('read', (context) => exportCommand(context, id, options.output))());
}

/** Registers `shadowlog import` on the program. */
export function registerImportCommand(program: Command, run: RunCommand): void {
  program
    .command('import <files...>')
    .description(
      'store sessions: shadowlog JSONL exports, and Claude Code, Codex CLI and pi sessions with their compactions mapped (a directory imports every .jsonl file under it, subagents linked; - reads standard input); everything is read and checked before anything is stored, and importing a file again writes nothing',
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
    .action((files: string[], options: { format: ImportCommandOptions['format']; as?: string; window?: number }) =>
      run('write', (context) =>
        importCommand(context, files, {
          format: options.format,
          ...(options.as === undefined ? {} : { as: options.as }),
          ...(options.window === undefined ? {} : { window: options.window }),
        }),
      )(),
    );
}
