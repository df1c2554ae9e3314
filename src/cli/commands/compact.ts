// `shadowlog compact <id>`: a manual compaction from the command line. It takes the session
// over as a new lifecycle, summarizes with the extractive summarizer (offline, the default)
// or a named model, or (strategy native) has a provider compact, and prints the outcome.

import type { Command } from 'commander';
import {
  COMPACTION_DEFAULTS,
  COMPACTION_POLICY,
  type CompactionCapability,
  type CompactionPolicyData,
  compactionPreset,
  createCompaction,
  createNativeStrategy,
  createToolResultPruner,
  type ManualOutcome,
  type NativeCompaction,
  NativeCompactionUnavailableError,
  type NothingToCompact,
  readCompactionConfig,
} from '../../compaction/index.js';
import { assertSessionId, dataOf, type EventTypeRegistry, type JsonObject, type ModelRequestData, withCleanup } from '../../log/index.js';
import { knownModelLimits, type LanguageModel, type ToolDefinition } from '../../providers/index.js';
import { createHarness, DEFAULT_MAX_OUTPUT_TOKENS, type Tool } from '../../spine/index.js';
import { type LogStore, resolveSessionId, SessionLog } from '../../store/index.js';
import { integerArgument, type RunCommand, readJsonFile } from '../command-kit.js';
import { layeredPolicy, maskConfig, policyFileConfig } from '../compact-policy-layers.js';
import type { CommandContext } from '../context.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';
import { type ChatOptions, createChatModel } from './chat.js';
import { defaultRetainText, type PolicyFlags, policyFlagsConfig } from './policy.js';

export interface CompactOptions extends PolicyFlags {
  /** The session model's context window, when the log does not record it. */
  readonly window?: number;
  /**
   * Summarize with this model instead of the extractive summarizer; with strategy native (and
   * auto, where it has one), its provider's own compaction compacts instead of the session's.
   */
  readonly summarizer?: Pick<ChatOptions, 'provider' | 'model' | 'baseUrl'>;
  readonly prune: boolean;
  /** A named preset (`dsh`): its policy over the recorded one and under the file and flags; with --prune, its pruner. */
  readonly preset?: string;
  /** A policy file's configuration (as chat's --compaction-config reads it): over the recorded policy, under the flags. */
  readonly compactionConfig?: unknown;
  /** With strategy native or auto: the base URL of the session's provider (else its environment variables'). */
  readonly sessionBaseUrl?: string;
  /** The strategy, by name (the library checks it); else the recorded policy's, else summary. */
  readonly strategy?: string;
  /** The mask strategy's kept tail: recent tool results, or their tokens (exclusive; the library checks). */
  readonly keepResults?: number;
  readonly keepTokens?: number;
}

