// A hostile provider (issue 9, item 3): an agent runs through the real adapters against the
// fake server on loopback, which answers with reused, repeated and empty tool-call ids,
// numbers beyond a 64-bit float, string literals, text that is not JSON, non-canonical and
// deeply nested arguments, and a call without a name, in both wire protocols, as JSON and as
// streams. Afterwards: every answer is in the log, as an assistant/message that kept what was
// said or as model/unrecorded-answer holding it as it arrived; every request the server got
// pairs calls and results unambiguously and sent the arguments back as written (OpenAI);
// `verify` passes; and every recorded call replays to its digest.

import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rendererFor } from '../../src/cli/renderers.js';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { AssistantMessageData, LogEvent, ModelRequestData, ModelUnrecordedAnswerData, ToolCall } from '../../src/log/event.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { verifyLog } from '../../src/log/verify.js';
import { createAnthropicMessagesModel } from '../../src/providers/anthropic-messages/anthropic-messages-model.js';
import type { LanguageModel } from '../../src/providers/language-model.js';
import { createOpenAIChatModel } from '../../src/providers/openai-chat/openai-chat-model.js';
import { argumentsTextOf } from '../../src/providers/tool-arguments.js';
import { createHarness } from '../../src/spine/harness.js';
import { replay } from '../../src/spine/replay.js';
import { defineTool } from '../../src/spine/tool.js';
import type { LogStore } from '../../src/store/log-store.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { createCliWorkspace } from '../support/cli.js';
import { type FakeProviderServer, startFakeProviderServer } from '../support/fake-provider-server.js';
import { recordFigures } from './support/figures.js';
import {
  type Answer,
  anthropicInputText,
  type Protocol,
  parsesAsJson,
  responseFor,
  SCENARIOS,
  type Scenario,
  type SentCall,
  type Transport,
} from './support/hostile-answers.js';

const figures: Record<string, Record<string, number>> = {};
const count = (run: string, key: string, n = 1) => {
  const entry = figures[run] ?? {};
  figures[run] = entry;
  entry[key] = (entry[key] ?? 0) + n;
};
afterAll(() => {
  recordFigures('hostile-provider', { runs: figures });
  console.log(`hostile provider: ${JSON.stringify(figures)}`);
});

const probe = defineTool({
  name: 'probe',
  description: 'Takes any arguments',
  input: z.object({}).catchall(z.unknown()),
  execute: (args) => `probed ${canonicalJson(args).slice(0, 40)}`,
});

let server: FakeProviderServer;
let workspace: ReturnType<typeof createCliWorkspace>;
beforeEach(async () => {
  server = await startFakeProviderServer();
  workspace = createCliWorkspace();
});
afterEach(async () => {
  await server.close();
  workspace.cleanup();
});

function modelFor(protocol: Protocol): LanguageModel {
  return protocol === 'openai'
    ? createOpenAIChatModel({
        model: 'hostile-1',
        apiKey: 'k',
        baseUrl: `${server.baseUrl}/v1`,
        env: {},
        // OpenAI's own way, which takes back any text: the arguments go back exactly as written.
        toolArguments: 'verbatim',
        contextWindow: 100_000,
        defaultMaxOutputTokens: 1_000,
      })
    : createAnthropicMessagesModel({
        model: 'hostile-1',
        apiKey: 'k',
        baseUrl: server.baseUrl,
        env: {},
        contextWindow: 100_000,
        defaultMaxOutputTokens: 1_000,
      });
}

async function eventsOf(store: LogStore, sessionId: string): Promise<LogEvent[]> {
  const out: LogEvent[] = [];
  for await (const page of store.read(sessionId)) out.push(...page);
  return out;
}

/** What the log kept of one answer: the message, or the answer as it arrived. */
type Kept = { kind: 'message'; data: AssistantMessageData } | { kind: 'unrecorded'; data: ModelUnrecordedAnswerData };

