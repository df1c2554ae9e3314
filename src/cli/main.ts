// The shadowlog command line: parses arguments, runs one command, prints errors as one line
// `shadowlog: CODE: message`, and returns the exit code (0 ok, 1 failed check, 2 bad usage).

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ShadowlogError, withCleanup } from '../log/index.js';
import type { UserModelLimits } from '../providers/index.js';
import { HARNESS_VERSION } from '../store/index.js';
import { watchOutput } from './closed-output.js';
import { chatCommand, readChatModelLimits } from './commands/chat.js';
import { compactCommand } from './commands/compact.js';
import { copyCommand } from './commands/copy.js';
import { demoCommand } from './commands/demo.js';
import { exportCommand, type ImportCommandOptions, importCommand } from './commands/export-import.js';
import { meterCommand } from './commands/meter.js';
import { originsCommand } from './commands/origins.js';
import { type PolicyCommandOptions, type PolicyFlags, policyCommand } from './commands/policy.js';
import { type ProxyCommandOptions, proxyCommand } from './commands/proxy.js';
import { replayCommand } from './commands/replay.js';
import { sessionsCommand } from './commands/sessions.js';
import { type ShowFlags, showCommand, showOptionsOf } from './commands/show.js';
import { statsCommand } from './commands/stats.js';
import { statsCallsCommand } from './commands/stats-calls.js';
import { tuneCommand } from './commands/tune.js';
import { unlockCommand } from './commands/unlock.js';
import { verifyCommand } from './commands/verify.js';
import { type ViewCommandOptions, viewCommand } from './commands/view.js';
import { type CliIo, type CommandContext, createContext } from './context.js';
import { openStore, parseStoreSpec, type StoreAccess } from './store-option.js';
import { escapeTerminalText } from './terminal-text.js';
import { UsageError } from './usage-error.js';

const USAGE_CODES = new Set(['USAGE', 'INVALID_SESSION_ID', 'INVALID_CONFIG']);

function pickPolicyFlags(options: PolicyFlags): PolicyFlags {
  const flags: { -readonly [K in keyof PolicyFlags]: PolicyFlags[K] } = {};
  for (const key of ['thresholdRatio', 'headroomTokens', 'retainRatio', 'retainTokens'] as const) {
    const value = options[key];
    if (value !== undefined) flags[key] = value;
  }
  return flags;
}

function withModelLimits(modelLimits: UserModelLimits | undefined): { modelLimits?: UserModelLimits } {
  return modelLimits === undefined ? {} : { modelLimits };
}

