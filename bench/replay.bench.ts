// Benchmark: replay (SPEC §4) of a real model call late in a 100,000-event SQLite session, as a
// ratio to opening the session (SessionLog.open: read every event and fold the surface),
// measured in the same run. The session is built in three parts: real turns of the spine
// (scripted coding agent, compaction mounted on a 16,000-token window), then synthetic but
// valid turns and compactions appended in batches up to 94% of the events (their requests
// were never sent, so their digests are placeholders), then real turns again in a new
// lifecycle to the end. The replayed call is the first real one at or after 95% of the log;
// an early and the last real call are replayed too, to show the cost follows the position.
//
//   npm run bench -- replay
//   npx tsx bench/replay.bench.ts [--quick]

import { join } from 'node:path';
import { createCompaction } from '../src/compaction/compaction-capability.js';
import { createToolResultPruner } from '../src/compaction/tool-result-pruner.js';
import type { LogEvent } from '../src/log/event.js';
import { dataOf } from '../src/log/event-data.js';
import { requestSurfaceLength } from '../src/log/request-surface.js';
import { ScriptedModel } from '../src/providers/scripted-model.js';
import type { AgentSession } from '../src/spine/agent-session.js';
import { createHarness, type Harness } from '../src/spine/harness.js';
import { replay } from '../src/spine/replay.js';
import type { LogStore } from '../src/store/log-store.js';
import { SessionLog } from '../src/store/session-log.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { AGENT_SYSTEM_PROMPT, CodingAgent, CodingAgentScript, SMALL_WINDOW } from './coding-agent-script.js';
import {
  type BenchContext,
  type Benchmark,
  type BenchReport,
  clock,
  createTempDirectory,
  elapsedMs,
  formatCount,
  formatMs,
  formatRatio,
  median,
  runIfMain,
} from './support.js';
import { SYNTHETIC_COMPACT_EVERY, SyntheticTurns } from './synthetic-turns.js';

const SESSION_ID = 'bench-replay';
const MODEL_ID = 'bench-coding-agent';

export interface Sizes {
  /** Events written by real turns first. */
  readonly realFirst: number;
  /** Synthetic turns and compactions up to this many events. */
  readonly syntheticUntil: number;
  readonly total: number;
  readonly repeats: number;
}

const FULL: Sizes = { realFirst: 3_000, syntheticUntil: 94_000, total: 100_000, repeats: 5 };
const QUICK: Sizes = { realFirst: 1_000, syntheticUntil: 9_400, total: 10_000, repeats: 3 };

function createAgentHarness(store: LogStore, agent: CodingAgent): Harness {
  const model = new ScriptedModel({ modelId: MODEL_ID, limits: SMALL_WINDOW, replies: () => agent.reply() });
  const compaction = createCompaction({
    config: { headroomTokens: 0, summarizer: { kind: 'extractive' } },
    pruner: createToolResultPruner(),
  });
  return createHarness({
    store,
    model,
    tools: agent.tools(),
    systemPrompt: AGENT_SYSTEM_PROMPT,
    capabilities: [compaction],
    stream: false,
  });
}

/** Real turns until the log holds `until` events. */
async function runRealTurns(session: AgentSession, agent: CodingAgent, script: CodingAgentScript, until: number): Promise<void> {
  while (session.log.nextSeq < until) {
    const plan = script.turn(session.turns + 1);
    agent.begin(plan);
    const result = await session.send(plan.prompt);
    if (result.reason !== 'completed') throw new Error(`replay benchmark: turn ${result.turn} ended ${result.reason}`);
  }
}

export interface RealCall {
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly surfaceNodes: number;
}

export interface Built {
  readonly events: number;
  readonly buildMs: number;
  readonly realCalls: readonly RealCall[];
  readonly syntheticCompactions: number;
  readonly registry: Harness['registry'];
  readonly phases: { readonly realFirstEnd: number; readonly syntheticEnd: number };
}

export async function build(store: LogStore, sizes: Sizes, context: BenchContext): Promise<Built> {
  const start = clock();
  const script = new CodingAgentScript();
  const realCalls: RealCall[] = [];
  const record = (event: LogEvent) => {
    if (event.type !== 'model/request') return;
    const data = dataOf(event, 'model/request');
    realCalls.push({ seq: event.seq, turn: data.turn, step: data.step, surfaceNodes: requestSurfaceLength(data) });
  };

  context.progress(`replay: real turns of the spine to ${formatCount(sizes.realFirst)} events`);
  const firstAgent = new CodingAgent();
  const first = createAgentHarness(store, firstAgent);
  const session = await first.createSession(SESSION_ID);
  let synthetic: SyntheticTurns;
  let realFirstEnd: number;
  try {
    const observe = session.log.append.bind(session.log);
    session.log.append = async (drafts) => {
      const events = await observe(drafts);
      for (const event of events) record(event);
      return events;
    };
    await runRealTurns(session, firstAgent, script, sizes.realFirst);
    realFirstEnd = session.log.nextSeq;
    session.log.append = observe;
    context.progress(`replay: synthetic turns and compactions to ${formatCount(sizes.syntheticUntil)} events`);
    synthetic = new SyntheticTurns(session.log, script, MODEL_ID);
    await synthetic.run(session.turns + 1, sizes.syntheticUntil);
  } finally {
    await session.close();
  }
  const syntheticEnd = (await store.head(SESSION_ID))?.nextSeq ?? 0;

  context.progress(`replay: real turns again, in a new lifecycle, to ${formatCount(sizes.total)} events`);
  const lastAgent = new CodingAgent();
  const last = createAgentHarness(store, lastAgent);
  const reopened = await last.openSession(SESSION_ID, 'continued by the replay benchmark');
  try {
    const observe = reopened.log.append.bind(reopened.log);
    reopened.log.append = async (drafts) => {
      const events = await observe(drafts);
      for (const event of events) record(event);
      return events;
    };
    await runRealTurns(reopened, lastAgent, script, sizes.total);
  } finally {
    await reopened.close();
  }
  return {
    events: (await store.head(SESSION_ID))?.nextSeq ?? 0,
    buildMs: elapsedMs(start),
    realCalls,
    syntheticCompactions: synthetic.compactionCount,
    registry: last.registry,
    phases: { realFirstEnd, syntheticEnd },
  };
}

