// A session whose surface has a given number of nodes and no compaction, built through
// SessionLog in batches (no model calls, so no model/request events): the history a
// benchmark then continues with real turns of the spine. Turns look like a coding agent's:
// a request, one or two tool calls with results of varied sizes, an answer.

import { canonicalJson } from '../src/log/canonical-json.js';
import type { EventDraft } from '../src/log/event.js';
import type {
  LanguageModel,
  ModelLimits,
  ModelParams,
  ModelRequest,
  ModelResult,
  RenderedRequest,
} from '../src/providers/language-model.js';
import { SCRIPTED_RENDERER_VERSION, ScriptedModel } from '../src/providers/scripted-model.js';
import type { AgentSession } from '../src/spine/agent-session.js';
import { createHarness } from '../src/spine/harness.js';
import { renderSurface } from '../src/spine/render-surface.js';
import type { LogStore } from '../src/store/log-store.js';
import { SessionLog } from '../src/store/session-log.js';
import { buildCorpus, createRandom } from './synthetic-text.js';

export const SURFACE_SESSION_PROMPT = 'You are a coding agent. Answer briefly.';
/** Events per append while building (one store transaction each). */
const BATCH_EVENTS = 1_000;

export interface BuiltSession {
  readonly events: number;
  readonly surfaceNodes: number;
  readonly turns: number;
}

/** Appends turns to a new session `sessionId` until its surface has at least `nodes` nodes. */
export async function buildSurfaceSession(store: LogStore, sessionId: string, nodes: number, seed = 11): Promise<BuiltSession> {
  const random = createRandom(seed);
  const corpus = buildCorpus(createRandom(seed ^ 0x5eed));
  const text = (median: number, sigma: number, max: number) => {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const length = Math.max(8, Math.min(max, Math.round(median * Math.exp(sigma * normal))));
    const start = Math.floor(random() * (corpus.length - length));
    return [{ type: 'text' as const, text: corpus.slice(start, start + length) }];
  };
  const log = await SessionLog.create(store, sessionId);
  let pending: EventDraft[] = [
    { type: 'system/message', data: { content: [{ type: 'text', text: SURFACE_SESSION_PROMPT }] }, surfaceOp: 'append' },
  ];
  let surface = 1;
  let turn = 0;
  while (surface < nodes) {
    turn++;
    pending.push(
      { type: 'turn/start', data: { turn } },
      { type: 'user/message', data: { content: text(200, 0.6, 1_500) }, surfaceOp: 'append' },
    );
    const calls = 1 + Math.floor(random() * 2);
    for (let index = 1; index <= calls; index++) {
      const callId = `call_${turn}_${index}`;
      pending.push(
        {
          type: 'assistant/message',
          data: {
            content: text(100, 0.5, 600),
            toolCalls: [{ callId, name: 'read_file', arguments: { path: `src/module${turn % 97}/file${index}.ts` } }],
            model: 'bench',
          },
          surfaceOp: 'append',
        },
        { type: 'tool/result', data: { callId, content: text(400, 1.0, 4_000) }, surfaceOp: 'append' },
      );
    }
    pending.push(
      { type: 'assistant/message', data: { content: text(300, 0.6, 2_000), toolCalls: [], model: 'bench' }, surfaceOp: 'append' },
      { type: 'turn/end', data: { turn, reason: 'completed' } },
    );
    surface += 2 + 2 * calls;
    if (pending.length >= BATCH_EVENTS) {
      await log.append(pending);
      pending = [];
    }
  }
  if (pending.length > 0) await log.append(pending);
  return { events: log.nextSeq, surfaceNodes: log.fold.size, turns: turn };
}

/**
 * Renders exactly as the scripted model does and answers at once with a fixed reply, counting
 * nothing. The scripted model counts each request against its window, as a server does on its
 * own machine; in process that count would be on the step's clock, and this benchmark times
 * the spine. Its surfaces are far larger than any window, and nothing here compacts.
 */
class InstantModel implements LanguageModel {
  readonly provider = 'scripted';
  readonly modelId = 'bench-step';
  readonly rendererVersion = SCRIPTED_RENDERER_VERSION;
  readonly limits: ModelLimits = { contextWindow: 1_000_000_000, defaultMaxOutputTokens: 4_096 };
  private readonly renderer = new ScriptedModel({ modelId: this.modelId, limits: this.limits, replies: [] });

  render(request: ModelRequest, rendererVersion?: string): RenderedRequest {
    return this.renderer.render(request, rendererVersion);
  }

  async send(): Promise<ModelResult> {
    return { content: [{ type: 'text', text: 'Noted.' }], toolCalls: [], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

/** A session of the spine on a built session, with a model that answers at once, and the render alone for comparison. */
export interface StepRig {
  readonly session: AgentSession;
  readonly model: LanguageModel;
  /** One turn of one step: turn/start + user/message, model/request, the call, assistant/message, turn/end. */
  step(): Promise<void>;
  /** What the step renders, alone: renderSurface over the fold's nodes, then model.render. */
  renderAlone(): RenderedRequest;
  /**
   * The whole request from scratch, as the spine wrote it before requests were written in
   * proportion to the change: renderSurface over fold.nodes(), model.render, canonicalJson of the
   * body and the log's SHA-256 (node:crypto) of all of it. Returns the digest.
   */
  requestFromScratch(): string;
  /** The params the spine sends with every request of this rig. */
  readonly params: ModelParams;
}

export async function openStepRig(store: LogStore, sessionId: string): Promise<StepRig> {
  const model = new InstantModel();
  const harness = createHarness({ store, model, stream: false });
  const session = await harness.openSession(sessionId, 'continued by the spine-step benchmark');
  const params: ModelParams = { tools: [], maxOutputTokens: model.limits.defaultMaxOutputTokens, stream: false };
  let turns = 0;
  return {
    session,
    model,
    params,
    async step() {
      const result = await session.send(`Step ${++turns}: note the state of the build.`);
      if (result.reason !== 'completed' || result.steps !== 1)
        throw new Error(`spine-step: a turn ended ${result.reason} after ${result.steps} steps`);
    },
    renderAlone: () => model.render({ messages: renderSurface(session.log.fold.nodes()), params }),
    requestFromScratch: () => {
      const body = model.render({ messages: renderSurface(session.log.fold.nodes()), params }).body;
      return session.log.sha256.hex(canonicalJson(body));
    },
  };
}
