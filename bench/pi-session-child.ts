// The child process of the pi-session benchmark: one measurement per process, so that each
// starts cold and its peak RSS is its own. Prints one JSON line on stdout.
//
//   node --import tsx bench/pi-session-child.ts prepare-pi <session.jsonl>
//   node --import tsx bench/pi-session-child.ts import <session.jsonl> <log.db>
//   node --import tsx bench/pi-session-child.ts pi <session.jsonl> <turns>
//   node --import tsx bench/pi-session-child.ts shadowlog <log.db> <session id> <turns>
//
// pi: SessionManager.open + buildSessionContext (its cold load), then per turn what pi's
// session does around one model call: appendMessage(user), buildSessionContext (the context
// the call is made from), appendMessage(assistant). pi appends with appendFileSync: no fsync,
// no lock.
// shadowlog: the SQLite store opened, the session opened by the harness (SessionLog.open: the
// surface fold) and its surface rendered to messages (its cold load), then per turn one
// session.send(): turn/start + user/message, the request rendered by the Anthropic adapter,
// written and hashed, model/request, the answer, turn/end; each append one transaction with
// fsync (WAL, synchronous FULL), the session owned by one writer.

import { fileURLToPath } from 'node:url';
import { SessionManager } from '@mariozechner/pi-coding-agent';
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
  readonly coldMs: number;
  /** Median milliseconds of one turn's bookkeeping (see above). */
  readonly turnMs: number;
  readonly turns: number;
  /** Messages (pi) or surface nodes (shadowlog) the model is shown, after the turns. */
  readonly contextSize: number;
  readonly peakRssBytes: number;
  /** RSS once the modules are loaded, before the session is opened. */
  readonly baseRssBytes: number;
  readonly sessionId?: string;
}

/**
 * The Anthropic adapter's render (prompt cache on, as the real adapter sends), with a send that
 * answers at once: the benchmark times the session's bookkeeping, not a network. The answer's
 * usage is what a server would report, so nothing compacts or warns.
 */
function instantAnthropic(): LanguageModel {
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
    async send(): Promise<ModelResult> {
      return {
        content: [{ type: 'text', text: 'Noted.' }],
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1 },
      };
    },
  };
}

function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

async function runPi(file: string, turns: number): Promise<ChildResult> {
  const baseRssBytes = process.memoryUsage().rss;
  const start = clock();
  const manager = SessionManager.open(file);
  let context = manager.buildSessionContext();
  const coldMs = elapsedMs(start);
  const samples: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const begin = clock();
    manager.appendMessage({
      role: 'user',
      content: [{ type: 'text', text: `Turn ${turn}: note the state of the build.` }],
      timestamp: Date.now(),
    });
    context = manager.buildSessionContext();
    manager.appendMessage({
      role: 'assistant',
      content: [{ type: 'text', text: 'Noted.' }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: {
        input: 1,
        output: 1,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 2,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp: Date.now(),
    });
    samples.push(elapsedMs(begin));
  }
  return { coldMs, turnMs: median(samples), turns, contextSize: context.messages.length, peakRssBytes: peakRss(), baseRssBytes };
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
    return { coldMs, turnMs: median(samples), turns, contextSize: session.log.fold.size, peakRssBytes: peakRss(), baseRssBytes };
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
  else if (mode === 'pi') result = await runPi(rest[0] as string, Number(rest[1]));
  else if (mode === 'shadowlog') result = await runShadowlog(rest[0] as string, rest[1] as string, Number(rest[2]));
  else throw new Error(`pi-session child: unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