interface Target {
  readonly label: string;
  readonly call: RealCall;
  readonly replayMs: number[];
}

async function run(context: BenchContext): Promise<BenchReport> {
  const sizes = context.quick ? QUICK : FULL;
  const directory = createTempDirectory('replay');
  try {
    const store = await openSqliteStore(join(directory.path, 'log.db'));
    try {
      const built = await build(store, sizes, context);
      const late = built.realCalls.find((call) => call.seq >= 0.95 * built.events);
      const early = built.realCalls.find((call) => call.seq >= 0.02 * built.events);
      const lastCall = built.realCalls.at(-1);
      if (late === undefined || early === undefined || lastCall === undefined) throw new Error('replay benchmark: no real call to replay');
      const targets: Target[] = [
        { label: 'replay, a call at ~95% (the target)', call: late, replayMs: [] },
        { label: 'replay, an early call (~2%)', call: early, replayMs: [] },
        { label: 'replay, the last call', call: lastCall, replayMs: [] },
      ];
      const resolveRenderer = (provider: string, modelId: string) => {
        if (provider !== 'scripted') throw new Error(`replay benchmark: unexpected provider ${provider}`);
        return new ScriptedModel({ modelId, replies: [] });
      };
      const openMs: number[] = [];
      let openedNodes = 0;
      context.progress(`replay: timing SessionLog.open and the replays, ${sizes.repeats} times each, interleaved`);
      for (let repeat = 0; repeat <= sizes.repeats; repeat++) {
        let start = clock();
        const log = await SessionLog.open(store, SESSION_ID, { registry: built.registry });
        const ms = elapsedMs(start);
        openedNodes = log.fold.size;
        if (repeat > 0) openMs.push(ms); // the first round warms up
        for (const target of targets) {
          start = clock();
          const result = await replay(
            store,
            SESSION_ID,
            { turn: target.call.turn, step: target.call.step },
            { resolveRenderer, registry: built.registry },
          );
          const replayMs = elapsedMs(start);
          if (result.seq !== target.call.seq || !result.verified)
            throw new Error(`replay benchmark: replayed #${result.seq}, expected #${target.call.seq}`);
          if (repeat > 0) target.replayMs.push(replayMs);
        }
      }
      const open = median(openMs);
      const table = {
        title: `Replay vs opening the session, on SQLite (${formatCount(built.events)} events; median of ${sizes.repeats})`,
        columns: ['operation', 'event replayed', 'position', 'surface nodes', 'time', 'vs open'],
        rows: [
          ['SessionLog.open (read and fold every event)', '', '100%', formatCount(openedNodes), formatMs(open), '1.00×'],
          ...targets.map((target) => {
            const ms = median(target.replayMs);
            return [
              target.label,
              `#${formatCount(target.call.seq)} (turn ${target.call.turn}, step ${target.call.step})`,
              `${((100 * target.call.seq) / built.events).toFixed(1)}%`,
              formatCount(target.call.surfaceNodes),
              formatMs(ms),
              formatRatio(ms / open),
            ];
          }),
        ],
      };
      return {
        tables: [table],
        notes: [
          `The session: real turns of the spine to event #${formatCount(built.phases.realFirstEnd)}, synthetic turns (with ${formatCount(built.syntheticCompactions)} synthetic compactions, one every ~${SYNTHETIC_COMPACT_EVERY} events) to #${formatCount(built.phases.syntheticEnd)}, then real turns in a new lifecycle to #${formatCount(built.events)}; built in ${formatMs(built.buildMs)}. Real turns: the coding-agent script on a 16,000-token window with compaction and the pruner mounted, so model/request events, digests and compactions are the spine’s own.`,
          `Replay reads the log from the start up to the call, folding as it goes, then renders and hashes one request; SessionLog.open reads and folds all of it. Both go through the same store (page cache warm after the first, untimed, round).`,
          `Every replay is checked: it returns the target’s seq and a verified digest. ${formatCount(built.realCalls.length)} real calls in the log.`,
        ],
        figures: {
          sizes: { ...sizes },
          events: built.events,
          buildMs: built.buildMs,
          phases: { ...built.phases },
          syntheticCompactions: built.syntheticCompactions,
          openMs: open,
          openSamplesMs: openMs,
          surfaceNodesAtEnd: openedNodes,
          replays: targets.map((target) => ({
            label: target.label,
            seq: target.call.seq,
            turn: target.call.turn,
            step: target.call.step,
            position: target.call.seq / built.events,
            surfaceNodes: target.call.surfaceNodes,
            medianMs: median(target.replayMs),
            samplesMs: target.replayMs,
            ratioToOpen: median(target.replayMs) / open,
          })),
        },
      };
    } finally {
      await store.close();
    }
  } finally {
    directory.cleanup();
  }
}

export const benchmark: Benchmark = {
  name: 'replay',
  description: 'replay of a real call at ~95% of a 100,000-event SQLite session, vs opening the session',
  run,
};

// Run alone: `npx tsx bench/replay.bench.ts [--quick]`.
await runIfMain(import.meta.url, benchmark);
