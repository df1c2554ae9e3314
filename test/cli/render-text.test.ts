// The human rendering of events the record may hold since answers are kept as they arrived:
// a call's arguments as the model wrote them, the provider's id beside the session's, and an
// answer that could not be recorded as a message.

import { describe, expect, it } from 'vitest';
import { describeRange, renderLogOnlyEvent, renderMessage } from '../../src/cli/render-text.js';
import type { LogEvent } from '../../src/log/event.js';
import type { SessionSeq } from '../../src/log/seq.js';

const event = (type: string, data: Record<string, unknown>, surface = false): LogEvent => ({
  seq: 7 as SessionSeq,
  type,
  time: '2026-01-01T00:00:00.000Z',
  data: data as LogEvent['data'],
  ...(surface ? { surfaceOp: 'append' as const } : {}),
  hash: '0'.repeat(64),
});

describe('rendering kept answers', () => {
  it('shows arguments as the model wrote them and the id the provider sent', () => {
    const text = renderMessage(
      event(
        'assistant/message',
        {
          content: [],
          model: 'm',
          toolCalls: [
            {
              callId: 'shadowlog-call-7-0',
              providerCallId: 'call_0',
              name: 'read_file',
              arguments: 'README.md',
              argumentsText: '"README.md"',
            },
            { callId: 'c2', name: 'read_file', arguments: { path: 'a.ts' } },
          ],
        },
        true,
      ),
      { maxChars: 0 },
    );
    expect(text).toContain('→ calls read_file("README.md") [shadowlog-call-7-0, sent by the provider as "call_0"]');
    expect(text).toContain('→ calls read_file({"path":"a.ts"}) [c2]');
  });

  it('shows an unrecorded answer with its reason and its raw text', () => {
    const text = renderLogOnlyEvent(
      event('model/unrecorded-answer', {
        turn: 2,
        step: 1,
        code: 'INVALID_EVENT',
        message: 'arguments cannot be stored',
        raw: { format: 'json', text: '{"choices":[]}' },
      }),
    );
    expect(text).toMatch(
      /^#7 !! answer kept as it arrived, turn 2 step 1 .*INVALID_EVENT: arguments cannot be stored; 14 characters of json/,
    );
    expect(text).toContain('{"choices":[]}');
  });
});

describe('rendering a prune', () => {
  const prune = (extra: Record<string, unknown>) =>
    renderLogOnlyEvent(
      event('compaction/prune', {
        shadowedSeqs: [5],
        shadowedTokenCount: 900,
        replacementTokenCount: 300,
        charsBefore: 4000,
        charsAfter: 1200,
        ...extra,
      }),
    );

  it('says when the result was cut before the model was ever sent it', () => {
    expect(prune({ unseen: true })).toBe(
      '#7 ── pruned tool result #5: 4000 → 1200 characters (900 → 300 tokens); before its first send: the model never saw it whole',
    );
    expect(prune({})).toBe('#7 ── pruned tool result #5: 4000 → 1200 characters (900 → 300 tokens)');
  });
});

describe('naming the range a replacement shadows', () => {
  const replacement = (startSeq: number, endSeq: number, sources: number[]): LogEvent => ({
    ...event('user/message', { content: [{ type: 'text', text: 'summary' }] }),
    surfaceOp: { op: 'replace', startSeq: startSeq as SessionSeq, endSeq: endSeq as SessionSeq },
    sourceEventSeqs: sources as SessionSeq[],
  });

  it('names a range whose first node is an earlier replacement without making it look reversed', () => {
    expect(describeRange(replacement(83, 80, [78, 79, 80, 83]))).toBe(
      'replaces #83 (first on the surface) to #80 (sources #78 #79 #80 #83)',
    );
  });

  it('names an ordinary range and a single node by their seqs', () => {
    expect(describeRange(replacement(3, 5, [3, 4, 5]))).toBe('replaces #3–#5 (sources #3 #4 #5)');
    expect(describeRange(replacement(4, 4, [4]))).toBe('replaces #4 (sources #4)');
  });
});
