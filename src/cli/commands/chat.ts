// `shadowlog chat`: an interactive session with a real provider and read-only file tools
// over the working directory. Lines starting with / are commands: /surface, /record,
// /replay TURN [STEP], /help, /quit.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { type CompactionCapability, compactionPreset, createCompaction, createToolResultPruner } from '../../compaction/index.js';
import { dataOf, type LogEvent, SessionNotFoundError, ShadowlogError, withCleanup } from '../../log/index.js';
import {
  createAnthropicMessagesModel,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
  describeModelLimits,
  type LanguageModel,
  type ModelLimitsOverride,
  parseModelLimits,
  type UserModelLimits,
} from '../../providers/index.js';
import { type AgentSession, createFileTools, createHarness } from '../../spine/index.js';
import { readInputFileSync, resolveSessionId } from '../../store/index.js';
import { chatCompactionConfig } from '../chat-compaction-config.js';
import { chatNoticeWriter } from '../chat-notices.js';
import { integerArgument, type RunCommand, readJsonFile } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { addLiveOtelOption, startLiveOtel } from '../live-otel.js';
import { escapeTerminalText } from '../terminal-text.js';
import { UsageError } from '../usage-error.js';
import { replayCommand } from './replay.js';
import { showCommand } from './show.js';

export interface ChatOptions {
  readonly provider: string;
  readonly model: string;
  readonly baseUrl?: string;
  readonly sessionId?: string;
  readonly system?: string;
  /** The model's context window, for a model the limits table does not know (or to override it). */
  readonly contextWindow?: number;
  /** The model's output budget: its default, and the completion tokens reserved per request. */
  readonly maxOutputTokens?: number;
  /** Entries that extend the model limits table (from --model-limits FILE or SHADOWLOG_MODEL_LIMITS). */
  readonly modelLimits?: UserModelLimits;
  /** Mount compaction and the tool-result pruner (default true). */
  readonly compaction?: boolean;
  /** The compaction policy (SPEC §6), e.g. read from a JSON file. */
  readonly compactionConfig?: unknown;
  /** Also send the session as OpenTelemetry spans as it is recorded (else OTEL_EXPORTER_OTLP_ENDPOINT, when set). */
  readonly otlpEndpoint?: string;
  /** A named preset (`dsh`): its policy under compactionConfig, and its pruner. */
  readonly preset?: string;
}

const DEFAULT_SYSTEM =
  'You are a helpful coding assistant. You can list, read and search the files of the working directory with your tools; look before you answer.';
const HELP =
  'commands: /surface (what the model is shown), /record (everything that happened), /replay TURN [STEP], /compact, /help, /quit';

export function createChatModel(options: ChatOptions): LanguageModel {
  const common = {
    model: options.model,
    ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
    ...chatModelLimits(options),
  };
  if (options.provider === 'openai') return createOpenAIChatModel(common);
  if (options.provider === 'openai-responses') return createOpenAIResponsesModel(common);
  if (options.provider === 'anthropic') return createAnthropicMessagesModel(common);
  throw new UsageError(
    `--provider must be openai (chat completions; also DeepSeek, vLLM, llama.cpp, Ollama via --base-url), openai-responses or anthropic, found ${JSON.stringify(options.provider)}`,
  );
}

/** The model's limits as the flags give them: --max-output-tokens is the model's output budget too. */
function chatModelLimits(options: ChatOptions): ModelLimitsOverride & { modelLimits?: UserModelLimits } {
  return {
    ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
    ...(options.maxOutputTokens === undefined ? {} : { defaultMaxOutputTokens: options.maxOutputTokens }),
    ...(options.modelLimits === undefined ? {} : { modelLimits: options.modelLimits }),
  };
}

/** The most a model limits file may hold: a table of a few models is kilobytes. */
const MODEL_LIMITS_MAX_BYTES = 16 * 1024 * 1024;

