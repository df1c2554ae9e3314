// Benchmark: the compaction strategies (summary, mask, recall) on the same scripted sessions in
// the same window. Each task reads a file that holds one detail (key N = value); every third
// task from the fifth on also needs the detail of a file read four tasks earlier. The script
// knows which detail each step needs, so the benchmark counts how often a step needs a detail
// the surface it was sent no longer holds — and what the agent then did: with the recall tool
// it recalls it (logged recall calls), without it it reads the file again.
//
//   npm run bench -- compaction-strategies
//   npx tsx bench/compaction-strategies.bench.ts [--quick]

import { z } from 'zod';
import { createCompaction, createRecallTool } from '../src/compaction/index.js';
import { canonicalJson } from '../src/log/canonical-json.js';
import type { ContentBlock, LogEvent } from '../src/log/event.js';
import type { ModelMessage } from '../src/providers/language-model.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../src/providers/scripted-model.js';
import { createHarness } from '../src/spine/harness.js';
import { defineTool } from '../src/spine/tool.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { PrefixRecorder } from './prefix-recorder.js';
import { type BenchContext, type Benchmark, type BenchReport, formatCount, formatRatio, runIfMain } from './support.js';

const LIMITS = { contextWindow: 16_000, defaultMaxOutputTokens: 1_000 };
const FULL = { tasks: 90 };
const QUICK = { tasks: 24 };
const STRATEGIES = ['summary', 'mask', 'recall'] as const;
type Strategy = (typeof STRATEGIES)[number];

const textOf = (content: readonly ContentBlock[]) => content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** File N: filler lines of source, and the one line that holds its detail. */
function fileText(index: number): string {
  const lines = Array.from({ length: 60 }, (_, line) => `export const item_${index}_${line} = compute(${line}, "module ${index}");`);
  lines.splice(30, 0, `key${index} = ${detailOf(index)}`);
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
  readonly prefixShare: number;
  readonly counters: Counters;
  readonly unanswered: number;
}

async function runStrategy(strategy: Strategy, tasks: number): Promise<Result> {
  const store = new MemoryLogStore();
  const counters: Counters = { needs: 0, misses: 0, recalls: 0, rereads: 0 };
  const prefix = new PrefixRecorder();
  const model = new ScriptedModel({ modelId: 'bench-agent', replies: agent(counters, prefix), limits: LIMITS });
  // A model summarizer (scripted): its counted input and output are the summarizer's tokens.
  const summarizerModel = new ScriptedModel({
    modelId: 'bench-summarizer',
    limits: { contextWindow: 200_000, defaultMaxOutputTokens: 2_000 },
    replies: () => ({ text: '## Progress\n- read the task files and reported the key each holds' }),
  });
  const compaction = createCompaction({
    config: { headroomTokens: 0, retainTokens: 3_000, strategy, summarizer: { provider: 'scripted', model: 'bench-summarizer' } },
    summarizerModel,
  });
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read file N of the project',
    input: z.object({ file: z.number().int() }),
    execute: ({ file }) => fileText(file),
  });
  const harness = createHarness({
    store,
    model,
    tools: [readFile, ...(strategy === 'recall' ? [createRecallTool({ store })] : [])],
    capabilities: [compaction],
  });
  const session = await harness.createSession('bench');
  let unanswered = 0;
  for (let index = 1; index <= tasks; index++) {
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
  for (const event of events) {
    const usage = event.data.usage as { inputTokens?: number; outputTokens?: number } | null | undefined;
    if (event.type === 'assistant/message' && usage != null) {
      calls++;
      inputTokens += usage.inputTokens ?? 0;
    }
    if (event.type === 'compaction/summary') {
      summarizerTokens += (usage?.inputTokens ?? 0) + (usage?.outputTokens ?? 0);
      if (usage != null) calls++;
    }
    if (event.type === 'compaction/start') compactions++;
  }
  return { strategy, calls, inputTokens, summarizerTokens, compactions, prefixShare: prefix.meanShare, counters, unanswered };
}

async function run(context: BenchContext): Promise<BenchReport> {
  const { tasks } = context.quick ? QUICK : FULL;
  const results: Result[] = [];
  for (const strategy of STRATEGIES) {
    context.progress(`compaction-strategies: ${strategy}, ${tasks} tasks`);
    results.push(await runStrategy(strategy, tasks));
  }
  const baseline = results.find((result) => result.strategy === 'summary') as Result;
  return {
    tables: [
      {
        title: `Compaction strategies on one scripted session (${formatCount(tasks)} tasks, window ${formatCount(LIMITS.contextWindow)})`,
        columns: [
          'strategy',
          'tokens sent',
          '÷ summary',
          'model calls',
          'summarizer tokens',
          'compactions',
          'prefix share',
          'needed a detail',
          'not on the surface',
          'then recalled',
          'then re-read',
          'left unanswered',
        ],
        rows: results.map((result) => [
          result.strategy,
          formatCount(result.inputTokens),
          formatRatio(result.inputTokens / baseline.inputTokens),
          formatCount(result.calls),
          formatCount(result.summarizerTokens),
          formatCount(result.compactions),
          `${(result.prefixShare * 100).toFixed(1)} %`,
          formatCount(result.counters.needs),
          formatCount(result.counters.misses),
          formatCount(result.counters.recalls),
          formatCount(result.counters.rereads),
          formatCount(result.unanswered),
        ]),
      },
    ],
    notes: [
      `Each task reads one file (61 lines, one of them "keyN = value"); every third task from the 6th on also needs the key of the file read four tasks earlier. The scripted agent looks for that line in the messages it was sent; if it is not there ("not on the surface"), it calls recall when the tool is offered, and reads the file again otherwise.`,
      `Same window for every strategy: ${formatCount(LIMITS.contextWindow)} tokens, reserve ${formatCount(LIMITS.defaultMaxOutputTokens)}, threshold ratio 0.8, headroom 0, retained tail 3,000 tokens; mask keeps the results in that tail whole.`,
      'Tokens sent: the input tokens the scripted agent model reports over the session (it counts messages and tool definitions with the script-aware estimator). Model calls: the agent’s calls plus the summarizer’s. Summarizer tokens: input + output of the summarizer model’s calls (a scripted model with a fixed short answer, so only its input varies); mask makes none.',
      'Prefix share: the mean, over every call but the first, of the longest common prefix of two consecutive requests’ message lists (canonical JSON) over the later one: what a prompt cache could reuse.',
      'native is not in this table: the sessions run on the scripted model, which has no provider compaction (strategy native refuses it, and auto is summary there); a native row needs a provider’s compaction, which this offline benchmark does not have.',
    ],
    figures: { tasks, window: { ...LIMITS }, strategies: results.map((result) => ({ ...result, counters: { ...result.counters } })) },
  };
}

export const benchmark: Benchmark = {
  name: 'compaction-strategies',
  description:
    'summary, mask and recall on the same scripted sessions and window: tokens sent, calls, summarizer tokens, prefix share, details the surface no longer held',
  run,
};

await runIfMain(import.meta.url, benchmark);
