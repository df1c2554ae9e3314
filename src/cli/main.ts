// The shadowlog command line: parses arguments, runs one command, prints errors as one line
// `shadowlog: CODE: message`, and returns the exit code (0 ok, 1 failed check, 2 bad usage).

import { Command, CommanderError } from 'commander';
import { ShadowlogError, withCleanup } from '../log/index.js';
import { HARNESS_VERSION } from '../store/index.js';
import { watchOutput } from './closed-output.js';
import type { RunCommand } from './command-kit.js';
import { COMMANDS } from './commands/index.js';
import { type CliIo, type CommandContext, createContext } from './context.js';
import { openStore, parseStoreSpec } from './store-option.js';
import { escapeTerminalText } from './terminal-text.js';
import { UsageError } from './usage-error.js';

const USAGE_CODES = new Set(['USAGE', 'INVALID_SESSION_ID', 'INVALID_CONFIG', 'INVALID_SEARCH_QUERY']);

interface GlobalOptions {
  store?: string;
  json?: boolean;
}

export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let exitCode = 0;
  let opened: (CommandContext & { close(): Promise<void> }) | undefined;
  const output = watchOutput(io.stdout);
  const program = new Command('shadowlog');
  const run: RunCommand = (access, command) => async () => {
    const options = program.opts<GlobalOptions>();
    const spec = parseStoreSpec(options.store, io.cwd);
    opened = createContext(
      io,
      options.json === true,
      () => openStore(spec, access, (message) => io.stderr.write(`shadowlog: ${message}\n`)),
      output,
    );
    exitCode = await command(opened);
  };

  program
    .description('An append-only session log for LLM agents: compaction shadows what the model is shown, and every original event stays.')
    .version(HARNESS_VERSION)
    .option('--store <store>', 'sqlite:PATH or postgres://… (default: $SHADOWLOG_STORE, else sqlite:.shadowlog/shadowlog.db)')
    .option('--json', 'print one JSON document on stdout')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: () => {} });

  for (const register of COMMANDS) register(program, run);

  if (argv.length === 0) {
    program.outputHelp();
    return 2;
  }
  try {
    // Closing the store after a failure must not replace the failure (a full disk fails both).
    await withCleanup(
      () => program.parseAsync([...argv], { from: 'user' }),
      async () => {
        await opened?.close();
        output.dispose();
      },
    );
  } catch (error) {
    // A reader that went away (`| head`) ends the command, quietly and successfully.
    exitCode = output.isClosedError(error) ? 0 : report(error, io, argv.includes('--json'));
  }
  return exitCode;
}

function report(error: unknown, io: CliIo, json: boolean): number {
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return writeError(io, json, new UsageError(error.message.replace(/^error: /, '')), 2);
  }
  if (ShadowlogError.isInstance(error)) return writeError(io, json, error, USAGE_CODES.has(error.code) ? 2 : 1);
  const message = error instanceof Error ? error.message : String(error);
  if (process.env.SHADOWLOG_DEBUG) io.stderr.write(`${error instanceof Error ? error.stack : message}\n`);
  return writeError(
    io,
    json,
    { code: 'INTERNAL', message: `${message} (this is a bug in shadowlog; SHADOWLOG_DEBUG=1 prints the stack)` },
    1,
  );
}

function writeError(io: CliIo, json: boolean, error: { code: string; message: string }, exitCode: number): number {
  io.stderr.write(
    json
      ? `${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`
      : `shadowlog: ${error.code}: ${escapeTerminalText(error.message)}\n`,
  );
  return exitCode;
}

function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd() };
}
