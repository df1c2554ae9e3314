// `shadowlog demo`: an offline agent session on the bundled sample project. The model is a
// deterministic script (no language model is involved); the tools, the log, the store and
// replay are the real ones.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { createCompaction, createRecallTool, createToolResultPruner } from '../../compaction/index.js';
import { type ContentBlock, dataOf, type EventTypeRegistry, type LogEvent, requestSurfaceLength, withCleanup } from '../../log/index.js';
import { ScriptedModel } from '../../providers/index.js';
import { createFileTools, createHarness, newSessionId, type ReplayResult, replay, type TurnResult } from '../../spine/index.js';
import type { LogStore } from '../../store/index.js';
import { integerArgument, type RunCommand } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { DEMO_LIMITS, DEMO_MODEL_ID, DEMO_STRATEGY_TASKS, DEMO_TASKS, demoAgentReply } from '../demo/demo-agent.js';
import { reportStrategy } from '../demo/strategy-report.js';
import { rendererFor } from '../renderers.js';
import { UsageError } from '../usage-error.js';
import { describeReplay } from './replay.js';
import { showCommand } from './show.js';

export const SAMPLE_PROJECT = fileURLToPath(new URL('../../../examples/sample-project/', import.meta.url));
const SYSTEM_PROMPT = 'You are a coding agent. Use the file tools to look at the project in the working directory before you answer.';

export interface DemoOptions {
  readonly modelLatencyMs: number;
  readonly sessionId?: string;
  /** Run the strategy demo with this strategy (summary, mask or recall). */
  readonly strategy?: string;
}

const DEMO_STRATEGIES = ['summary', 'mask', 'recall'] as const;
type DemoStrategy = (typeof DEMO_STRATEGIES)[number];

function demoStrategyOf(name: string | undefined): DemoStrategy | undefined {
  if (name === undefined) return undefined;
  if (!(DEMO_STRATEGIES as readonly string[]).includes(name))
    throw new UsageError(`demo --strategy takes ${DEMO_STRATEGIES.join(', ')}, found ${JSON.stringify(name)}`);
  return name as DemoStrategy;
}

export async function demoCommand(context: CommandContext, options: DemoOptions): Promise<number> {
  if (!existsSync(SAMPLE_PROJECT))
    throw new UsageError(`the bundled sample project is missing from ${SAMPLE_PROJECT}; reinstall shadowlog`);
  const strategy = demoStrategyOf(options.strategy);
  const store = await context.store();
  // A small window, so that a short session prunes and compacts. The policy is stated whole, so
  // that the walk-through (and its golden file) stays what docs/ show whatever the defaults are:
  // compaction at 0.8 of the window with no headroom (SPEC §6), a retained tail that holds the
  // current step, and a pruner that cuts to a size that fits.
  const model = new ScriptedModel({
    modelId: DEMO_MODEL_ID,
    replies: demoAgentReply,
    latencyMs: options.modelLatencyMs,
    limits: DEMO_LIMITS,
  });
  const compaction = createCompaction({
    config: {
      thresholdRatio: 0.8,
      headroomTokens: 0,
      retainTokens: 1_200,
      summarizer: { kind: 'extractive' },
      ...(strategy === undefined ? {} : { strategy }),
    },
    pruner: createToolResultPruner({ thresholdChars: 4_096, headChars: 1_536, tailChars: 512 }),
  });
  const toolNames = new Map<string, string>();
  const harness = createHarness({
    store,
    model,
    tools: [...createFileTools(SAMPLE_PROJECT), ...(strategy === 'recall' ? [createRecallTool({ store })] : [])],
    systemPrompt: SYSTEM_PROMPT,
    capabilities: [compaction],
    ...(context.json ? {} : { onEvent: (event: LogEvent) => printEvent(context, event, toolNames) }),
  });
  const sessionId = options.sessionId ?? newSessionId().replace(/^session-/, 'demo-');
  if (!context.json) {
    context.print(`shadowlog demo${strategy === undefined ? '' : ` --strategy ${strategy}`}: session ${sessionId} in ${store.location}`);
    context.print('The model here is a deterministic script, not a language model: it calls real file tools on the');
    context.print(`bundled sample project (${SAMPLE_PROJECT}) and computes its answers from their results.`);
  }
  const session = await harness.createSession(sessionId);
  const turns: TurnResult[] = [];
  await withCleanup(
    async () => {
      for (const task of strategy === undefined ? DEMO_TASKS : DEMO_STRATEGY_TASKS) turns.push(await session.send(task.prompt));
    },
    () => session.close(),
  );
  const replays = await replayAroundFirstCompaction(store, sessionId, harness.registry);
  const head = await store.head(sessionId);
  if (strategy !== undefined) return reportStrategy(context, { store, sessionId, strategy, turns, threshold: compaction.policy.threshold });
  if (context.json) {
    context.printJson({
      sessionId,
      events: head?.nextSeq,
      turns,
      threshold: compaction.policy.threshold,
      replays: replays.map((replayed) => ({
        turn: replayed.turn,
        step: replayed.step,
        requestDigest: replayed.requestDigest,
        verified: replayed.verified,
      })),
    });
    return 0;
  }
  context.print('\n════ The record: everything that happened, originals included ════');
  await showCommand(context, sessionId, { view: 'record' });
  context.print('\n════ The surface: what the model is shown now ════');
  await showCommand(context, sessionId, { view: 'surface' });
  for (const [index, replayed] of replays.entries()) {
    const when = index === 0 ? 'the last call before the first compaction' : 'the first call after it';
    context.print(`\n════ Replay of ${when}: turn ${replayed.turn}, step ${replayed.step} ════`);
    context.print(describeReplay(replayed, 160));
  }
  context.print(
    `\nThe window was ${DEMO_LIMITS.contextWindow.toLocaleString('en-US')} tokens, the threshold ${compaction.policy.threshold.toLocaleString('en-US')}. Try: shadowlog stats ${sessionId}   ·   shadowlog replay ${sessionId} --turn 4 --wire   ·   shadowlog verify ${sessionId}`,
  );
  return 0;
}

