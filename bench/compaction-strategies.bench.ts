// Benchmark: the compaction strategies (summary, mask, recall, native) on the same scripted
// sessions in the same window. Each task reads a file that holds one detail (key N = value); every third
// task from the fifth on also needs the detail of a file read four tasks earlier. The script
// knows which detail each step needs, so the benchmark counts how often a step needs a detail
// the surface it was sent no longer holds — and what the agent then did: with the recall tool
// it recalls it (logged recall calls), without it it reads the file again.
//
// The native rows keep the scripted agent and send each compaction, as a real HTTP request in the
// provider's wire format, to the fake provider server on 127.0.0.1 (test/support): the Responses
// API's POST /v1/responses/compact, Anthropic's POST /v1/messages with compact_20260112. The fake
// server is a stand-in for the provider, not a model (test/support/fake-provider-compaction.ts):
// the Responses stand-in keeps the range's user messages as sent and adds an opaque item that holds
// none of the rest; Anthropic's writes a summary that names how many messages it replaced and keeps
// nothing of them. What those rows retain is what the fake server keeps, no more.
// Each compaction call of every row is replayed to its recorded digest, and every log verifies.
//
//   npm run bench -- compaction-strategies
//   npx tsx bench/compaction-strategies.bench.ts [--quick]

import { z } from 'zod';
import { rendererFor } from '../src/cli/renderers.js';
import { COMPACTION_SUMMARY, createCompaction, createNativeStrategy, createRecallTool, replaySummary } from '../src/compaction/index.js';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { ContentBlock, LogEvent } from '../src/log/event.js';
import { sha256Hex } from '../src/log/sha256.js';
import { verifyLog } from '../src/log/verify.js';
import { createAnthropicMessagesModel } from '../src/providers/anthropic-messages/anthropic-messages-model.js';
import { ANTHROPIC_COMPACTION_MINIMUM_TRIGGER } from '../src/providers/anthropic-messages/native-compaction.js';
import type { LanguageModel, ModelLimits, ModelMessage } from '../src/providers/language-model.js';
import { createOpenAIResponsesModel } from '../src/providers/openai-responses/openai-responses-model.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../src/providers/scripted-model.js';
import { createHarness } from '../src/spine/harness.js';
import { defineTool } from '../src/spine/tool.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { anthropicCompactionStandIn, responsesCompactionStandIn } from '../test/support/fake-provider-compaction.js';
import { type FakeProviderServer, type FakeResponse, startFakeProviderServer } from '../test/support/fake-provider-server.js';
import { PrefixRecorder } from './prefix-recorder.js';
import { type BenchContext, type Benchmark, type BenchReport, formatCount, formatRatio, runIfMain, type Table } from './support.js';

/** One session's shape: the window, the retained tail, the size of each file, the number of tasks. */
interface Setup {
  readonly limits: ModelLimits;
  readonly retainTokens: number;
  readonly fileLines: number;
  readonly tasks: number;
}

const WINDOW = { contextWindow: 16_000, defaultMaxOutputTokens: 1_000 };
const FULL: Setup = { limits: WINDOW, retainTokens: 3_000, fileLines: 60, tasks: 90 };
const QUICK: Setup = { ...FULL, tasks: 24 };
/**
 * The same session scaled up until Anthropic compacts its ranges: window, reserve, retained tail
 * and file length ×8 (a range is then about 70,000 tokens, past Anthropic's smallest trigger).
 */
const SCALE = 8;
function scaled(setup: Setup): Setup {
  return {
    limits: { contextWindow: setup.limits.contextWindow * SCALE, defaultMaxOutputTokens: setup.limits.defaultMaxOutputTokens * SCALE },
    retainTokens: setup.retainTokens * SCALE,
    fileLines: setup.fileLines * SCALE,
    tasks: setup.tasks,
  };
}
const STRATEGIES = ['summary', 'mask', 'recall', 'native-responses', 'native-anthropic'] as const;
type Strategy = (typeof STRATEGIES)[number];

/** The providers whose compaction the native rows ask, on the fake server. */
interface NativeProvider {
  readonly model: (baseUrl: string, limits: ModelLimits) => LanguageModel;
  readonly standIn: FakeResponse;
  /** The fewest input tokens it compacts at all. */
  readonly minimum: number;
}

