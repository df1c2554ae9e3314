// Synthetic but valid turns for a long session, written as the spine writes them (turn/start,
// the request, model/request with the surface's real seqs, assistant messages with tool calls,
// their results, turn/end) and compactions written as compaction writes them (start, summary
// with the shadowed nodes' prices, the replacing user/message, end), appended in batches. The
// model/request digests are placeholders: these requests were never sent, so replaying one
// fails its digest check, as it should.

import { COMPACTION_END, COMPACTION_START, COMPACTION_SUMMARY } from '../src/compaction/event-types.js';
import type { EventDraft } from '../src/log/event.js';
import { encodeRequestSurface, type RequestSurfaceList } from '../src/log/surface-change.js';
import type { SurfaceNode } from '../src/log/surface-fold.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import { SCRIPTED_RENDERER_VERSION } from '../src/providers/scripted-model.js';
import { SURFACE_RENDERER_VERSION } from '../src/spine/render-surface.js';
import { nodeSha256Hex } from '../src/store/node-sha256.js';
import type { SessionLog } from '../src/store/session-log.js';
import { type CodingAgentScript, SMALL_WINDOW, type TurnPlan } from './coding-agent-script.js';

/** The synthetic part compacts once this many events have landed since the last compaction. */
export const SYNTHETIC_COMPACT_EVERY = 90;
/** Turns left verbatim at the tail by a synthetic compaction. */
const SYNTHETIC_KEEP_TURNS = 2;
/** Synthetic tool results are cut to this many characters, as the pruner would have cut them. */
const SYNTHETIC_MAX_OUTPUT = 8_192;

/** Synthetic, valid turns written like the spine writes them, and compactions like compaction writes them. */
export class SyntheticTurns {
  private readonly meter = new SurfaceMeter(scriptAwareEstimator);
  private compactions = 0;
  /** The latest model/request written (or queued in the batch being built), which the next one's surfaceChange names. */
  private lastRequest: RequestSurfaceList | undefined;

  constructor(
    private readonly log: SessionLog,
    private readonly script: CodingAgentScript,
    private readonly modelId: string,
  ) {}

  /** Appends turns from `firstTurn` until the log holds `until` events; returns the last turn number used. */
  async run(firstTurn: number, until: number): Promise<number> {
    let turn = firstTurn - 1;
    let sinceCompaction = 0;
    const turnEnds: number[] = [];
    while (this.log.nextSeq < until) {
      const batch: EventDraft[] = [];
      const surface = this.log.fold.toArray().map((node) => node.seq as number);
      this.lastRequest = this.log.fold.lastRequestSurface;
      while (sinceCompaction + batch.length < SYNTHETIC_COMPACT_EVERY && this.log.nextSeq + batch.length < until) {
        turn++;
        this.turnDrafts(this.script.turn(turn), this.log.nextSeq, batch, surface);
        turnEnds.push(surface.at(-1) as number);
      }
      await this.log.append(batch);
      sinceCompaction += batch.length;
      if (sinceCompaction >= SYNTHETIC_COMPACT_EVERY) {
        const keepFrom = turnEnds[turnEnds.length - 1 - SYNTHETIC_KEEP_TURNS];
        if (keepFrom !== undefined && this.log.nextSeq < until) await this.compact(keepFrom, turn);
        sinceCompaction = 0;
      }
    }
    return turn;
  }

