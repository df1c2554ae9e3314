// Builders for sealed test events, through the same sealing path writers use.

import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';

export const FIXED_TIME = '2026-01-01T00:00:00.000Z';
export const fixedNow = () => FIXED_TIME;

export function text(value: string) {
  return [{ type: 'text' as const, text: value }];
}

export const drafts = {
  /** A format-1 session: most tests of the fold were written against version 1, which it still reads. */
  start: (): EventDraft => ({ type: 'session/start', data: { formatVersion: 1, harnessVersion: 'test' } }),
  startV2: (data: Record<string, unknown> = {}): EventDraft => ({
    type: 'session/start',
    data: { formatVersion: 2, harnessVersion: 'test', ...data },
  }),
  system: (value = 'You are a careful agent.'): EventDraft => ({
    type: 'system/message',
    data: { content: text(value) },
    surfaceOp: 'append',
  }),
  user: (value: string): EventDraft => ({ type: 'user/message', data: { content: text(value) }, surfaceOp: 'append' }),
  assistant: (value: string, callIds: string[] = []): EventDraft => ({
    type: 'assistant/message',
    data: {
      content: text(value),
      toolCalls: callIds.map((callId) => ({ callId, name: 'read_file', arguments: { path: `${callId}.ts` } })),
      model: 'scripted',
    },
    surfaceOp: 'append',
  }),
  toolResult: (callId: string, value: string): EventDraft => ({
    type: 'tool/result',
    data: { callId, content: text(value) },
    surfaceOp: 'append',
  }),
  turnStart: (turn: number): EventDraft => ({ type: 'turn/start', data: { turn } }),
  summary: (value: string, startSeq: number, endSeq: number, sourceEventSeqs: number[]): EventDraft => ({
    type: 'user/message',
    data: { content: text(value) },
    surfaceOp: { op: 'replace', startSeq, endSeq } as EventDraft['surfaceOp'] & object,
    sourceEventSeqs,
  }),
};

/** Seals drafts into a fresh log (throws if any is refused). */
export function sealLog(list: readonly EventDraft[]): LogEvent[] {
  const fold = new SurfaceFold();
  return [...prepareAppend(fold, list, fixedNow).events];
}

/** A small valid session: system, a user turn with one tool call and result, an answer. */
export function sampleDrafts(): EventDraft[] {
  return [
    drafts.start(),
    drafts.system(),
    drafts.turnStart(1),
    drafts.user('Fix the failing test.'),
    drafts.assistant('Reading the test.', ['call-1']),
    drafts.toolResult('call-1', 'expect(add(1, 2)).toBe(4)'),
    drafts.assistant('The expectation is wrong; 1 + 2 is 3.'),
  ];
}