/** After each model/request, the one event that holds its answer. */
function keptAnswers(events: readonly LogEvent[]): Kept[] {
  const kept: Kept[] = [];
  let waiting = false;
  for (const event of events) {
    if (event.type === 'model/request') {
      expect(waiting, `a model/request at #${event.seq} while the last one has no answer in the log`).toBe(false);
      waiting = true;
    } else if (waiting && event.type === 'assistant/message') {
      kept.push({ kind: 'message', data: event.data as unknown as AssistantMessageData });
      waiting = false;
    } else if (waiting && event.type === 'model/unrecorded-answer') {
      kept.push({ kind: 'unrecorded', data: event.data as unknown as ModelUnrecordedAnswerData });
      waiting = false;
    } else if (waiting && event.type === 'model/error') {
      throw new Error(`answer lost: model/error at #${event.seq}: ${String(event.data.message)}`);
    }
  }
  expect(waiting, 'the last model/request has no answer in the log').toBe(false);
  return kept;
}

/** The recorded call says what the provider sent: its id, its name and its arguments. */
function expectKeptCall(protocol: Protocol, transport: Transport, recorded: ToolCall, sent: SentCall): void {
  expect(recorded.providerCallId ?? recorded.callId).toBe(sent.id);
  expect(recorded.name).toBe(sent.name);
  if (protocol === 'openai') {
    // The arguments text goes back byte for byte.
    expect(argumentsTextOf(recorded)).toBe(sent.args);
    return;
  }
  // Anthropic sends an object: what was kept reads as the same value, or is the same text.
  const expected = anthropicInputText(sent, transport);
  const kept = recorded.argumentsText ?? canonicalJson(recorded.arguments);
  if (expected.trim() === '') expect(recorded.arguments).toEqual({});
  else if (parsesAsJson(expected)) expect(JSON.parse(kept)).toEqual(JSON.parse(expected));
  else expect(kept).toBe(expected);
}

/** Every tool result in a request answers a call made just before it, by an id used once. */
function expectUnambiguousPairs(protocol: Protocol, body: string): number {
  const request = JSON.parse(body) as { messages: Array<Record<string, unknown>> };
  const seen = new Set<string>();
  let open = new Set<string>();
  let pairs = 0;
  for (const message of request.messages) {
    const calls: string[] = [];
    const results: string[] = [];
    if (protocol === 'openai') {
      if (message.role === 'assistant') for (const call of (message.tool_calls ?? []) as Array<{ id: string }>) calls.push(call.id);
      if (message.role === 'tool') results.push(message.tool_call_id as string);
    } else {
      for (const block of (Array.isArray(message.content) ? message.content : []) as Array<Record<string, unknown>>) {
        if (block.type === 'tool_use') calls.push(block.id as string);
        if (block.type === 'tool_result') results.push(block.tool_use_id as string);
      }
    }
    if (calls.length > 0) open = new Set();
    for (const id of calls) {
      expect(id, 'a call id sent to the provider').not.toBe('');
      expect(seen.has(id), `call id ${id} sent twice in one request`).toBe(false);
      seen.add(id);
      open.add(id);
    }
    for (const id of results) {
      expect(open.has(id), `a result for ${id}, which is not an open call of the message before`).toBe(true);
      open.delete(id);
      pairs++;
    }
  }
  return pairs;
}

