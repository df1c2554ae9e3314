// The child process of the pi-session benchmark: one measurement per process, so that each
// starts cold and its peak RSS is its own. Prints one JSON line on stdout.
//
//   node --import tsx bench/pi-session-child.ts prepare-pi <session.jsonl>
//   node --import tsx bench/pi-session-child.ts import <session.jsonl> <log.db>
//   node --import tsx bench/pi-session-child.ts pi <session.jsonl> <turns> <context|entries>
//   node --import tsx bench/pi-session-child.ts pi-cold <session.jsonl>
//   node --import tsx bench/pi-session-child.ts shadowlog <log.db> <session id> <turns>
//
// pi: its cold load is what it does to resume a session: SessionManager.open and
// buildSessionContext. Per turn, what pi's agent does around one model call: pi-agent-core's
// Agent runs a prompt with pi's convertToLlm; pi-ai's Anthropic provider builds the request
// from the agent's messages and the Anthropic SDK serializes it and sends it to a fetch that
// answers in process with a short streamed answer, which the provider parses; each message is
// persisted with SessionManager.appendMessage when it ends, as pi's AgentSession does
// (appendFileSync: no fsync, no lock). With `entries`, the agent starts from the session's
// message entries in order instead of buildSessionContext (which `pi-cold` times alone): for
// these sessions (no compaction, no branch) the same list, which `context` checks.
// shadowlog: the SQLite store opened, the session opened by the harness (SessionLog.open: the
// surface fold) and its surface rendered to messages (its cold load), then per turn one
// session.send(): turn/start + user/message, the request rendered by the Anthropic adapter,
// written and hashed, model/request, the request's text joined as a send does, the answer,
// turn/end; two commits (WAL, synchronous FULL), the session owned by one writer.

import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Agent, type AgentEvent, type AgentMessage } from '@mariozechner/pi-agent-core';
import { getModel } from '@mariozechner/pi-ai';
import { streamAnthropic } from '@mariozechner/pi-ai/anthropic';
import { convertToLlm, SessionManager } from '@mariozechner/pi-coding-agent';
import { COMPACTION_EVENT_TYPES } from '../src/compaction/event-types.js';
import { importFiles, readImportInputs } from '../src/importers/index.js';
import { EventTypeRegistry } from '../src/log/event-types.js';
import { createAnthropicMessagesModel } from '../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel, ModelRequest, ModelResult, RenderedRequest } from '../src/providers/language-model.js';
import { createHarness } from '../src/spine/harness.js';
import { renderSurface } from '../src/spine/render-surface.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { clock, elapsedMs, median } from './support.js';

export interface ChildResult {
  /** Null when the run does not time it (pi with `entries`). */
  readonly coldMs: number | null;
  /** Median milliseconds of one turn's bookkeeping (see above). */
  readonly turnMs: number;
  readonly turns: number;
  /** Messages (pi) or surface nodes (shadowlog) the model is shown, after the turns. */
  readonly contextSize: number;
  readonly peakRssBytes: number;
  /** RSS once the modules are loaded, before the session is opened. */
  readonly baseRssBytes: number;
  readonly sessionId?: string;
  /** Characters of the last request body serialized for sending. */
  readonly requestChars: number;
}

/**
 * The Anthropic adapter's render (prompt cache on, as the real adapter sends), with a send that
 * answers at once: the benchmark times the session's bookkeeping, not a network. The answer's
 * usage is what a server would report, so nothing compacts or warns.
 */
