// The trace tune replays (src/tune/trace.ts) on a proxied session: a call the proxy recorded off
// the surface (proxy.unmatched: its messages could not be written as a change of the surface)
// sent a body of its own, so it is no call of the surface to replay or to price.

import { describe, expect, it } from 'vitest';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { buildTrace } from '../../src/tune/trace.js';
import { buildSession, charMeter } from './support/hand-built.js';

/** The events sealed again as a format 2 session (proxied calls are format 2), with an off-surface call at the end. */
function withOffSurfaceCall(events: readonly LogEvent[]): LogEvent[] {
  const fold = new SurfaceFold();
  const drafts: EventDraft[] = events.map((event) => ({
    type: event.type,
    data: event.type === 'session/start' ? { ...event.data, formatVersion: 2 } : event.data,
    ...(event.surfaceOp === undefined ? {} : { surfaceOp: event.surfaceOp }),
    ...(event.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: event.sourceEventSeqs }),
  }));
  const sealed = prepareAppend(fold, drafts, () => '2026-01-01T00:00:00.000Z').events;
  const surfaceSeqs = fold.toArray().map((node) => node.seq);
  const call: EventDraft[] = [
    {
      type: 'model/request',
      data: {
        turn: 3,
        step: 1,
        provider: 'openai',
        model: 'gpt-4o',
        provenance: 'proxied',
        requestDigest: 'b'.repeat(64),
        requestBody: { encoding: 'utf-8', text: '{"model":"gpt-4o","messages":[{"role":"tool","tool_call_id":"x","content":"y"}]}' },
        surfaceSeqs,
        proxy: { protocol: 'openai-chat', path: '/v1/chat/completions', unmatched: "the request's messages cannot be written" },
      },
    },
  ];
  return [...sealed, ...prepareAppend(fold, call, () => '2026-01-01T00:01:00.000Z').events];
}

describe('tune trace', () => {
  it('counts no call for a proxied request off the surface', () => {
    const turns = [1, 2].map((turn) => ({ user: `question ${turn}`, steps: [{ answer: `answer ${turn}` }] }));
    const plain = buildSession(turns);
    const trace = buildTrace('proxied', withOffSurfaceCall(plain), charMeter(), { window: 10_000 });
    expect(trace.calls.length).toBe(buildTrace('plain', plain, charMeter(), { window: 10_000 }).calls.length);
    expect(trace.calls.length).toBe(2);
  });
});
