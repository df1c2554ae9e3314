// Range selection (SPEC §7 step 3).

import { describe, expect, it } from 'vitest';
import { selectRange } from '../../src/compaction/select-range.js';
import type { EventDraft } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { drafts, fixedNow } from '../support/events.js';

function surface(list: EventDraft[]) {
  const fold = new SurfaceFold();
  prepareAppend(fold, [drafts.start(), ...list], fixedNow);
  return fold.toArray();
}

describe('selectRange', () => {
  // seqs: 1 system, 2 user, 3 assistant(call a), 4 result a, 5 assistant, 6 user, 7 assistant
  const nodes = surface([
    drafts.system(),
    drafts.user('u1'),
    drafts.assistant('calls', ['a']),
    drafts.toolResult('a', 'result'),
    drafts.assistant('a1'),
    drafts.user('u2'),
    drafts.assistant('a2'),
  ]);
  const tens = nodes.map(() => 10);

  it('pins the system message and keeps a tail of at most `retain` tokens', () => {
    expect(selectRange(nodes, tens, 20)).toEqual({ startSeq: 2, endSeq: 5, seqs: [2, 3, 4, 5], prices: [10, 10, 10, 10] });
    expect(selectRange(nodes, tens, 29)?.seqs).toEqual([2, 3, 4, 5]);
    expect(selectRange(nodes, tens, 0)?.seqs).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it('moves the cut toward the head rather than separate a tool call from its result', () => {
    // A tail of 40 would start at the result (seq 4), splitting it from its call (seq 3).
    expect(selectRange(nodes, tens, 40)?.seqs).toEqual([2]);
  });

  it('never shadows a call whose result has not arrived yet', () => {
    const pending = surface([
      drafts.system(),
      drafts.user('u1'),
      drafts.assistant('a1'),
      drafts.user('u2'),
      drafts.assistant('calls', ['b']),
    ]);
    expect(
      selectRange(
        pending,
        pending.map(() => 10),
        0,
      )?.seqs,
    ).toEqual([2, 3, 4]);
  });

  it('selects nothing when everything is the pinned head or the tail', () => {
    expect(selectRange(nodes, tens, 1000)).toBeUndefined();
    expect(selectRange(surface([drafts.system()]), [10], 0)).toBeUndefined();
    const noSystem = surface([drafts.user('only')]);
    expect(selectRange(noSystem, [10], 0)?.seqs).toEqual([1]);
  });
});