const NATIVE: Readonly<Record<'native-responses' | 'native-anthropic', NativeProvider>> = {
  'native-responses': {
    model: (baseUrl, limits) =>
      createOpenAIResponsesModel({ model: 'gpt-5.4', baseUrl: `${baseUrl}/v1`, reasoningModel: false, env: {}, ...limits }),
    standIn: responsesCompactionStandIn,
    minimum: 0,
  },
  'native-anthropic': {
    model: (baseUrl, limits) => createAnthropicMessagesModel({ model: 'claude-sonnet-4-6', baseUrl, env: {}, ...limits }),
    standIn: anthropicCompactionStandIn,
    minimum: ANTHROPIC_COMPACTION_MINIMUM_TRIGGER,
  },
};

/** What the agent can read of a message: its text, and a compaction's readable summary and kept messages (not its opaque data). */
function textOf(content: readonly ContentBlock[]): string {
  return content
    .map((block) => {
      if (block.type === 'text') return block.text;
      if (block.type !== 'compaction') return '';
      const kept = (block.items ?? []).map((item) => JSON.stringify(item));
      return [block.text ?? '', ...kept].join('\n');
    })
    .join('');
}

/** File N: filler lines of source, and the one line that holds its detail. */
function fileText(index: number, fileLines: number): string {
  const lines = Array.from({ length: fileLines }, (_, line) => `export const item_${index}_${line} = compute(${line}, "module ${index}");`);
  lines.splice(fileLines / 2, 0, `key${index} = ${detailOf(index)}`);
  return lines.join('\n');
}
const detailOf = (index: number) => `v${(index * 7919) % 100_003}`;
/** The earlier file task `index` needs besides its own, if any. */
const neededBy = (index: number) => (index >= 5 && index % 3 === 0 ? index - 4 : undefined);

interface Counters {
  needs: number;
  misses: number;
  recalls: number;
  rereads: number;
}

/** The scripted agent: read the task's file, then, if it needs an earlier detail, find it on the surface, or recall it, or read again. */
function agent(counters: Counters, prefix: PrefixRecorder) {
  return (call: ScriptedCall): ScriptedReply => {
    prefix.record(canonicalJson(call.messages as never));
    const messages = call.messages;
    const lastUser = messages.findLastIndex((message) => message.role === 'user' && !textOf(message.content).startsWith('Earlier context'));
    const index = Number(/^Task (\d+)/.exec(textOf(messages[lastUser]?.content ?? []))?.[1]);
    if (!Number.isInteger(index)) return { text: 'No task.' };
    const since = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
    if (since.length === 0) return { toolCalls: [{ name: 'read_file', arguments: { file: index } }] };
    const needed = neededBy(index);
    if (needed === undefined || since.length > 1) return { text: answer(index, needed, messages) };
    counters.needs++;
    if (onSurface(messages, needed)) return { text: answer(index, needed, messages) };
    counters.misses++;
    const tools = Array.isArray(call.body.tools) ? call.body.tools.map((tool) => String((tool as { name?: unknown }).name)) : [];
    if (tools.includes('recall')) {
      counters.recalls++;
      return { toolCalls: [{ name: 'recall', arguments: { action: 'search', query: `key${needed} = ` } }] };
    }
    counters.rereads++;
    return { toolCalls: [{ name: 'read_file', arguments: { file: needed } }] };
  };
}

function onSurface(messages: readonly ModelMessage[], index: number): boolean {
  const line = `key${index} = ${detailOf(index)}`;
  return messages.some((message) => textOf(message.content).includes(line));
}

function answer(index: number, needed: number | undefined, messages: readonly ModelMessage[]): string {
  const own = `key${index} is ${detailOf(index)}`;
  if (needed === undefined) return `${own}.`;
  return onSurface(messages, needed) ? `${own}; key${needed} is ${detailOf(needed)}.` : `${own}; key${needed} is unknown.`;
}

