// The requests of the coding-agent script with no capability mounted, computed without running
// the spine: the surface only grows, so each request is the previous one plus the nodes appended
// since. Running it is quadratic; computing it is linear, and a benchmark checks the computation
// call by call against the turns it does run.

import { canonicalJson } from '../src/log/canonical-json.js';
import type { ContentBlock, LogEvent, SurfaceType } from '../src/log/event.js';
import type { SessionSeq } from '../src/log/seq.js';
import type { SurfaceNode } from '../src/log/surface-fold.js';
import { SurfaceMeter } from '../src/meter/measure.js';
import { scriptAwareEstimator } from '../src/meter/script-aware.js';
import { renderSurface } from '../src/spine/render-surface.js';
import { AGENT_SYSTEM_PROMPT, type CodingAgentScript } from './coding-agent-script.js';

/** One model call: its turn, the input tokens the scripted model reported, and the meter's count of the surface it was sent. */
export interface CallFigures {
  readonly turn: number;
  readonly usageTokens: number;
  readonly meterTokens: number;
}

/**
 * The requests of the script with no capability, computed without the spine: the surface
 * only grows, so each request is the previous one plus the nodes appended since. Each node is
 * rendered by the spine's own renderSurface and priced by the same meter; the scripted model
 * reports ceil(length of the canonical JSON of the message list / 4) input tokens.
 */
export function computeCallsWithout(script: CodingAgentScript, turns: number): CallFigures[] {
  const meter = new SurfaceMeter(scriptAwareEstimator);
  let nodes = 0;
  let jsonLength = 0;
  let meterTokens = 0;
  const add = (type: SurfaceType, data: Record<string, unknown>) => {
    const node = { seq: 0 as SessionSeq, type, sourceEventSeqs: [], event: { seq: 0, type, data } as unknown as LogEvent } as SurfaceNode;
    jsonLength += canonicalJson(renderSurface([node])[0]).length;
    meterTokens += meter.priceOfData(type, data);
    nodes++;
  };
  // '[' + the messages joined by ',' + ']'
  const usage = () => Math.ceil((2 + jsonLength + (nodes - 1)) / 4);
  const text = (value: string): ContentBlock[] => (value === '' ? [] : [{ type: 'text', text: value }]);
  const calls: CallFigures[] = [];
  add('system/message', { content: text(AGENT_SYSTEM_PROMPT) });
  for (let turn = 1; turn <= turns; turn++) {
    const plan = script.turn(turn);
    add('user/message', { content: text(plan.prompt) });
    for (const call of plan.calls) {
      calls.push({ turn, usageTokens: usage(), meterTokens });
      add('assistant/message', {
        content: text(call.note),
        toolCalls: [{ callId: call.callId, name: call.name, arguments: call.arguments }],
        model: 'scripted',
      });
      add('tool/result', { callId: call.callId, content: text(call.output) });
    }
    calls.push({ turn, usageTokens: usage(), meterTokens });
    add('assistant/message', { content: text(plan.answer), toolCalls: [], model: 'scripted' });
  }
  return calls;
}

/** Fails loudly if the computed calls differ from the measured ones: the computation must be exact. */
export function checkComputed(measured: readonly CallFigures[], computed: readonly CallFigures[]): void {
  for (let index = 0; index < measured.length; index++) {
    const a = measured[index] as CallFigures;
    const b = computed[index];
    if (b === undefined || a.turn !== b.turn || a.usageTokens !== b.usageTokens || a.meterTokens !== b.meterTokens) {
      throw new Error(
        `compaction-session: call ${index + 1} computed as ${JSON.stringify(b)} but measured as ${JSON.stringify(a)}; the computation no longer mirrors the spine`,
      );
    }
  }
}

/**
 * The wall time of the run without compaction over the whole script, extrapolated: each turn's
 * time fitted by least squares as a + b × (the usage tokens of its requests) over the measured
 * turns, then summed over the computed requests of every turn.
 */
export function extrapolateWallMs(
  measuredTurnMs: readonly number[],
  computed: readonly CallFigures[],
  turns: number,
): { ms: number; a: number; b: number } {
  const tokensByTurn = Array.from({ length: turns + 1 }, () => 0);
  for (const call of computed) tokensByTurn[call.turn] = (tokensByTurn[call.turn] as number) + call.usageTokens;
  // The first tenth of the turns is left out of the fit: it includes the warm-up of the JIT.
  const from = Math.max(1, Math.floor(measuredTurnMs.length / 10));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let index = from; index < measuredTurnMs.length; index++) {
    xs.push(tokensByTurn[index + 1] as number);
    ys.push(measuredTurnMs[index] as number);
  }
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (let index = 0; index < xs.length; index++) {
    covariance += ((xs[index] as number) - meanX) * ((ys[index] as number) - meanY);
    variance += ((xs[index] as number) - meanX) ** 2;
  }
  const b = variance > 0 ? covariance / variance : 0;
  const a = meanY - b * meanX;
  let ms = 0;
  for (let turn = 1; turn <= turns; turn++) ms += Math.max(0, a + b * (tokensByTurn[turn] as number));
  return { ms, a, b };
}