export function instantAnthropic(): LanguageModel {
  const renderer = createAnthropicMessagesModel({
    model: 'claude-sonnet-4-5',
    apiKey: 'unused',
    // Never contacted: send below answers in process.
    baseUrl: 'http://127.0.0.1:9/never-sent',
    contextWindow: 1_000_000_000,
    defaultMaxOutputTokens: 4_096,
  });
  return {
    provider: renderer.provider,
    modelId: renderer.modelId,
    rendererVersion: renderer.rendererVersion,
    limits: renderer.limits,
    render: (request: ModelRequest, version?: string): RenderedRequest => renderer.render(request, version),
    async send(rendered): Promise<ModelResult> {
      // What a send serializes: the request's text, joined from its parts.
      lastRequestChars = rendered.wireText?.length ?? 0;
      return {
        content: [{ type: 'text', text: 'Noted.' }],
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
}

let lastRequestChars = 0;

function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** The Anthropic SDK pi-ai depends on (its own copy, as pi loads it). */
const PiAnthropicSdk = createRequire(fileURLToPath(new URL('../node_modules/@mariozechner/pi-ai/dist/index.js', import.meta.url)))(
  '@anthropic-ai/sdk',
).default as new (options: {
  apiKey: string;
  baseURL: string;
  maxRetries: number;
  fetch: typeof fetch;
}) => unknown;

/** A short streamed answer, as Anthropic's Messages API sends it. */
const ANSWER_STREAM = [
  {
    type: 'message_start',
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Noted.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
  { type: 'message_stop' },
]
  .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  .join('');

async function runPi(file: string, turns: number, seed: 'context' | 'entries'): Promise<ChildResult> {
  const baseRssBytes = process.memoryUsage().rss;
  const start = clock();
  const manager = SessionManager.open(file);
  let messages: AgentMessage[];
  let coldMs: number | null = null;
  const entries = () => manager.getEntries().flatMap((entry) => (entry.type === 'message' ? [entry.message as AgentMessage] : []));
  if (seed === 'context') {
    messages = manager.buildSessionContext().messages as AgentMessage[];
    coldMs = elapsedMs(start);
    const listed = entries();
    if (listed.length !== messages.length || listed.some((message, index) => message !== messages[index]))
      throw new Error('pi-session: the message entries are not the session context; `entries` would start pi elsewhere');
  } else {
    messages = entries();
  }
  let requestChars = 0;
  const client = new PiAnthropicSdk({
    apiKey: 'unused',
    // Never contacted: the fetch below answers in process.
    baseURL: 'http://127.0.0.1:9',
    maxRetries: 0,
    fetch: async (_url, init) => {
      requestChars = typeof init?.body === 'string' ? init.body.length : 0;
      return new Response(ANSWER_STREAM, { status: 200, headers: { 'content-type': 'text/event-stream', 'request-id': 'req_bench' } });
    },
  });
  const model = getModel('anthropic', 'claude-sonnet-4-5');
  const agent = new Agent({
    initialState: { systemPrompt: '', model, thinkingLevel: 'off', tools: [], messages },
    convertToLlm,
    streamFn: (streamModel, context, options) =>
      streamAnthropic(streamModel as typeof model, context, {
        ...options,
        apiKey: 'unused',
        maxTokens: 4_096,
        thinkingEnabled: false,
        client: client as never,
      }),
  });
  agent.subscribe((event: AgentEvent) => {
    if (event.type === 'message_end') manager.appendMessage(event.message as Parameters<typeof manager.appendMessage>[0]);
  });
  const samples: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const begin = clock();
    await agent.prompt(`Turn ${turn}: note the state of the build.`);
    samples.push(elapsedMs(begin));
    const last = agent.state.messages.at(-1) as { role?: string; stopReason?: string; errorMessage?: string } | undefined;
    if (last?.role !== 'assistant' || last.stopReason !== 'stop') {
      throw new Error(`pi-session: pi's turn ${turn} ended ${last?.stopReason ?? 'without an answer'}: ${last?.errorMessage ?? ''}`);
    }
  }
  return {
    coldMs,
    turnMs: median(samples),
    turns,
    contextSize: agent.state.messages.length,
    peakRssBytes: peakRss(),
    baseRssBytes,
    requestChars,
  };
}

/** pi's cold load alone: SessionManager.open and buildSessionContext. */
function runPiCold(file: string): { coldMs: number; messages: number } {
  const start = clock();
  const manager = SessionManager.open(file);
  const context = manager.buildSessionContext();
  return { coldMs: elapsedMs(start), messages: context.messages.length };
}

async function runShadowlog(database: string, sessionId: string, turns: number): Promise<ChildResult> {
  const baseRssBytes = process.memoryUsage().rss;
  const start = clock();
  const store = await openSqliteStore(database);
  const harness = createHarness({ store, model: instantAnthropic(), stream: false, capabilities: [] });
  const session = await harness.openSession(sessionId, 'continued by the pi-session benchmark');
  const messages = renderSurface(session.log.fold.nodes());
  const coldMs = elapsedMs(start);
  if (messages.length === 0) throw new Error('pi-session: the imported session has an empty surface');
  const samples: number[] = [];
  try {
    for (let turn = 1; turn <= turns; turn++) {
      const begin = clock();
      const result = await session.send(`Turn ${turn}: note the state of the build.`);
      samples.push(elapsedMs(begin));
      if (result.reason !== 'completed') throw new Error(`pi-session: a turn ended ${result.reason}: ${result.error?.message ?? ''}`);
    }
    return {
      coldMs,
      turnMs: median(samples),
      turns,
      contextSize: session.log.fold.size,
      peakRssBytes: peakRss(),
      baseRssBytes,
      requestChars: lastRequestChars,
    };
  } finally {
    await session.close();
    await store.close();
  }
}

/** pi migrates a version-1 file when it first opens it, rewriting it: done once, before anything is measured. */
function preparePi(file: string): { entries: number } {
  const manager = SessionManager.open(file);
  return { entries: manager.getEntries().length };
}

async function importSession(file: string, database: string): Promise<{ sessionId: string; events: number }> {
  const store = await openSqliteStore(database);
  try {
    const inputs = await readImportInputs([file], process.cwd());
    const summary = await importFiles(store, inputs, { format: 'pi', registry: new EventTypeRegistry(COMPACTION_EVENT_TYPES) });
    const session = summary.files[0]?.sessions[0];
    if (session === undefined) throw new Error(`pi-session: importing ${file} made no session`);
    return { sessionId: session.sessionId, events: session.events };
  } finally {
    await store.close();
  }
}

async function main(args: readonly string[]): Promise<void> {
  const [mode, ...rest] = args;
  let result: unknown;
  if (mode === 'prepare-pi') result = preparePi(rest[0] as string);
  else if (mode === 'import') result = await importSession(rest[0] as string, rest[1] as string);
  else if (mode === 'pi') result = await runPi(rest[0] as string, Number(rest[1]), rest[2] === 'entries' ? 'entries' : 'context');
  else if (mode === 'pi-cold') result = runPiCold(rest[0] as string);
  else if (mode === 'shadowlog') result = await runShadowlog(rest[0] as string, rest[1] as string, Number(rest[2]));
  else throw new Error(`pi-session child: unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