interface Result {
  readonly strategy: Strategy;
  readonly calls: number;
  readonly inputTokens: number;
  readonly summarizerTokens: number;
  readonly compactions: number;
  readonly failedCompactions: number;
  readonly prefixShare: number;
  readonly counters: Counters;
  readonly unanswered: number;
  /** Compaction calls (summarizer or provider) recorded, and how many replayed to their digest. */
  readonly compactionCalls: number;
  readonly replayed: number;
  /** Native rows: the requests the fake server received (each one a compaction call). */
  readonly serverRequests: number | null;
}

async function runStrategy(strategy: Strategy, setup: Setup): Promise<Result> {
  const native = strategy === 'native-responses' || strategy === 'native-anthropic' ? NATIVE[strategy] : undefined;
  const server = native === undefined ? undefined : await startFakeProviderServer();
  try {
    return await runSession(strategy, setup, native === undefined || server === undefined ? undefined : { native, server });
  } finally {
    await server?.close();
  }
}

async function runSession(
  strategy: Strategy,
  setup: Setup,
  provider: { readonly native: NativeProvider; readonly server: FakeProviderServer } | undefined,
): Promise<Result> {
  const store = new MemoryLogStore();
  const counters: Counters = { needs: 0, misses: 0, recalls: 0, rereads: 0 };
  const prefix = new PrefixRecorder();
  const model = new ScriptedModel({ modelId: 'bench-agent', replies: agent(counters, prefix), limits: setup.limits });
  // A model summarizer (scripted): its counted input and output are the summarizer's tokens.
  const summarizerModel = new ScriptedModel({
    modelId: 'bench-summarizer',
    limits: { contextWindow: 200_000, defaultMaxOutputTokens: 2_000 },
    replies: () => ({ text: '## Progress\n- read the task files and reported the key each holds' }),
  });
  // Native: the provider's compaction, on the fake server, for the scripted agent's ranges. One
  // stand-in answer is queued per call the session could make; each answers one compaction request.
  if (provider !== undefined) provider.server.enqueue(...Array.from({ length: setup.tasks * 4 }, () => provider.native.standIn));
  const compactor = provider === undefined ? undefined : provider.native.model(provider.server.baseUrl, setup.limits);
  const compaction = createCompaction({
    config: {
      headroomTokens: 0,
      retainTokens: setup.retainTokens,
      strategy: compactor === undefined ? (strategy as 'summary' | 'mask' | 'recall') : 'native',
      summarizer: { provider: 'scripted', model: 'bench-summarizer' },
    },
    summarizerModel,
    ...(compactor === undefined ? {} : { strategy: createNativeStrategy(compactor) }),
  });
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read file N of the project',
    input: z.object({ file: z.number().int() }),
    execute: ({ file }) => fileText(file, setup.fileLines),
  });
  const harness = createHarness({
    store,
    model,
    tools: [readFile, ...(strategy === 'recall' ? [createRecallTool({ store })] : [])],
    capabilities: [compaction],
  });
  const session = await harness.createSession('bench');
  let unanswered = 0;
  for (let index = 1; index <= setup.tasks; index++) {
    const turn = await session.send(`Task ${index}: read file ${index} and report its key.`);
    if (turn.reason !== 'completed' || / is unknown\./.test(turn.text)) unanswered++;
  }
  await session.close();
  const events: LogEvent[] = [];
  for await (const page of store.read('bench')) events.push(...page);
  let inputTokens = 0;
  let calls = 0;
  let summarizerTokens = 0;
  let compactions = 0;
  let failedCompactions = 0;
  const digests: string[] = [];
  for (const event of events) {
    const usage = event.data.usage as { inputTokens?: number; outputTokens?: number } | null | undefined;
    if (event.type === 'assistant/message' && usage != null) {
      calls++;
      inputTokens += usage.inputTokens ?? 0;
    }
    if (event.type === COMPACTION_SUMMARY) {
      summarizerTokens += (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
      if (usage != null) calls++;
      if (typeof event.data.requestDigest === 'string') digests.push(event.data.requestDigest);
    }
    if (event.type === 'compaction/start') compactions++;
    if (event.type === 'compaction/end' && event.data.error !== undefined) failedCompactions++;
  }
  const replayed = await replayCompactionCalls(store, events);
  const report = await verifyLog(store.read('bench'));
  if (!report.ok) throw new Error(`${strategy}: the log does not verify: ${JSON.stringify(report.problems.slice(0, 3))}`);
  if (provider !== undefined) checkServer(strategy, provider.server, digests);
  return {
    strategy,
    calls,
    inputTokens,
    summarizerTokens,
    compactions,
    failedCompactions,
    prefixShare: prefix.meanShare,
    counters,
    unanswered,
    compactionCalls: digests.length,
    replayed,
    serverRequests: provider === undefined ? null : provider.server.requests.length,
  };
}

