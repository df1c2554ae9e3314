// The change of the surface from one call to the next, as the audit page's panel lists it and
// `shadowlog diff` prints it (one function for both). A replacement stands for the nodes of the
// earlier surface through every replacement made in between: a tool result pruned after it was
// sent and then summarized with the rest before the next call is replaced, not "gone without a
// replacement" (what the page said when it read a replacement's direct sources only).

import { beforeAll, describe, expect, it } from 'vitest';
import { encodeCallRow } from '../../src/view/client/page-blocks.js';
import { SessionModel } from '../../src/view/client/session-model.js';
import type { ClientEvent } from '../../src/view/client/text.js';
import { callSummaryOf } from '../../src/view/page-delta.js';
import type { CallView } from '../../src/view/view-data.js';

function event(seq: number, type: string, sourceEventSeqs?: number[]): ClientEvent {
  return {
    seq,
    type,
    time: '2026-01-01T00:00:00.000Z',
    hash: String(seq),
    data: {},
    ...(sourceEventSeqs === undefined
      ? {}
      : { surfaceOp: { op: 'replace', startSeq: sourceEventSeqs[0], endSeq: sourceEventSeqs[0] }, sourceEventSeqs }),
  };
}

function call(seq: number, turn: number, step: number, surfaceSeqs: number[]): CallView {
  return {
    seq,
    turn,
    step,
    provider: 'scripted',
    model: 'm',
    provenance: 'sent',
    rendererVersion: null,
    recordedDigest: null,
    estimatedTokens: null,
    contextWindow: null,
    surface: { surfaceSeqs },
    surfaceLength: surfaceSeqs.length,
    check: { status: 'pending', digest: null },
  };
}

describe("the page's change from one call to the next", () => {
  const model = new SessionModel();
  const events = [
    event(0, 'session/start'),
    event(1, 'system/message'),
    event(2, 'user/message'),
    event(3, 'model/request'),
    event(4, 'assistant/message'),
    event(5, 'tool/result'),
    event(6, 'model/request'),
    event(7, 'compaction/prune'),
    event(8, 'tool/result', [5, 7]),
    event(9, 'compaction/summary'),
    event(10, 'user/message', [2, 4, 8, 9]),
    event(11, 'tool/result'),
    event(12, 'compaction/prune'),
    event(13, 'tool/result', [11, 12]),
    event(14, 'model/request'),
  ];
  const calls = [call(3, 1, 1, [1, 2]), call(6, 1, 2, [1, 2, 4, 5]), call(14, 1, 3, [1, 10, 13])];
  const typeNames = [...new Set(events.map((each) => each.type))];
  model.merge({
    sessionId: 's',
    fromSeq: 0,
    toSeq: events.length,
    headHash: null,
    structure: {
      typeNames,
      types: events.map((each) => typeNames.indexOf(each.type)),
      sources: events.flatMap((each) => (each.sourceEventSeqs === undefined ? [] : [[each.seq, 1, ...each.sourceEventSeqs]])),
      copies: [],
      turns: [],
    },
    calls: calls.map((each) => encodeCallRow(callSummaryOf(each))),
    compactions: [],
    prunes: [],
    policies: [],
    chain: { intact: true, firstBrokenSeq: null },
    problems: [],
  });
  model.source = {
    eventBlock: async () => events,
    callBlock: async () => calls,
    search: async () => ({ seqs: [], truncated: false }),
  };
  beforeAll(() => model.loadCalls([0, 1, 2]));

  it('follows a replacement through the ones made in between, down to the nodes the earlier call was sent', () => {
    expect(model.diffOf(2)).toEqual({
      appended: [13],
      appendedReplacements: [{ seq: 13, shadowed: [], kind: 'pruned', since: [11], via: [] }],
      replaced: [{ seq: 10, shadowed: [2, 4, 5], kind: 'compacted', since: [], via: [8] }],
      removed: [],
    });
  });

  it('lists what the first call was sent as appended, and an unchanged step as no change', () => {
    expect(model.diffOf(0)).toMatchObject({ appended: [1, 2], replaced: [], removed: [] });
    expect(model.diffOf(1)).toMatchObject({ appended: [4, 5], replaced: [], removed: [] });
  });
});