export async function compactCommand(context: CommandContext, given: string, options: CompactOptions): Promise<number> {
  // A name that cannot be an id is bad usage, refused before any store is opened.
  assertSessionId(given);
  // An unknown preset is refused before any store is opened.
  const preset = options.preset === undefined ? undefined : compactionPreset(options.preset);
  const store = await context.store();
  const sessionId = await resolveSessionId(store, given);
  const recorded = await readRecorded(store, sessionId);
  const strategy = options.strategy ?? (recorded.policy?.config as { strategy?: unknown } | undefined)?.strategy;
  const native = strategy === 'native' || strategy === 'auto';
  const summarizerModel = options.summarizer === undefined ? undefined : createChatModel(options.summarizer);
  // The provider's own compaction is a call to the session's provider, unless --provider names
  // another: the model that makes the call must reach it.
  const sends = native && summarizerModel === undefined && NATIVE_PROVIDERS.includes(recorded.request.provider);
  const sessionModel = modelOf(recorded, options.window, sends ? { baseUrl: options.sessionBaseUrl } : undefined);
  const natives = native && summarizerModel !== undefined ? namedCompaction(summarizerModel, strategy) : undefined;
  // The session's own policy, as its log recorded it (flags override it); the defaults only
  // for a session that never recorded one.
  // The flags are checked as JSON would be: a strategy name the library does not know is refused there.
  const compaction = createCompaction({
    config: readCompactionConfig(
      layeredPolicy([
        { ...(recorded.policy?.config ?? {}) },
        { ...(preset?.config ?? {}) },
        policyFileConfig(options.compactionConfig),
        {
          ...policyFlagsConfig(options),
          ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
          ...maskConfig(options),
          summarizer:
            summarizerModel === undefined ? { kind: 'extractive' } : { provider: summarizerModel.provider, model: summarizerModel.modelId },
        },
      ]),
    ),
    ...(summarizerModel === undefined ? {} : { summarizerModel }),
    ...(natives === undefined ? {} : { natives }),
    ...(options.prune ? { pruner: createToolResultPruner(preset?.pruner) } : {}),
  });
  const harness = createHarness({
    store,
    model: sessionModel,
    // The session's tool definitions, so that the request is measured as the session sends it.
    tools: recordedTools(recorded.request.params ?? {}),
    capabilities: [compaction],
    maxOutputTokens: sessionModel.limits.defaultMaxOutputTokens,
  });
  // Nothing to do writes nothing: checked on a read of the log before the session is taken over
  // (which appends session/end-seed) and the policy recorded.
  const nothing = await nothingToCompact(store, sessionId, harness.registry, compaction);
  if (nothing !== undefined) {
    if (context.json) context.printJson(nothing);
    else context.print(describeOutcome(sessionId, nothing));
    return 0;
  }
  const session = await harness.openSession(sessionId, 'manual compaction by shadowlog compact');
  // Ctrl-C (or SIGTERM) cancels the compaction, which then ends as `cancelled` and releases its
  // lock, instead of killing the process with the lock open.
  const cancel = cancelOnInterrupt(context.io.signal);
  // The outcome is printed before the session is released: if releasing fails too (a full disk
  // fails both), the user still learns what the compaction did.
  const outcome: ManualOutcome = await withCleanup(
    async () => {
      const result = await compaction.compactNow(session, cancel.signal);
      if (context.json) context.printJson(result);
      else context.print(describeOutcome(sessionId, result));
      return result;
    },
    async () => {
      cancel.dispose();
      await session.close();
    },
  );
  return exitCodeOf(outcome);
}

/**
 * The exit code of an outcome (docs/cli.md): 0 when the surface was compacted or there was
 * nothing to compact (status `nothing`); 1 when the compaction failed, whatever the reason
 * (busy, changed, cancelled, summary, commit, persistence): the surface is then as it was, or,
 * for an orphaned lock, the log needs `shadowlog unlock`.
 */
function exitCodeOf(outcome: ManualOutcome): number {
  switch (outcome.status) {
    case 'compacted':
    case 'nothing':
      return 0;
    case 'failed':
      return 1;
  }
}

/** An abort signal that SIGINT, SIGTERM or `stopped` (a test's Ctrl-C) fires, until disposed. */
function cancelOnInterrupt(stopped: AbortSignal | undefined): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  stopped?.addEventListener('abort', stop);
  if (stopped?.aborted === true) stop();
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stopped?.removeEventListener('abort', stop);
    },
  };
}

/**
 * The outcome when a manual compaction would find nothing to shadow, read without writing (the
 * capability observes the whole log, then forgets it); undefined when there is something, or
 * when the last lifecycle left a turn open: taking the session over closes that turn, which
 * changes the surface, so the compaction then decides on the surface it leaves.
 */
async function nothingToCompact(
  store: LogStore,
  sessionId: string,
  registry: EventTypeRegistry,
  compaction: CompactionCapability,
): Promise<NothingToCompact | undefined> {
  let openTurn = false;
  try {
    const log = await SessionLog.open(store, sessionId, {
      registry,
      observe: (event) => {
        compaction.observe(sessionId, event);
        if (event.type === 'turn/start') openTurn = true;
        else if (event.type === 'turn/end') openTurn = false;
      },
    });
    const preview = await compaction.previewNow(log);
    return preview.status === 'nothing' && !openTurn ? preview : undefined;
  } finally {
    compaction.release(sessionId);
  }
}