/** The limits file named by --model-limits, else by SHADOWLOG_MODEL_LIMITS; none when neither is set. */
export function readChatModelLimits(path: string | undefined, cwd: string): UserModelLimits | undefined {
  const named = path ?? nonEmpty(process.env.SHADOWLOG_MODEL_LIMITS);
  if (named === undefined) return undefined;
  const file = resolve(cwd, named);
  const shown = `${named}${path === undefined ? ' (SHADOWLOG_MODEL_LIMITS)' : ''}`;
  if (!existsSync(file)) throw new UsageError(`cannot read the model limits file ${shown}: there is no such file`);
  // A regular file of a JSON table: not a directory, /dev/zero or a FIFO, and not gigabytes.
  const bytes = readInputFileSync(file, { shown, expected: 'a model limits file (JSON)', maxBytes: MODEL_LIMITS_MAX_BYTES });
  return parseModelLimits(bytes.toString('utf8'), named);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

export async function chatCommand(context: CommandContext, options: ChatOptions): Promise<number> {
  // An unknown preset is refused before the model or the store.
  if (options.preset !== undefined && options.compaction === false)
    throw new UsageError('--preset chooses the compaction policy and --no-compaction mounts none; give one of them');
  const preset = options.preset === undefined ? undefined : compactionPreset(options.preset);
  const model = createChatModel(options);
  const live = startLiveOtel(context, await context.store(), options);
  const { store } = live;
  const out = context.io.stdout;
  const policy = options.compaction === false ? undefined : chatCompactionConfig(options.compactionConfig, preset);
  // Each prune and compaction is told in the conversation, as it happens (chat-notices.ts).
  const compaction =
    policy === undefined
      ? undefined
      : createCompaction({
          config: policy.config,
          pruner: createToolResultPruner(preset?.pruner),
          onNotice: chatNoticeWriter(context, store),
        });
  const harness = createHarness({
    store,
    model,
    tools: createFileTools(context.io.cwd),
    capabilities: compaction === undefined ? [] : [compaction],
    systemPrompt: options.system ?? DEFAULT_SYSTEM,
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    onTextDelta: (text) => out.write(escapeTerminalText(text)),
    onEvent: (event) => describeToolActivity(context, event),
  });
  const session = await openOrCreate(harness, store, options.sessionId, (notice) => context.print(notice));
  context.print(`chatting with ${model.provider}/${model.modelId} in session ${session.sessionId} (${store.location}); ${HELP}`);
  context.print(
    `model limits: context window ${model.limits.contextWindow}, output ${model.limits.defaultMaxOutputTokens} tokens, from ${describeModelLimits(options.model, chatModelLimits(options), options.modelLimits)}`,
  );

  const lines = createInterface({ input: context.io.stdin, terminal: false });
  let turn: AbortController | undefined;
  const interrupt = () => turn?.abort();
  process.on('SIGINT', interrupt);
  await withCleanup(
    async () => {
      out.write('you> ');
      for await (const raw of lines) {
        const line = raw.trim();
        if (line === '/quit' || line === '/exit') break;
        if (line !== '') await handleLine(context, session, compaction, line, (controller) => (turn = controller));
        out.write('you> ');
      }
      out.write('\n');
    },
    async () => {
      process.off('SIGINT', interrupt);
      lines.close();
      await withCleanup(
        () => session.close(),
        () => live.close(),
      );
    },
  );
  return 0;
}

async function openOrCreate(
  harness: ReturnType<typeof createHarness>,
  store: Awaited<ReturnType<CommandContext['store']>>,
  sessionId: string | undefined,
  onNew: (notice: string) => void,
): Promise<AgentSession> {
  if (sessionId === undefined) return harness.createSession();
  // An existing session is named as any command names one (a prefix, a source's id); a new id starts a session.
  const existing = await resolveSessionId(store, sessionId).catch((error: unknown) => {
    if (error instanceof SessionNotFoundError) return undefined;
    throw error;
  });
  if (existing !== undefined) {
    const link = await store.readForkLink?.(existing);
    if (link !== undefined)
      onNew(`${existing} is a branch of ${link.parentSessionId} after its event #${link.forkSeq}: continuing it from its own last event`);
    return harness.openSession(existing, 'continued by shadowlog chat');
  }
  onNew(`no session ${sessionId} in ${store.location}: starting a new session under that id`);
  return harness.createSession(sessionId);
}

async function handleLine(
  context: CommandContext,
  session: AgentSession,
  compaction: CompactionCapability | undefined,
  line: string,
  setTurn: (controller: AbortController) => void,
): Promise<void> {
  try {
    if (line.startsWith('/')) {
      await runSlashCommand(context, session, compaction, line);
      return;
    }
    const controller = new AbortController();
    setTurn(controller);
    context.io.stdout.write('assistant> ');
    const result = await session.send(line, { signal: controller.signal });
    context.io.stdout.write('\n');
    if (result.reason !== 'completed')
      context.print(`(turn ${result.turn} ended: ${result.reason}${result.error === undefined ? '' : ` — ${result.error.message}`})`);
  } catch (error) {
    // A bad command or a failed turn is reported, and the chat goes on.
    if (!ShadowlogError.isInstance(error)) throw error;
    context.print(`shadowlog: ${error.code}: ${error.message}`);
  }
}

async function runSlashCommand(
  context: CommandContext,
  session: AgentSession,
  compaction: CompactionCapability | undefined,
  line: string,
): Promise<void> {
  const [command, ...args] = line.split(/\s+/);
  switch (command) {
    case '/surface':
      await showCommand(context, session.sessionId, { view: 'surface' });
      return;
    case '/record':
      await showCommand(context, session.sessionId, { view: 'record' });
      return;
    case '/replay': {
      const [turn, step] = args.map(Number);
      if (
        turn === undefined ||
        !Number.isSafeInteger(turn) ||
        turn < 1 ||
        (step !== undefined && (!Number.isSafeInteger(step) || step < 1))
      ) {
        throw new UsageError('usage: /replay TURN [STEP], with whole numbers from 1');
      }
      await replayCommand(context, session.sessionId, { turn, ...(step === undefined ? {} : { step }) });
      return;
    }
    case '/compact': {
      if (compaction === undefined) throw new UsageError('compaction is not mounted in this chat (--no-compaction)');
      // A compaction that ran (or failed) is told by its notice, as an automatic one is.
      const outcome = await compaction.compactNow(session);
      if (outcome.status === 'nothing') context.print(outcome.message);
      return;
    }
    case '/help':
      context.print(HELP);
      return;
    default:
      throw new UsageError(`unknown command ${command}; ${HELP}`);
  }
}

function describeToolActivity(context: CommandContext, event: LogEvent): void {
  if (event.type === 'assistant/message') {
    for (const call of dataOf(event, 'assistant/message').toolCalls) {
      context.io.stdout.write(escapeTerminalText(`\n  [${call.name} ${JSON.stringify(call.arguments)}]\n`));
    }
  } else if (event.type === 'tool/result') {
    const { error } = dataOf(event, 'tool/result');
    if (error !== undefined) context.io.stdout.write(escapeTerminalText(error === true ? '  [error]\n' : `  [error: ${error.message}]\n`));
  }
}

/** Registers `shadowlog chat` on the program. */
export function registerChatCommand(program: Command, run: RunCommand): void {
  const command = program
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
      '--preset <name>',
      "a named compaction policy and pruner, under --compaction-config: dsh (DSH's numbers: 0.8, 65536, 0.16, pruner 8192/4096/1024)",
    )
    .option(
      '--compaction-config <file>',
      'a JSON file with the compaction policy (thresholdRatio, headroomTokens, retainRatio, modelPolicies, …)',
    );
  addLiveOtelOption(command).action(
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
      preset?: string;
      otlpEndpoint?: string;
    }) =>
      run('write', (context) =>
        chatCommand(context, {
          ...withModelLimits(readChatModelLimits(options.modelLimits, context.io.cwd)),
          compaction: options.compaction,
          ...(options.preset === undefined ? {} : { preset: options.preset }),
          ...(options.compactionConfig === undefined ? {} : { compactionConfig: readJsonFile(options.compactionConfig, context.io.cwd) }),
          provider: options.provider,
          model: options.model,
          ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
          ...(options.session === undefined ? {} : { sessionId: options.session }),
          ...(options.system === undefined ? {} : { system: options.system }),
          ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
          ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
          ...(options.otlpEndpoint === undefined ? {} : { otlpEndpoint: options.otlpEndpoint }),
        }),
      )(),
  );
}

function withModelLimits(modelLimits: UserModelLimits | undefined): { modelLimits?: UserModelLimits } {
  return modelLimits === undefined ? {} : { modelLimits };
}
