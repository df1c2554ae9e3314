// A deterministic coding agent for the benchmarks that drive the real spine: each turn a user
// request, one to three tool calls (one per step) whose results vary in size (about one in
// eight is a large file or log), and an answer. Turn `n` is drawn from a generator seeded by
// the seed and `n` alone, so every run, and every configuration in a run, gets the same script
// whatever compaction did to the surface: the agent follows its plan, not what it is shown.

import { z } from 'zod';
import type { JsonObject } from '../src/log/event.js';
import type { ModelLimits } from '../src/providers/language-model.js';
import { type ScriptedCall, ScriptedModel, type ScriptedReply } from '../src/providers/scripted-model.js';
import type { Capability } from '../src/spine/capability.js';
import { createHarness, type Harness } from '../src/spine/harness.js';
import { defineTool, type Tool } from '../src/spine/tool.js';
import type { LogStore } from '../src/store/log-store.js';
import { MemoryLogStore } from '../src/store/memory/memory-store.js';
import { clock, elapsedMs } from './support.js';
import { buildCorpus, createRandom, WORDS } from './synthetic-text.js';

export const AGENT_SYSTEM_PROMPT =
  'You are a coding agent working in a TypeScript repository. Read files, run commands and search before you answer; answer briefly.';

export type ToolName = 'read_file' | 'run_command' | 'search';

export interface PlannedCall {
  readonly callId: string;
  readonly name: ToolName;
  readonly arguments: Record<string, string>;
  /** What the assistant says before the call (often nothing). */
  readonly note: string;
  readonly output: string;
}

export interface TurnPlan {
  readonly turn: number;
  readonly prompt: string;
  readonly calls: readonly PlannedCall[];
  readonly answer: string;
}

/** Share of tool results that are large (a whole file or a long log), and their size range. */
const LARGE_SHARE = 0.12;
const LARGE_MIN = 12_000;
const LARGE_MAX = 48_000;

export class CodingAgentScript {
  private readonly corpus: string;

  constructor(private readonly seed = 7) {
    this.corpus = buildCorpus(createRandom(seed ^ 0xc0de));
  }

  /** The plan of turn `turn` (from 1); the same for the same seed and turn. */
  turn(turn: number): TurnPlan {
    const random = createRandom((this.seed * 0x9e3779b1) ^ (turn * 0x85ebca6b));
    const word = () => WORDS[Math.floor(random() * WORDS.length)] as string;
    const text = (median: number, sigma: number, max: number) => {
      const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      const length = Math.max(8, Math.min(max, Math.round(median * Math.exp(sigma * normal))));
      const start = Math.floor(random() * (this.corpus.length - length));
      return this.corpus.slice(start, start + length);
    };
    const path = () => `src/${word()}/${word()}.ts`.replace(/[^\w/.-]/g, 'x');
    const callCount = 1 + Math.floor(random() * 3);
    const calls: PlannedCall[] = [];
    for (let index = 0; index < callCount; index++) {
      const kind = random();
      const name: ToolName = kind < 0.55 ? 'read_file' : kind < 0.8 ? 'run_command' : 'search';
      const args: Record<string, string> =
        name === 'read_file'
          ? { path: path() }
          : name === 'run_command'
            ? { command: `npx vitest run test/${word()}.test.ts`.replace(/[^\w/. -]/g, 'x') }
            : { query: word(), path: 'src' };
      const large = random() < LARGE_SHARE;
      const size = large ? LARGE_MIN + Math.floor(random() * (LARGE_MAX - LARGE_MIN)) : 0;
      const output = large ? text(size, 0, size) : text(1_500, 1.0, 10_000);
      const note = random() < 0.4 ? `Let me look at ${args.path ?? args.query ?? 'the tests'} first. ${text(60, 0.5, 300)}` : '';
      calls.push({ callId: `toolu_${turn}_${index + 1}`, name, arguments: args, note, output });
    }
    return {
      turn,
      prompt: `Turn ${turn}: ${text(180, 0.8, 1_500)}`,
      calls,
      answer: `Done with turn ${turn}. ${text(450, 0.7, 3_000)}`,
    };
  }
}

/**
 * The agent as the scripted model's reply function and the tools' outputs: `begin(plan)` before
 * each turn; each model call then takes the plan's next step, and each tool returns the
 * planned output of its call.
 */
export class CodingAgent {
  private plan: TurnPlan | undefined;
  private step = 0;
  private outputs = 0;
  /** Model calls answered so far. */
  calls = 0;

  begin(plan: TurnPlan): void {
    this.plan = plan;
    this.step = 0;
    this.outputs = 0;
  }