/**
 * The compaction of the provider --provider names, for whatever provider recorded the session
 * (the scripted demo's has none): native refuses a provider without one, auto summarizes with it.
 */
function namedCompaction(model: LanguageModel, strategy: unknown): NativeCompaction[] {
  if (model.nativeCompaction === undefined) {
    if (strategy === 'native') throw new NativeCompactionUnavailableError(model.provider, model.modelId);
    return [];
  }
  return [{ provider: model.provider, offers: () => true, create: (_, strategyOptions) => createNativeStrategy(model, strategyOptions) }];
}

const REPLACEMENT_NAMES = {
  summary: 'summary',
  recall: 'recall handle',
  native: "the provider's compaction",
  mask: 'placeholders',
} as const;

function describeOutcome(sessionId: string, outcome: ManualOutcome): string {
  switch (outcome.status) {
    case 'nothing':
      return `${sessionId}: ${outcome.message}`;
    case 'compacted':
      if (outcome.strategy === 'mask')
        return `${sessionId}: masked ${outcome.replacementSeqs.length} tool results (#${outcome.shadowedSeqs.join(', #')}); surface ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens (see \`shadowlog origins ${sessionId} ${outcome.summarySeq}\`)`;
      return `${sessionId}: compacted ${outcome.shadowedSeqs.length} nodes into ${REPLACEMENT_NAMES[outcome.strategy]} #${outcome.summarySeq}; surface ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens (see \`shadowlog origins ${sessionId} ${outcome.summarySeq}\`)`;
    case 'failed':
      return `${sessionId}: compaction failed (${outcome.reason}): ${outcome.message}${outcome.orphaned ? '; the lock stays open until `shadowlog unlock`' : ''}`;
  }
}

interface Recorded {
  /** The session's latest model call. */
  readonly request: ModelRequestData & { readonly contextWindow?: number };
  /** The latest compaction/policy, if compaction recorded one. */
  readonly policy: CompactionPolicyData | undefined;
}

async function readRecorded(store: LogStore, sessionId: string): Promise<Recorded> {
  let request: Recorded['request'] | undefined;
  let policy: CompactionPolicyData | undefined;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      if (event.type === 'model/request') request = dataOf(event, 'model/request');
      else if (event.type === COMPACTION_POLICY) policy = event.data as unknown as CompactionPolicyData;
    }
  }
  if (request === undefined)
    throw new UsageError(
      `session ${sessionId} has no model calls, so its model and window are unknown; there is nothing a compaction could save yet`,
    );
  return { request, policy };
}

/** The providers whose adapters have a compaction of their own (strategy native). */
const NATIVE_PROVIDERS = ['anthropic', 'openai-responses'];

/**
 * The session's model as its log records it: the window and reserve of its policy or latest call
 * (or --window). A renderer that sends nothing, unless `sending` asks for a model that reaches the
 * provider (its base URL, else the provider's environment variables and official host).
 */
function modelOf(
  { request, policy }: Recorded,
  window: number | undefined,
  sending?: { readonly baseUrl: string | undefined },
): LanguageModel {
  const contextWindow = window ?? policy?.contextWindow ?? request.contextWindow;
  if (contextWindow === undefined)
    throw new UsageError(`the log does not record the context window of ${request.provider}/${request.model}; pass --window TOKENS`);
  const reserve = Math.max(1, Math.min(recordedReserve(policy, request), contextWindow - 1));
  if (sending !== undefined) {
    return createChatModel({
      provider: request.provider,
      model: request.model,
      ...(sending.baseUrl === undefined ? {} : { baseUrl: sending.baseUrl }),
      contextWindow,
      maxOutputTokens: reserve,
    });
  }
  const renderer = rendererFor(request.provider, request.model);
  return Object.assign(Object.create(renderer) as LanguageModel, { limits: { contextWindow, defaultMaxOutputTokens: reserve } });
}