  /** The drafts of one turn; `surface` (the seqs on the surface) is extended with its nodes. */
  private turnDrafts(plan: TurnPlan, firstSeq: number, batch: EventDraft[], surface: number[]): void {
    const push = (draft: EventDraft) => {
      if (draft.surfaceOp !== undefined) surface.push(firstSeq + batch.length);
      batch.push(draft);
    };
    const text = (value: string) => (value === '' ? [] : [{ type: 'text' as const, text: value }]);
    push({ type: 'turn/start', data: { turn: plan.turn } });
    push({ type: 'user/message', data: { content: text(plan.prompt) }, surfaceOp: 'append' });
    const steps = [...plan.calls, undefined];
    steps.forEach((call, index) => {
      const requestSeq = firstSeq + batch.length;
      push({ type: 'model/request', data: this.modelRequest(plan.turn, index + 1, surface) });
      this.lastRequest = { seq: requestSeq, seqs: [...surface] };
      const usage = { inputTokens: 500 + surface.length * 40, outputTokens: 60 };
      if (call === undefined) {
        push({
          type: 'assistant/message',
          data: { content: text(plan.answer), toolCalls: [], model: this.modelId, usage },
          surfaceOp: 'append',
        });
        return;
      }
      push({
        type: 'assistant/message',
        data: {
          content: text(call.note),
          toolCalls: [{ callId: call.callId, name: call.name, arguments: call.arguments }],
          model: this.modelId,
          usage,
        },
        surfaceOp: 'append',
      });
      push({
        type: 'tool/result',
        data: { callId: call.callId, content: text(call.output.slice(0, SYNTHETIC_MAX_OUTPUT)) },
        surfaceOp: 'append',
      });
    });
    push({ type: 'turn/end', data: { turn: plan.turn, reason: 'completed' } });
  }

  private modelRequest(turn: number, step: number, surface: readonly number[]): object {
    return {
      turn,
      step,
      provider: 'scripted',
      model: this.modelId,
      params: { tools: [], maxOutputTokens: SMALL_WINDOW.defaultMaxOutputTokens, stream: false },
      // As the spine writes it: the change from the previous call (format 2), or the plain list.
      ...(this.log.fold.formatVersion === 1 ? { surfaceSeqs: [...surface] } : encodeRequestSurface(this.lastRequest, surface)),
      // Never sent: a placeholder digest (replaying this call would fail its check, as it should).
      requestDigest: nodeSha256Hex(`synthetic request ${turn}.${step}`),
      estimatedTokens: 500 + surface.length * 40,
      contextWindow: SMALL_WINDOW.contextWindow,
      rendererVersion: `${SURFACE_RENDERER_VERSION} ${SCRIPTED_RENDERER_VERSION}`,
    };
  }

  /** Shadows the surface from position 1 through the node `endSeq` (a turn's last node), as compaction would. */
  private async compact(endSeq: number, turn: number): Promise<void> {
    const nodes = this.log.fold.toArray();
    const end = nodes.findIndex((node) => node.seq === endSeq);
    if (nodes[0]?.type !== 'system/message' || end < 2) return;
    const shadowed: SurfaceNode[] = nodes.slice(1, end + 1);
    const prices = shadowed.map((node) => this.meter.priceOf(node));
    const shadowedTokenCount = prices.reduce((sum, price) => sum + price, 0);
    const compactionId = `synthetic-${++this.compactions}`;
    const summary = `Earlier context was compacted: ${shadowed.length} earlier messages were replaced by this summary.\n<compacted-summary>\n${this.script.turn(turn).answer.slice(0, 1_500)}\n</compacted-summary>`;
    const summaryTokens = this.meter.priceOfText('user/message', summary);
    const summarySeq = this.log.nextSeq + 1;
    await this.log.append([
      { type: COMPACTION_START, data: { compactionId, trigger: 'pressure', turn }, ignorable: true },
      {
        type: COMPACTION_SUMMARY,
        data: {
          compactionId,
          shadowedSeqs: shadowed.map((node) => node.seq),
          shadowedTokenCount,
          shadowedTokens: prices,
          provider: 'shadowlog',
          model: 'extractive',
          usage: null,
          requestDigest: null,
          rendererVersion: null,
          summarizer: 'extractive',
          trigger: 'pressure',
          tokensBefore: shadowedTokenCount,
          tokensAfter: summaryTokens,
          summaryTokens,
          durationMs: 0,
          maxTokens: 8_192,
        },
        ignorable: true,
      },
      {
        type: 'user/message',
        data: { content: [{ type: 'text', text: summary }] },
        surfaceOp: { op: 'replace', startSeq: shadowed[0]?.seq as never, endSeq: endSeq as never },
        sourceEventSeqs: [...shadowed.map((node) => node.seq), summarySeq as never],
      },
      { type: COMPACTION_END, data: { compactionId }, ignorable: true },
    ]);
    for (const node of shadowed) this.meter.forget(node.seq);
  }

  get compactionCount(): number {
    return this.compactions;
  }
}