  reply(): ScriptedReply {
    const plan = this.requirePlan();
    const call = plan.calls[this.step++];
    this.calls++;
    if (call === undefined) return { text: plan.answer };
    return { text: call.note, toolCalls: [{ name: call.name, arguments: call.arguments, callId: call.callId }] };
  }

  output(name: ToolName): string {
    const call = this.requirePlan().calls[this.outputs++];
    if (call?.name !== name) throw new Error(`coding agent script: expected a call of ${call?.name ?? 'nothing'}, the spine ran ${name}`);
    return call.output;
  }

  tools(): Tool[] {
    return [
      defineTool({
        name: 'read_file',
        description: 'Read a file of the repository',
        input: z.object({ path: z.string() }),
        execute: () => this.output('read_file'),
      }),
      defineTool({
        name: 'run_command',
        description: 'Run a shell command in the repository and return its output',
        input: z.object({ command: z.string() }),
        execute: () => this.output('run_command'),
      }),
      defineTool({
        name: 'search',
        description: 'Search the repository for a text',
        input: z.object({ query: z.string(), path: z.string().optional() }),
        execute: () => this.output('search'),
      }),
    ] as Tool[];
  }

  private requirePlan(): TurnPlan {
    if (this.plan === undefined) throw new Error('coding agent script: begin(plan) before the first call');
    return this.plan;
  }
}

/** The scripted model's window in the benchmarks that compact: small, so that a session compacts often. */
export const SMALL_WINDOW: ModelLimits = { contextWindow: 16_000, defaultMaxOutputTokens: 1_000 };

export interface AgentRunOptions {
  readonly script: CodingAgentScript;
  readonly turns: number;
  readonly capabilities: readonly Capability[];
  readonly store?: LogStore;
  readonly sessionId?: string;
  /** The model's limits (default SMALL_WINDOW). */
  readonly limits?: ModelLimits;
  /** Called with each request the model is sent, in order (after the capabilities ran). */
  readonly onRequest?: (call: ScriptedCall) => void;
  /** Called after each turn with its number, for progress. */
  readonly onTurn?: (turn: number) => void;
  /**
   * End the run at the first turn that does not complete (a request the window refuses, say)
   * and report it in AgentRun.failure; by default such a turn is an error of the benchmark.
   */
  readonly untilFailure?: boolean;
}

/** The turn a run ended at, when it did not complete (AgentRunOptions.untilFailure). */
export interface RunFailure {
  readonly turn: number;
  readonly reason: string;
  readonly error: Error | undefined;
  /** The body of the last request the model was sent: the one it refused, when it refused one. */
  readonly lastBody: JsonObject | undefined;
}

export interface AgentRun {
  readonly store: LogStore;
  readonly sessionId: string;
  readonly harness: Harness;
  readonly wallMs: number;
  /** The wall time of each turn, in order. */
  readonly turnMs: readonly number[];
  readonly modelCalls: number;
  readonly failure?: RunFailure;
}

/** Runs `turns` turns of the script through the real spine with a scripted model on the small window. */
export async function runAgentSession(options: AgentRunOptions): Promise<AgentRun> {
  const agent = new CodingAgent();
  const model = new ScriptedModel({
    modelId: 'bench-coding-agent',
    limits: options.limits ?? SMALL_WINDOW,
    replies: (call) => {
      options.onRequest?.(call);
      return agent.reply();
    },
  });
  const store = options.store ?? new MemoryLogStore();
  const sessionId = options.sessionId ?? 'bench-agent';
  const harness = createHarness({
    store,
    model,
    tools: agent.tools(),
    systemPrompt: AGENT_SYSTEM_PROMPT,
    capabilities: options.capabilities,
    stream: false,
  });
  const turnMs: number[] = [];
  const start = clock();
  const session = await harness.createSession(sessionId);
  let failure: RunFailure | undefined;
  try {
    for (let turn = 1; turn <= options.turns; turn++) {
      const plan = options.script.turn(turn);
      agent.begin(plan);
      const turnStart = clock();
      const result = await session.send(plan.prompt);
      turnMs.push(elapsedMs(turnStart));
      if (result.reason !== 'completed') {
        if (options.untilFailure !== true) throw new Error(`coding agent script: turn ${turn} ended ${result.reason}`);
        failure = { turn, reason: result.reason, error: result.error, lastBody: model.calls.at(-1) };
        break;
      }
      // The scripted model keeps every body it was sent; a long run would hold them all.
      model.calls.length = 0;
      options.onTurn?.(turn);
    }
  } finally {
    await session.close();
  }
  const run = { store, sessionId, harness, wallMs: elapsedMs(start), turnMs, modelCalls: agent.calls };
  return failure === undefined ? run : { ...run, failure };
}