/**
 * The completion tokens the session's requests reserve: its policy's, else its latest call's
 * max output. An imported call may record none; it is then what shadowlog's harness reserves for
 * the model (DEFAULT_MAX_OUTPUT_TOKENS, or the model's maximum when smaller), as `tune` assumes
 * for the same call, and for a model shadowlog does not know, 1, the least a harness takes.
 */
function recordedReserve(policy: CompactionPolicyData | undefined, request: Recorded['request']): number {
  if (policy !== undefined) return policy.reserve;
  const recorded = (request.params as { maxOutputTokens?: unknown } | undefined)?.maxOutputTokens;
  if (typeof recorded === 'number' && Number.isSafeInteger(recorded) && recorded >= 1) return recorded;
  const limits = knownModelLimits(request.model);
  return limits === undefined ? 1 : Math.min(DEFAULT_MAX_OUTPUT_TOKENS, limits.defaultMaxOutputTokens);
}

/**
 * The tools of the session's requests, by their recorded definitions. A manual compaction runs
 * between turns and calls no tool; should one be called, it answers with an error saying so.
 */
function recordedTools(params: JsonObject): Tool[] {
  const definitions = Array.isArray(params.tools) ? (params.tools as unknown as ToolDefinition[]) : [];
  return definitions.map((definition) => ({
    definition,
    parse: (args: unknown) => ({ ok: true as const, value: args }),
    execute: async () => {
      throw new UsageError(`${definition.name} is not available to shadowlog compact, which runs no turn`);
    },
  }));
}

/** Registers `shadowlog compact` on the program. */
export function registerCompactCommand(program: Command, run: RunCommand): void {
  program
    .command('compact <id>')
    .description('compact a session now (extractive summarizer by default, offline), even below the threshold')
    .option('--window <tokens>', "the session model's context window, when the log does not record it", (value) =>
      integerArgument(value, 'tokens', 1),
    )
    .option('--prune', 'prune long tool results too')
    .option(
      '--preset <name>',
      "a named policy over the recorded one, under --compaction-config and the flags: dsh (DSH's numbers; with --prune, its pruner)",
    )
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
    .option(
      '--provider <name>',
      "summarize with a model of this provider (openai, openai-responses or anthropic) instead; with --strategy native (or auto), that provider's own compaction compacts, whoever recorded the session",
    )
    .option('--model <name>', 'the summarizer (or compacting) model, with --provider')
    .option(
      '--base-url <url>',
      "the API base URL of --provider; without --provider, with --strategy native or auto: the session provider's",
    )
    .option('--threshold-ratio <ratio>', 'the policy, as for `shadowlog policy` (the retained tail is what matters here)')
    .option('--headroom-tokens <tokens>', `tokens kept free below the message budget (default ${COMPACTION_DEFAULTS.headroomTokens})`)
    .option('--retain-ratio <ratio>', `share of the message budget kept verbatim (default ${defaultRetainText()})`)
    .option('--retain-tokens <tokens>', 'tokens kept verbatim, instead of --retain-ratio')
    .option('--compaction-config <file>', 'a JSON policy file (as chat takes, or as `tune` writes); the flags above override it')
    .action(
      (
        id: string,
        options: PolicyFlags & {
          window?: number;
          prune?: boolean;
          preset?: string;
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
            ...(options.preset === undefined ? {} : { preset: options.preset }),
            ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
            ...(summarizer === undefined && options.baseUrl !== undefined ? { sessionBaseUrl: options.baseUrl } : {}),
            ...(options.keepResults === undefined ? {} : { keepResults: options.keepResults }),
            ...(options.keepTokens === undefined ? {} : { keepTokens: options.keepTokens }),
            ...(options.window === undefined ? {} : { window: options.window }),
            ...(summarizer === undefined ? {} : { summarizer }),
          });
        })(),
    );
}

function pickPolicyFlags(options: PolicyFlags): PolicyFlags {
  const flags: { -readonly [K in keyof PolicyFlags]: PolicyFlags[K] } = {};
  for (const key of ['thresholdRatio', 'headroomTokens', 'retainRatio', 'retainTokens'] as const) {
    const value = options[key];
    if (value !== undefined) flags[key] = value;
  }
  return flags;
}