/** Replays every recorded compaction call (summarizer or provider) to its digest; the number that verified. */
async function replayCompactionCalls(store: MemoryLogStore, events: readonly LogEvent[]): Promise<number> {
  let verified = 0;
  for (const event of events) {
    if (event.type !== COMPACTION_SUMMARY || typeof event.data.requestDigest !== 'string') continue;
    const replayed = await replaySummary(store, 'bench', String(event.data.compactionId), rendererFor);
    if (replayed.verified && replayed.requestDigest === event.data.requestDigest) verified++;
  }
  return verified;
}

/** The fake server refused nothing, and each request it received is one recorded compaction call, byte for byte. */
function checkServer(strategy: Strategy, server: FakeProviderServer, digests: readonly string[]): void {
  if (server.violations.length > 0) throw new Error(`${strategy}: the fake server refused requests: ${JSON.stringify(server.violations)}`);
  const received = server.requests.map((request) => sha256Hex(request.body));
  if (canonicalJson(received) !== canonicalJson(digests))
    throw new Error(
      `${strategy}: the ${received.length} requests the fake server received are not the ${digests.length} recorded compaction calls`,
    );
}

/** Why `strategy` cannot run in `setup`, if it cannot: a provider that compacts nothing as small as the window. */
function infeasible(strategy: Strategy, setup: Setup): string | undefined {
  const native = strategy === 'native-responses' || strategy === 'native-anthropic' ? NATIVE[strategy] : undefined;
  if (native === undefined || native.minimum < setup.limits.contextWindow) return undefined;
  return `${strategy} is infeasible in a window of ${formatCount(setup.limits.contextWindow)} tokens: Anthropic compacts nothing below ${formatCount(native.minimum)} input tokens (its smallest trigger), so strategy native refuses every range there (auto summarizes them)`;
}

const COLUMNS = [
  'strategy',
  'tokens sent',
  '÷ summary',
  'model calls',
  'summarizer or compaction tokens',
  'compactions',
  'prefix share',
  'needed a detail',
  'not on the surface',
  'then recalled',
  'then re-read',
  'left unanswered',
  'compaction calls replayed',
];

async function runTable(context: BenchContext, setup: Setup, title: string) {
  const results: Result[] = [];
  const rows: string[][] = [];
  const skipped: Array<{ strategy: Strategy; reason: string }> = [];
  for (const strategy of STRATEGIES) {
    const reason = infeasible(strategy, setup);
    if (reason !== undefined) {
      skipped.push({ strategy, reason });
      continue;
    }
    context.progress(`compaction-strategies: ${strategy}, ${setup.tasks} tasks, window ${setup.limits.contextWindow}`);
    results.push(await runStrategy(strategy, setup));
  }
  const baseline = results.find((result) => result.strategy === 'summary') as Result;
  for (const strategy of STRATEGIES) {
    const result = results.find((candidate) => candidate.strategy === strategy);
    if (result === undefined) {
      rows.push([strategy, 'infeasible', ...COLUMNS.slice(2).map(() => '')]);
      continue;
    }
    rows.push([
      result.strategy,
      formatCount(result.inputTokens),
      formatRatio(result.inputTokens / baseline.inputTokens),
      formatCount(result.calls),
      formatCount(result.summarizerTokens),
      result.failedCompactions === 0
        ? formatCount(result.compactions)
        : `${formatCount(result.compactions)} (${formatCount(result.failedCompactions)} failed)`,
      `${(result.prefixShare * 100).toFixed(1)} %`,
      formatCount(result.counters.needs),
      formatCount(result.counters.misses),
      formatCount(result.counters.recalls),
      formatCount(result.counters.rereads),
      formatCount(result.unanswered),
      result.compactionCalls === 0 ? 'none made' : `${formatCount(result.replayed)} of ${formatCount(result.compactionCalls)}`,
    ]);
  }
  const table: Table = { title, columns: COLUMNS, rows };
  return { table, results, skipped };
}