/** Replays the model call just before the session's first compaction and the one just after. */
async function replayAroundFirstCompaction(store: LogStore, sessionId: string, registry: EventTypeRegistry): Promise<ReplayResult[]> {
  const requests: Array<{ seq: number; turn: number; step: number }> = [];
  let firstCompaction: number | undefined;
  for await (const page of store.read(sessionId)) {
    for (const event of page) {
      if (event.type === 'model/request')
        requests.push({ seq: event.seq, turn: dataOf(event, 'model/request').turn, step: dataOf(event, 'model/request').step });
      if (event.type === 'compaction/summary' && firstCompaction === undefined) firstCompaction = event.seq;
    }
  }
  const before = requests.filter((request) => firstCompaction === undefined || request.seq < firstCompaction).at(-1);
  const after = firstCompaction === undefined ? undefined : requests.find((request) => request.seq > firstCompaction);
  const chosen = [before, after].filter((request) => request !== undefined);
  return Promise.all(chosen.map((request) => replay(store, sessionId, request, { resolveRenderer: rendererFor, registry })));
}

function printEvent(context: CommandContext, event: LogEvent, toolNames: Map<string, string>): void {
  const data = event.data;
  switch (event.type) {
    case 'turn/start':
      context.print(`\n[turn ${String(data.turn)}]`);
      return;
    case 'user/message':
      context.print(`  user: ${textOf(dataOf(event, 'user/message').content)}`);
      return;
    case 'model/request': {
      const request = dataOf(event, 'model/request');
      context.print(
        `  · model call ${request.turn}.${request.step}: ${requestSurfaceLength(request)} messages, ~${request.estimatedTokens ?? '?'} tokens, digest ${request.requestDigest?.slice(0, 12) ?? 'none'}…`,
      );
      return;
    }
    case 'assistant/message': {
      const message = dataOf(event, 'assistant/message');
      for (const call of message.toolCalls) {
        toolNames.set(call.callId, call.name);
        context.print(`  assistant calls ${call.name}(${JSON.stringify(call.arguments)})`);
      }
      const text = textOf(message.content);
      if (text !== '') context.print(`  assistant: ${text.replaceAll('\n', '\n             ')}`);
      return;
    }
    case 'tool/result': {
      const result = dataOf(event, 'tool/result');
      const text = textOf(result.content);
      const name = toolNames.get(result.callId) ?? 'tool';
      context.print(
        `  ${name} → ${result.error === undefined ? `${text.split('\n').length} lines, ${text.length} characters` : `error${result.error === true ? '' : `: ${result.error.message}`}`}`,
      );
      return;
    }
    case 'compaction/prune':
      context.print(
        `  ✂ pruned tool result #${String((data.shadowedSeqs as number[])[0])}: ${String(data.charsBefore)} → ${String(data.charsAfter)} characters`,
      );
      return;
    case 'compaction/summary':
      context.print(
        `  ⧉ compacted ${(data.shadowedSeqs as number[]).length} nodes (${String(data.trigger)}): surface ${String(data.tokensBefore)} → ${String(data.tokensAfter)} tokens, ${data.strategy === 'recall' ? 'a recall handle around an extractive outline' : 'extractive summary'}`,
      );
      return;
    case 'compaction/mask':
      context.print(
        `  ▭ masked tool result #${String((data.shadowedSeqs as number[])[0])} (${String(data.tool)}): ${String(data.shadowedTokenCount)} → ${String(data.replacementTokenCount)} tokens`,
      );
      return;
    case 'turn/end':
      context.print(`  (turn ${String(data.turn)} ${String(data.reason)})`);
      return;
    default:
      return;
  }
}

function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** Registers `shadowlog demo` on the program. */
export function registerDemoCommand(program: Command, run: RunCommand): void {
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
}
