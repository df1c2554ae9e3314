// Small sessions built by hand for the replay engine's tests: sealed events (through the same
// sealing path writers use) with a model/request before each answer, priced by a meter that
// counts one token per character, so that every surface's tokens can be worked out on paper.

import type { EventDraft, LogEvent } from '../../../src/log/event.js';
import { prepareAppend } from '../../../src/log/seal.js';
import { SurfaceFold } from '../../../src/log/surface-fold.js';
import { SurfaceMeter } from '../../../src/meter/measure.js';
import type { TokenEstimator } from '../../../src/meter/token-estimator.js';

/** One token per UTF-16 unit: a message of text length n costs n + 8 (message and block overhead). */
export const charEstimator: TokenEstimator = { name: 'chars4', exact: false, countText: (text) => text.length };
export const charMeter = () => new SurfaceMeter(charEstimator);

const WORDS = ['the', 'parser', 'reads', 'each', 'line', 'and', 'checks', 'its', 'fields', 'before', 'writing', 'output'];

/** Prose of exactly `length` characters (sentences of real words, ending in a full stop). */
export function prose(length: number, seed = 0): string {
  let text = '';
  let index = seed;
  while (text.length < length) text += `${WORDS[index++ % WORDS.length]} `;
  text = text.slice(0, Math.max(0, length - 1));
  return `${text}.`.slice(-length);
}

/** Text of exactly `length` characters that begins with `start`. */
export function textWith(start: string, length: number, seed = 0): string {
  return `${start} ${prose(Math.max(1, length - start.length - 1), seed)}`.slice(0, length);
}

export interface ToolCallSpec {
  readonly callId: string;
  readonly arguments: Record<string, unknown>;
  readonly result: string;
}

export interface StepSpec {
  readonly answer: string;
  readonly calls?: readonly ToolCallSpec[];
}

export interface TurnSpec {
  readonly user: string;
  readonly steps: readonly StepSpec[];
}

export function buildSession(turns: readonly TurnSpec[], system = 'You are kind'): LogEvent[] {
  const fold = new SurfaceFold();
  const events: LogEvent[] = [];
  const surface: number[] = [];
  let time = Date.parse('2026-01-01T00:00:00.000Z');
  const append = (draft: EventDraft) => {
    const prepared = prepareAppend(fold, [draft], () => new Date(time).toISOString());
    time += 1_000;
    for (const event of prepared.events) {
      events.push(event);
      if (event.surfaceOp === 'append') surface.push(event.seq);
    }
  };
  append({ type: 'session/start', data: { formatVersion: 1, harnessVersion: 'test' } });
  append({ type: 'system/message', data: { content: [{ type: 'text', text: system }] }, surfaceOp: 'append' });
  turns.forEach((turn, turnIndex) => {
    append({ type: 'turn/start', data: { turn: turnIndex + 1 } });
    append({ type: 'user/message', data: { content: [{ type: 'text', text: turn.user }] }, surfaceOp: 'append' });
    turn.steps.forEach((step, stepIndex) => {
      append({
        type: 'model/request',
        data: {
          turn: turnIndex + 1,
          step: stepIndex + 1,
          provider: 'scripted',
          model: 'scripted',
          params: {},
          surfaceSeqs: [...surface],
          requestDigest: 'a'.repeat(64),
          estimatedTokens: 0,
          rendererVersion: '1',
        },
      });
      const calls = step.calls ?? [];
      append({
        type: 'assistant/message',
        data: {
          content: [{ type: 'text', text: step.answer }],
          toolCalls: calls.map((call) => ({ callId: call.callId, name: 'read', arguments: call.arguments })),
          model: 'scripted',
        },
        surfaceOp: 'append',
      });
      for (const call of calls) {
        append({ type: 'tool/result', data: { callId: call.callId, content: [{ type: 'text', text: call.result }] }, surfaceOp: 'append' });
      }
    });
    append({ type: 'turn/end', data: { turn: turnIndex + 1, reason: 'completed' } });
  });
  return events;
}