const titleOf = (setup: Setup) =>
  `Compaction strategies on one scripted session (${formatCount(setup.tasks)} tasks, files of ${formatCount(setup.fileLines + 1)} lines, window ${formatCount(setup.limits.contextWindow)})`;

async function run(context: BenchContext): Promise<BenchReport> {
  const setups = [context.quick ? QUICK : FULL, scaled(context.quick ? QUICK : FULL)];
  const tables = [];
  for (const setup of setups) tables.push({ setup, ...(await runTable(context, setup, titleOf(setup))) });
  const [small, large] = setups as [Setup, Setup];
  return {
    tables: tables.map((entry) => entry.table),
    notes: [
      `Each task reads one file (${formatCount(small.fileLines + 1)} lines in the first table, ${formatCount(large.fileLines + 1)} in the second, one of them "keyN = value"); every third task from the 6th on also needs the key of the file read four tasks earlier. The scripted agent looks for that line in what it can read of the messages it was sent (text, and a compaction's readable summary and kept messages; not its opaque data); if it is not there ("not on the surface"), it calls recall when the tool is offered, and reads the file again otherwise.`,
      `Same window for every strategy of a table: ${formatCount(small.limits.contextWindow)} tokens, reserve ${formatCount(small.limits.defaultMaxOutputTokens)}, retained tail ${formatCount(small.retainTokens)} tokens in the first; all three and the files ×${SCALE} in the second (${formatCount(large.limits.contextWindow)}, ${formatCount(large.limits.defaultMaxOutputTokens)}, ${formatCount(large.retainTokens)}), where a range is past Anthropic's smallest trigger. Threshold ratio 0.8, headroom 0; mask keeps the results in the retained tail whole.`,
      ...tables.flatMap((entry) => entry.skipped.map((skip) => skip.reason)),
      'Tokens sent: the input tokens the scripted agent model reports over the session (it counts messages and tool definitions with the script-aware estimator). Model calls: the agent’s calls plus the compaction calls (the summarizer’s, or the provider’s). Summarizer or compaction tokens: input + output of those calls — the summarizer is a scripted model with a fixed short answer; the provider is the fake server, which reports the script-aware count of the request body it received and of what it returned; mask makes none.',
      'native-responses and native-anthropic: the agent stays scripted; each compaction is a real HTTP request in the provider’s wire format to the fake provider server on 127.0.0.1 (POST /v1/responses/compact; POST /v1/messages with the compact_20260112 edit and the beta header), recorded in compaction/summary with its digest. The fake server is a stand-in, not a model: the Responses stand-in returns the range’s user messages as sent and one compaction item whose encrypted_content is base64 of a note naming how many items it got; Anthropic’s returns a compaction block whose summary names how many messages it replaced. Neither keeps anything else, so these rows measure what the fake server keeps, not what a provider’s compaction would.',
      'Compaction calls replayed: each recorded compaction call rebuilt from the log (replay --compaction) and checked against its digest; for the native rows, the fake server’s received request bodies hash, in order, to those digests. Every session’s log verifies.',
      'Prefix share: the mean, over every call but the first, of the longest common prefix of two consecutive requests’ message lists (canonical JSON) over the later one: what a prompt cache could reuse.',
    ],
    figures: {
      tables: tables.map((entry) => ({
        setup: { ...entry.setup, limits: { ...entry.setup.limits } },
        strategies: entry.results.map((result) => ({ ...result, counters: { ...result.counters } })),
        infeasible: entry.skipped.map((skip) => ({ ...skip })),
      })),
    },
  };
}

export const benchmark: Benchmark = {
  name: 'compaction-strategies',
  description:
    'summary, mask, recall and native (Responses and Anthropic compaction on the fake server) on the same scripted sessions and window: tokens sent, calls, compaction tokens, prefix share, details the surface no longer held',
  run,
};

await runIfMain(import.meta.url, benchmark);