async function run(protocol: Protocol, transport: Transport, scenario: Scenario, label: string): Promise<void> {
  const store = await openSqliteStore(join(workspace.cwd, 'hostile.db'));
  let last: ModelRequestData | undefined;
  try {
    const served: Array<{ answer: Answer; wire: string }> = [];
    for (const turn of scenario.turns) {
      for (const answer of turn) {
        const { response, wire } = responseFor(protocol, transport, answer);
        server.enqueue(response);
        served.push({ answer, wire });
      }
    }
    const harness = createHarness({
      store,
      model: modelFor(protocol),
      tools: [probe],
      systemPrompt: 'Probe.',
      stream: transport === 'sse',
    });
    const session = await harness.createSession('hostile');
    for (const [index, turn] of scenario.turns.entries()) {
      const result = await session.send(`turn ${index + 1}`);
      const unnamed = turn.some((answer) => (answer.calls ?? []).some((call) => call.name === ''));
      expect(result.reason, `${label}, turn ${index + 1}: ${result.error?.message ?? ''}`).toBe(unnamed ? 'error' : 'completed');
      if (unnamed) expect(result.error?.code).toBe('UNRECORDED_ANSWER');
    }
    await session.close();
    expect(server.remaining()).toBe(0);

    const events = await eventsOf(store, 'hostile');
    const kept = keptAnswers(events);
    expect(kept).toHaveLength(served.length);
    const callIds = new Set<string>();
    for (const [index, { answer, wire }] of served.entries()) {
      const entry = kept[index] as Kept;
      count(label, 'answers');
      if (entry.kind === 'unrecorded') {
        expect(entry.data.raw).toEqual({ format: transport, text: wire });
        count(label, 'kept as they arrived');
        continue;
      }
      const texts = entry.data.content.map((block) => (block.type === 'text' ? block.text : ''));
      expect(texts.join('')).toBe(answer.text ?? '');
      const sentCalls = answer.calls ?? [];
      expect(entry.data.toolCalls).toHaveLength(sentCalls.length);
      for (const [position, sent] of sentCalls.entries()) {
        const recorded = entry.data.toolCalls[position] as ToolCall;
        expectKeptCall(protocol, transport, recorded, sent);
        expect(callIds.has(recorded.callId), `call id ${recorded.callId} used twice in the session`).toBe(false);
        callIds.add(recorded.callId);
        count(label, 'tool calls');
        if (recorded.providerCallId !== undefined) count(label, 'ids given');
        if (recorded.argumentsText !== undefined) count(label, 'arguments kept as text');
      }
    }

    expect(await verifyLog(store.read('hostile'))).toMatchObject({ ok: true, problems: [] });
    const requests = events.filter((event) => event.type === 'model/request').map((event) => event.data as unknown as ModelRequestData);
    expect(requests).toHaveLength(server.requests.length);
    for (const [index, request] of requests.entries()) {
      const received = server.requests[index]?.body ?? '';
      expect(sha256Hex(received)).toBe(request.requestDigest);
      count(label, 'pairs checked', expectUnambiguousPairs(protocol, received));
      const replayed = await replay(store, 'hostile', { turn: request.turn, step: request.step }, { resolveRenderer: rendererFor });
      expect(replayed.requestDigest).toBe(request.requestDigest);
      count(label, 'calls replayed');
    }
    last = requests.at(-1);
    if (protocol === 'openai') {
      // Every call went back to the server as the arguments it wrote.
      const last = JSON.parse(server.requests.at(-1)?.body ?? '{}') as {
        messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
      };
      const sentBack = last.messages.flatMap((message) => message.tool_calls ?? []).map((call) => call.function.arguments);
      const written = served.flatMap(({ answer }, index) => ((kept[index] as Kept).kind === 'message' ? (answer.calls ?? []) : []));
      expect(sentBack).toEqual(written.map((call) => call.args));
    }
  } finally {
    await store.close();
  }
  // The command line agrees: the log verifies and the last call replays.
  const storeOption = ['--store', `sqlite:${join(workspace.cwd, 'hostile.db')}`];
  const verified = await workspace.run([...storeOption, 'verify', 'hostile', '--json']);
  expect(verified.code, verified.stderr).toBe(0);
  const replayed = await workspace.run([
    ...storeOption,
    'replay',
    'hostile',
    '--turn',
    String(last?.turn),
    '--step',
    String(last?.step),
    '--json',
  ]);
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(JSON.parse(replayed.stdout)).toMatchObject({ verified: true, requestDigest: last?.requestDigest });
}

for (const protocol of ['openai', 'anthropic'] as const) {
  for (const transport of ['json', 'sse'] as const) {
    describe(`a hostile ${protocol} server answering in ${transport}`, () => {
      for (const scenario of SCENARIOS) {
        it(scenario.name, async () => {
          await run(protocol, transport, scenario, `${protocol}/${transport}`);
        });
      }
    });
  }
}
