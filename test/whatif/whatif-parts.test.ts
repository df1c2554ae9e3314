// The small parts of what-if calls: a copy of another session's event (copyOf {sessionId, seq}),
// the session/start link, the answer key and counts, and the line diff.

import { describe, expect, it } from 'vitest';
import {
  asSessionSeq,
  CorruptLogError,
  copiedEventOf,
  copyOfSeq,
  InvalidEventError,
  type JsonObject,
  origins,
} from '../../src/log/index.js';
import { MemoryLogStore, SessionLog } from '../../src/store/index.js';
import { type Answer, answerCounts, answerKey, diffLines } from '../../src/whatif/index.js';

const text = (value: string) => [{ type: 'text' as const, text: value }];

describe('a copy of another session’s event', () => {
  it('names it, and stands for itself in its own session', async () => {
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 'w');
    const [copy] = await log.append([
      { type: 'user/message', data: { content: text('hi'), copyOf: { sessionId: 'audited', seq: 7 } }, surfaceOp: 'append' },
    ]);
    if (copy === undefined) throw new Error('append returns the sealed events');
    expect(copiedEventOf(copy)).toEqual({ sessionId: 'audited', seq: 7 });
    expect(copyOfSeq(copy)).toBeUndefined();
    expect(await origins(copy.seq, (seq) => store.readEvent('w', seq))).toEqual([copy.seq]);
  });

  it('is refused when it names neither an earlier seq nor {sessionId, seq}', () => {
    const event = (copyOf: unknown) => ({ seq: asSessionSeq(3), data: { copyOf } as unknown as JsonObject });
    expect(() => copiedEventOf(event({ sessionId: 'bad id', seq: 1 }))).toThrow(CorruptLogError);
    expect(() => copiedEventOf(event({ sessionId: 'a', seq: -1 }))).toThrow(
      /data\.copyOf must be the seq of an earlier event or \{sessionId, seq\}/,
    );
    expect(() => copiedEventOf(event(5))).toThrow(CorruptLogError);
    expect(copiedEventOf(event(2))).toEqual({ seq: 2 });
  });

  it('a session/start link to the audited call is checked like any field', async () => {
    const store = new MemoryLogStore();
    const link = {
      sessionId: 'audited',
      requestSeq: 49,
      turn: 5,
      step: 1,
      question: { restore: 'all' },
      variant: 'counterfactual' as const,
      sample: 1,
      run: 'w',
    };
    await SessionLog.create(store, 'w', { whatif: link });
    expect((await store.readEvent('w', 0)).data.whatif).toEqual(link);
    await expect(SessionLog.create(store, 'x', { whatif: { ...link, variant: 'other' as never } })).rejects.toThrow(InvalidEventError);
  });
});

describe('answers', () => {
  const answer = (fields: Partial<Answer>): Answer => ({
    text: '',
    toolCalls: [],
    stopReason: 'stop',
    stopReasonInferred: false,
    usage: null,
    error: null,
    ...fields,
  });

  it('are the same answer by their tool calls, else by their text with its whitespace made one space', () => {
    expect(answerKey(answer({ text: 'Seoul,\n  with 293 items. ' }))).toBe(answerKey(answer({ text: 'Seoul, with 293 items.' })));
    expect(answerKey(answer({ text: 'a', toolCalls: [{ name: 'read', arguments: { b: 1, a: 2 } }] }))).toBe(
      answerKey(answer({ text: 'b', toolCalls: [{ name: 'read', arguments: { a: 2, b: 1 } }] })),
    );
    expect(answerKey(answer({ error: { code: 'PROVIDER_RATE_LIMIT', message: '…' } }))).toBe('error: PROVIDER_RATE_LIMIT');
  });

  it('are counted, most frequent first, ties in the order they first came', () => {
    const counts = answerCounts([answer({ text: 'b' }), answer({ text: 'a' }), answer({ text: 'a' }), answer({ text: 'c' })]);
    expect(counts).toEqual([
      { key: 'text: a', count: 2 },
      { key: 'text: b', count: 1 },
      { key: 'text: c', count: 1 },
    ]);
  });
});

describe('the line diff', () => {
  it('keeps the lines both share and marks the others', () => {
    expect(diffLines(['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toEqual([
      { op: ' ', line: 'a' },
      { op: '-', line: 'b' },
      { op: '+', line: 'x' },
      { op: ' ', line: 'c' },
      { op: '+', line: 'd' },
    ]);
    expect(diffLines([], ['a'])).toEqual([{ op: '+', line: 'a' }]);
  });
});