function readJsonFile(path: string, cwd: string): unknown {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new UsageError(`no file ${path}`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}

function integerArgument(value: string, what: string, minimum = 0): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) < minimum) {
    throw new InvalidArgumentError(`expected ${what} (a whole number from ${minimum}), found ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function seqArgument(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new InvalidArgumentError(`expected a seq (0, 1, 2, …), found ${JSON.stringify(value)}`);
  return Number(value);
}

interface GlobalOptions {
  store?: string;
  json?: boolean;
}

export async function main(argv: readonly string[], io: CliIo = defaultIo()): Promise<number> {
  let exitCode = 0;
  let opened: (CommandContext & { close(): Promise<void> }) | undefined;
  const output = watchOutput(io.stdout);
  const program = new Command('shadowlog');
  // A command that only reads never creates or changes a store (`access: 'read'`).
  const run = (access: StoreAccess, command: (context: CommandContext) => Promise<number>) => async () => {
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

  program
    .command('demo')
    .description(
      'run an offline agent session on a bundled sample project (a scripted model, real tools), then show its record, surface and a replay',
    )
    .option('--model-latency <ms>', 'make the scripted model wait this long per call', (value) => integerArgument(value, 'milliseconds'), 0)
    .option('--session <id>', 'the new session id (default: demo-<time>)')
    .option(
      '--strategy <name>',
      'compact with summary, mask or recall, on a session whose last question needs a detail only an early, compacted read holds; prints what the strategy left on the surface',
    )
    .action((options: { modelLatency: number; session?: string; strategy?: string }) =>
      run('write', (context) =>
        demoCommand(context, {
          modelLatencyMs: options.modelLatency,
          ...(options.session === undefined ? {} : { sessionId: options.session }),
          ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
        }),
      )(),
    );

  program
    .command('chat')
    .description('an interactive session with a real provider and read-only file tools over the working directory')
    .requiredOption(
      '--provider <name>',
      'openai (chat completions; also any OpenAI-compatible server via --base-url), openai-responses or anthropic',
    )
    .requiredOption('--model <name>', 'the model id, e.g. gpt-4.1 or claude-sonnet-4-5')
    .option('--base-url <url>', 'the API base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the official one)')
    .option('--session <id>', 'continue this session, or start it under this id')
    .option('--system <text>', 'the system prompt of a new session')
    .option('--context-window <tokens>', "the model's context window, for models shadowlog does not know", (value) =>
      integerArgument(value, 'tokens', 1),
    )
    .option('--max-output-tokens <tokens>', "the model's output budget: completion tokens reserved per request", (value) =>
      integerArgument(value, 'tokens', 1),
    )
    .option(
      '--model-limits <file>',
      'a JSON file of model limits by model id or family prefix, extending the built-in table (default: $SHADOWLOG_MODEL_LIMITS)',
    )
    .option('--no-compaction', 'do not mount compaction and the tool-result pruner')
    .option(
      '--compaction-config <file>',
      'a JSON file with the compaction policy (thresholdRatio, headroomTokens, retainRatio, modelPolicies, …)',
    )
    .action(
      (options: {
        provider: string;
        model: string;
        baseUrl?: string;
        session?: string;
        system?: string;
        contextWindow?: number;
        maxOutputTokens?: number;
        modelLimits?: string;
        compaction: boolean;
        compactionConfig?: string;
      }) =>
        run('write', (context) =>
          chatCommand(context, {
            ...withModelLimits(readChatModelLimits(options.modelLimits, context.io.cwd)),
            compaction: options.compaction,
            ...(options.compactionConfig === undefined ? {} : { compactionConfig: readJsonFile(options.compactionConfig, context.io.cwd) }),
            provider: options.provider,
            model: options.model,
            ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
            ...(options.session === undefined ? {} : { sessionId: options.session }),
            ...(options.system === undefined ? {} : { system: options.system }),
            ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
            ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
          }),
        )(),
    );

  program
    .command('replay <id>')
    .description('exactly what the model received on one call, rebuilt from the log and checked against its recorded digest')
    .option('--turn <n>', 'the turn (from 1)', (value) => integerArgument(value, 'a turn number', 1))
    .option('--step <k>', 'the step within the turn (default 1)', (value) => integerArgument(value, 'a step number', 1))
    .option('--compaction <id>', "a compaction's summarizer call instead (the id, or its first characters)")
    .option('--wire', 'print the exact request body that was sent')
    .option('--full', 'do not shorten long messages')
    .action((id: string, options: { turn?: number; step?: number; compaction?: string; wire?: boolean; full?: boolean }) =>
      run('read', (context) => {
        if ((options.turn === undefined) === (options.compaction === undefined))
          throw new UsageError('replay takes --turn N [--step K], or --compaction ID');
        return replayCommand(context, id, {
          ...(options.turn === undefined ? {} : { turn: options.turn }),
          ...(options.step === undefined ? {} : { step: options.step }),
          ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
          wire: options.wire === true,
          full: options.full === true,
        });
      })(),
    );

  program
    .command('compact <id>')
    .description('compact a session now (extractive summarizer by default, offline), even below the threshold')
    .option('--window <tokens>', "the session model's context window, when the log does not record it", (value) =>
      integerArgument(value, 'tokens', 1),
    )
    .option('--prune', 'prune long tool results too')
    .option(
      '--strategy <name>',
      'what replaces the range: summary, mask, recall, native or auto (default: the recorded policy, else summary)',
    )
    .option(
      '--keep-results <count>',
      'with --strategy mask: the newest tool results kept whole (default: those in the retained tail)',
      (value) => integerArgument(value, 'count', 0),
    )
    .option(
      '--keep-tokens <tokens>',
      'with --strategy mask: tokens of the newest tool results kept whole, instead of --keep-results',
      (value) => integerArgument(value, 'tokens', 0),
    )
    .option('--provider <name>', 'summarize with a model of this provider (openai or anthropic) instead')
    .option('--model <name>', 'the summarizer model, with --provider')
    .option('--base-url <url>', 'the summarizer API base URL')
    .option('--threshold-ratio <ratio>', 'the policy, as for `shadowlog policy` (the retained tail is what matters here)')
    .option('--headroom-tokens <tokens>', 'tokens kept free below the message budget (default 65536; small windows need less)')
    .option('--retain-ratio <ratio>', 'share of the message budget kept verbatim (default 0.16)')
    .option('--retain-tokens <tokens>', 'tokens kept verbatim, instead of --retain-ratio')
    .option('--compaction-config <file>', 'a JSON policy file (as chat takes, or as `tune` writes); the flags above override it')
    .action(
      (
        id: string,
        options: PolicyFlags & {
          window?: number;
          prune?: boolean;
          strategy?: string;
          keepResults?: number;
          keepTokens?: number;
          provider?: string;
          model?: string;
          baseUrl?: string;
          compactionConfig?: string;
        },
      ) =>
        run('write', (context) => {
          if ((options.provider === undefined) !== (options.model === undefined))
            throw new UsageError('--provider and --model go together');
          const summarizer =
            options.provider === undefined || options.model === undefined
              ? undefined
              : {
                  provider: options.provider,
                  model: options.model,
                  ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
                };
          return compactCommand(context, id, {
            ...pickPolicyFlags(options),
            ...(options.compactionConfig === undefined ? {} : { compactionConfig: readJsonFile(options.compactionConfig, context.io.cwd) }),
            prune: options.prune === true,
            ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
            ...(options.keepResults === undefined ? {} : { keepResults: options.keepResults }),
            ...(options.keepTokens === undefined ? {} : { keepTokens: options.keepTokens }),
            ...(options.window === undefined ? {} : { window: options.window }),
            ...(summarizer === undefined ? {} : { summarizer }),
          });
        })(),
    );

  program
    .command('tune [inputs...]')
    .description(
      'replay recorded sessions (ids, or files and directories of any importable format) under compaction policies and baselines: tokens, cost, retention, and a recommended policy file',
    )
    .option('--all', 'every session in the store')
    .option('--window <tokens>', "every call's context window, instead of the recorded one", (value) => integerArgument(value, 'tokens', 1))
    .option('--reserve <tokens>', 'completion tokens reserved per call, instead of the recorded max output (else 0)', (value) =>
      integerArgument(value, 'tokens'),
    )
    .option(
      '--grid <key=v1,v2...>',
      'policy values to replay, e.g. thresholdRatio=0.6,0.8 retainRatio=0.05,0.16 pruner=on,off',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--strategies <list>', 'the strategies each grid point runs with (default summary)')
    .option('--baselines <list>', 'the baselines to compare, by name: pi, claude-code, codex, opencode, drop-oldest, none (default all)')
    .option('--prices <file>', 'a JSON price table laid over the built-in one')
    .option('--margin <share>', 'how far below the best retention the recommendation may be (default 0.02)')
    .option('--estimator <name>', 'how tokens are counted (default script-aware)')
    .option('--out <dir>', 'write report.md, report.json, policy.json and SVG plots there')
    .option('--policy-file <file>', 'write the recommended policy there')
    .action(
      (
        inputs: string[],
        options: {
          all?: boolean;
          window?: number;
          reserve?: number;
          grid: string[];
          strategies?: string;
          baselines?: string;
          prices?: string;
          margin?: string;
          estimator?: string;
          out?: string;
          policyFile?: string;
        },
      ) => run('read', (context) => tuneCommand(context, inputs, { ...options, all: options.all === true }))(),
    );

  program
    .command('unlock <id>')
    .description('declare an earlier lifecycle over (session/end-seed), making a compaction lock left by a dead process stale')
    .requiredOption('--reason <text>', 'why the lock is stale; recorded in the log with who unlocked it')
    .action((id: string, options: { reason: string }) => run('write', (context) => unlockCommand(context, id, options.reason))());

  program
    .command('stats <id>')
    .description('events, turns, model calls, compactions and prunes, tokens shadowed and replaced, and the cost of summarizing')
    .option('--calls', "each model call: the meter's estimate at the time, the provider's reported input, and the error")
    .action((id: string, options: { calls?: boolean }) =>
      run('read', (context) => (options.calls === true ? statsCallsCommand(context, id) : statsCommand(context, id)))(),
    );

  program
    .command('sessions')
    .description('list the sessions in the store')
    .action(run('read', (context) => sessionsCommand(context)));

  program
    .command('show <id>')
    .description('show what the model is shown (--surface, the default) or everything that happened (--record)')
    .addOption(new Option('--surface', 'the surface: the messages the model is sent').conflicts('record'))
    .addOption(new Option('--record', 'the record: every event, originals included, with replacements marked'))
    .option('--at <seq>', 'as of the position after event SEQ', seqArgument)
    .option('--full', 'do not shorten long messages')
    .addOption(
      new Option(
        '--follow',
        'print the record, then each new event as it lands, until Ctrl-C; with --json, one JSON event per line (JSONL), not one document',
      ).conflicts(['surface', 'at']),
    )
    .option('--from <seq>', 'with --follow: the first event to print (default 0)', seqArgument)
    .option('--max-events <n>', 'with --follow: stop after printing N events', (value) => integerArgument(value, 'a number of events', 1))
    .option('--until-seq <seq>', 'with --follow: stop once event SEQ is printed', seqArgument)
    .option('--poll-ms <ms>', 'with --follow on SQLite: how often to look for new events (default 200)', (value) =>
      integerArgument(value, 'milliseconds', 1),
    )
    .action((id: string, flags: ShowFlags) => run('read', (context) => showCommand(context, id, showOptionsOf(flags)))());

  program
    .command('origins <id> <seq>')
    .description('the original events that a summary or pruned node stands for')
    .option('--full', 'do not shorten long messages')
    .action((id: string, seq: string, options: { full?: boolean }) =>
      run('read', (context) => originsCommand(context, id, seqArgument(seq), options.full === true))(),
    );

  program
    .command('view <id>')
    .description(
      'the audit page: each call with the surface it was sent, digest-checked, compactions expandable to their originals, the token-pressure chart; served on 127.0.0.1 and following the session, or --out FILE',
    )
    .option('--out <file>', 'write one self-contained HTML file instead of serving it')
    .option('--port <port>', 'serve on this port (default: any free one)', (value) => integerArgument(value, 'a port', 0))
    .option('--host <address>', 'serve on this address (default 127.0.0.1; anything else needs --allow-remote)')
    .option('--allow-remote', 'allow a --host that is not loopback: anyone who can reach it can read the session')
    .option('--tune <report>', 'show a tune report (the JSON of `shadowlog tune --json`) on the page too')
    .option('--poll-ms <ms>', 'on SQLite: how often to look for new events (default 200)', (value) =>
      integerArgument(value, 'milliseconds', 1),
    )
    .action((id: string, options: ViewCommandOptions) => run('read', (ctx) => viewCommand(ctx, id, options))());

  program
    .command('verify [id]')
    .description('check the hash chain, seq density and every replacement (exit 1 on a problem)')
    .option('--all', 'verify every session in the store')
    .option('--file <export>', 'verify a JSONL export without importing it')
    .action((id: string | undefined, options: { all?: boolean; file?: string }) =>
      run('read', (context) =>
        verifyCommand(context, id, { all: options.all === true, ...(options.file === undefined ? {} : { file: options.file }) }),
      )(),
    );

  program
    .command('export <id>')
    .description('write a session as JSONL (to stdout, or --output FILE)')
    .option('-o, --output <file>', 'the file to write (it must not exist yet)')
    .action((id: string, options: { output?: string }) => run('read', (context) => exportCommand(context, id, options.output))());

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

  program
    .command('meter <file>')
    .description(
      "a text file's tokens under each estimator and each offline tokenizer, with their ratios to o200k_base (- reads standard input)",
    )
    .action((file: string) => run('read', (context) => meterCommand(context, file))());

  program
    .command('proxy')
    .description(
      "a recording proxy for OpenAI- and Anthropic-style clients: forwards each call unchanged and records it, and every rewrite of the client's history, in a session",
    )
    .option('--port <port>', 'the port to listen on (0: any free one)', (value) => integerArgument(value, 'a port'), 8787)
    .option('--host <host>', 'the address to listen on; anything but loopback is announced loudly', '127.0.0.1')
    .option('--upstream-openai <url>', 'where OpenAI chat completions and Responses calls go, e.g. https://api.openai.com')
    .option('--upstream-anthropic <url>', 'where Anthropic Messages calls go, e.g. https://api.anthropic.com')
    .option(
      '--redact-header <name>',
      'a further request header to keep out of the log (repeatable; authorization, x-api-key, api-key and cookie always are)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--upstream-timeout <ms>',
      'how long the upstream may stay silent',
      (value) => integerArgument(value, 'milliseconds', 1),
      600_000,
    )
    .option(
      '--queue <calls>',
      'calls forwarded and not yet written before new ones wait',
      (value) => integerArgument(value, 'a count', 1),
      256,
    )
    .action((options: ProxyCommandOptions) => run('write', (ctx) => proxyCommand(ctx, options))());

  program
    .command('policy')
    .description('the compaction threshold and retained tail for a context window, which term decides, and the crossover window')
    .option('--window <tokens>', "the model's context window W")
    .option('--models', 'a table for every model shadowlog knows, each with its own window and the reserve a harness uses')
    .option('--reserve <tokens>', 'completion tokens reserved for the answer (default 0)')
    .option('--threshold-ratio <ratio>', 'compact at this share of the window, in (0, 1] (default 0.8)')
    .option('--headroom-tokens <tokens>', 'tokens kept free below the message budget (default 65536)')
    .option('--retain-ratio <ratio>', 'share of the message budget kept verbatim, in (0, 1) (default 0.16)')
    .option('--retain-tokens <tokens>', 'tokens kept verbatim, instead of --retain-ratio')
    .action((options: PolicyCommandOptions) => run('read', (context) => policyCommand(context, options))());

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
