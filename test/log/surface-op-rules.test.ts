// Every rule of SPEC §3, broken one at a time. Each rejection must be a typed error, and must
// leave both the store and the in-memory fold exactly as they were ("nothing is written").

import { describe, expect, it } from 'vitest';
import { InvalidEventError, SurfaceOpError, type SurfaceOpRule, UnknownEventTypeError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { computeEventHash } from '../../src/log/hash.js';
import { prepareAppend } from '../../src/log/seal.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { SessionLog } from '../../src/store/session-log.js';
import { drafts, fixedNow } from '../support/events.js';
import { createTestRegistry, moreDrafts, rawSurfaceOp, replaceOp } from '../support/log-drafts.js';

// The base session, after SessionLog.create wrote session/start at seq 0.
// Surface: 1 3 4 5 6 8 9 10 11 12; log-only: 0 2 7.
const BASE: readonly EventDraft[] = [
  drafts.system(), // 1
  drafts.turnStart(1), // 2
  drafts.user('u1'), // 3
  drafts.assistant('a1', ['c1']), // 4
  drafts.toolResult('c1', 'r1'), // 5
  drafts.assistant('a2'), // 6
  moreDrafts.modelRequest(1, 2, [1, 3, 4, 5, 6]), // 7: the surface it was rendered from
  drafts.user('u2'), // 8
  drafts.assistant('a3', ['c2', 'c3']), // 9
  drafts.toolResult('c2', 'r2'), // 10
  drafts.toolResult('c3', 'r3'), // 11
  drafts.assistant('a4'), // 12
];
const BASE_NEXT = 13;

// BASE with turn 1 (3..6) compacted into a summary node 14, which stands early on the surface
// with the highest seq. Surface: 1 14 8 9 10 11 12.
const COMPACTED: readonly EventDraft[] = [
  ...BASE,
  moreDrafts.compactionSummary('k1', [3, 4, 5, 6]), // 13
  moreDrafts.userReplace('Earlier context was compacted.', 3, 6, [3, 4, 5, 6, 13]), // 14
];
const COMPACTED_NEXT = 15;

interface Fixture {
  readonly store: MemoryLogStore;
  readonly log: SessionLog;
}

async function open(list: readonly EventDraft[], options: { registry?: boolean } = {}): Promise<Fixture> {
  const store = new MemoryLogStore();
  const log = await SessionLog.create(
    store,
    'rules',
    options.registry === false ? { now: fixedNow } : { now: fixedNow, registry: createTestRegistry() },
  );
  if (list.length > 0) await log.append(list);
  return { store, log };
}

async function storedEvents(fixture: Fixture): Promise<LogEvent[]> {
  const events: LogEvent[] = [];
  for await (const page of fixture.store.read(fixture.log.sessionId)) events.push(...page);
  return events;
}

function surfaceOf(fold: SurfaceFold) {
  return fold.toArray().map((node) => ({ seq: node.seq, type: node.type, sourceEventSeqs: [...node.sourceEventSeqs] }));
}

function surfaceSeqs(fixture: Fixture): number[] {
  return fixture.log.fold.toArray().map((node) => node.seq);
}

async function snapshot(fixture: Fixture) {
  return {
    head: await fixture.store.head(fixture.log.sessionId),
    events: await storedEvents(fixture),
    nextSeq: fixture.log.fold.nextSeq,
    lastHash: fixture.log.fold.lastHash,
    size: fixture.log.fold.size,
    surface: surfaceOf(fixture.log.fold),
  };
}

/** Appends `batch`, expects a rejection, checks that nothing changed, and returns the error. */
async function rejection(fixture: Fixture, batch: readonly EventDraft[]): Promise<unknown> {
  const before = await snapshot(fixture);
  let caught: unknown;
  try {
    await fixture.log.append(batch);
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the append should have been rejected').toBeDefined();
  expect(await snapshot(fixture)).toEqual(before);
  return caught;
}

async function expectRule(fixture: Fixture, batch: readonly EventDraft[], rule: SurfaceOpRule): Promise<SurfaceOpError> {
  const error = await rejection(fixture, batch);
  expect(error).toBeInstanceOf(SurfaceOpError);
  const surfaceOpError = error as SurfaceOpError;
  expect({ rule: surfaceOpError.rule, code: surfaceOpError.code }).toEqual({ rule, code: 'INVALID_SURFACE_OP' });
  // The error names the event that broke the rule: the last one of the batch here.
  expect(surfaceOpError.seq).toBe(fixture.log.nextSeq + batch.length - 1);
  return surfaceOpError;
}

async function expectAccepted(fixture: Fixture, batch: readonly EventDraft[]): Promise<readonly LogEvent[]> {
  const before = fixture.log.nextSeq;
  const written = await fixture.log.append(batch);
  expect(written.map((event) => event.seq)).toEqual(batch.map((_, index) => before + index));
  expect((await fixture.store.head(fixture.log.sessionId))?.nextSeq).toBe(before + batch.length);
  return written;
}

function userMessageWith(surfaceOp: unknown, sourceEventSeqs?: number[]): EventDraft {
  const draft: EventDraft = {
    type: 'user/message',
    data: { content: [{ type: 'text', text: 'summary' }] },
    surfaceOp: rawSurfaceOp(surfaceOp),
  };
  return sourceEventSeqs === undefined ? draft : { ...draft, sourceEventSeqs };
}

describe('SPEC §3: the shape of a replace', () => {
  it('accepts exactly {op, startSeq, endSeq} (the control case)', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [userMessageWith({ op: 'replace', startSeq: 12, endSeq: 12 }, [12])]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 8, 9, 10, 11, BASE_NEXT]);
  });

  it.each([
    ['start/end aliases', { op: 'replace', start: 12, end: 12 }],
    ['from/to aliases', { op: 'replace', from: 12, to: 12 }],
    ['an alias beside the real key', { op: 'replace', startSeq: 12, end: 12 }],
    ['both the real keys and aliases', { op: 'replace', startSeq: 12, endSeq: 12, start: 12, end: 12 }],
    ['an extra key', { op: 'replace', startSeq: 12, endSeq: 12, reason: 'pressure' }],
    ['a missing endSeq', { op: 'replace', startSeq: 12 }],
    ['a missing startSeq', { op: 'replace', endSeq: 12 }],
    ['a missing op', { startSeq: 12, endSeq: 12 }],
    ['op other than replace', { op: 'shadow', startSeq: 12, endSeq: 12 }],
    ['op in another case', { op: 'Replace', startSeq: 12, endSeq: 12 }],
    ['a string other than append', 'prepend'],
    ['null', null],
    ['an array', ['replace', 12, 12]],
    ['a fractional startSeq', { op: 'replace', startSeq: 11.5, endSeq: 12 }],
    ['a fractional endSeq', { op: 'replace', startSeq: 12, endSeq: 12.5 }],
    ['a seq written as a string', { op: 'replace', startSeq: '12', endSeq: 12 }],
    ['a negative seq', { op: 'replace', startSeq: -1, endSeq: 12 }],
    ['an unsafe integer', { op: 'replace', startSeq: 12, endSeq: 2 ** 53 }],
    ['a boolean seq', { op: 'replace', startSeq: true, endSeq: 12 }],
  ])('rejects %s as malformed', async (_, surfaceOp) => {
    const fixture = await open(BASE);
    await expectRule(fixture, [userMessageWith(surfaceOp, [12])], 'malformed');
  });

  it('rejects a surface event without a surfaceOp', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [{ type: 'user/message', data: { content: [{ type: 'text', text: 'x' }] } }], 'malformed');
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
  ])('rejects a %s seq with InvalidEventError (JSON cannot carry it)', async (_, bad) => {
    const fixture = await open(BASE);
    const error = await rejection(fixture, [userMessageWith({ op: 'replace', startSeq: bad, endSeq: 12 }, [12])]);
    expect(error).toBeInstanceOf(InvalidEventError);
  });
});

describe('SPEC §3: startSeq and endSeq are current surface nodes before the event', () => {
  it('rejects a startSeq that is already shadowed', async () => {
    const fixture = await open(COMPACTED);
    await expectRule(fixture, [moreDrafts.userReplace('s', 4, 8, [4, 5, 6, 14, 8])], 'not-current');
  });

  it('rejects an endSeq that is already shadowed', async () => {
    const fixture = await open(COMPACTED);
    await expectRule(fixture, [moreDrafts.userReplace('s', 1, 6, [1, 14, 6])], 'not-current');
  });

  it.each([
    ['a model/request as startSeq', 7, 8],
    ['a turn/start as startSeq', 2, 6],
    ['session/start as startSeq', 0, 3],
    ['a model/request as endSeq', 3, 7],
  ])('rejects a log-only event: %s', async (_, startSeq, endSeq) => {
    const fixture = await open(BASE);
    await expectRule(
      fixture,
      [
        moreDrafts.userReplace(
          's',
          startSeq,
          endSeq,
          [3, 4, 5, 6, 8].filter((s) => s >= startSeq),
        ),
      ],
      'not-current',
    );
  });

  it('rejects a seq from the future', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 99, [12])], 'not-before');
  });

  it('rejects an endSeq equal to the event’s own seq', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, BASE_NEXT, [12])], 'not-before');
  });

  it('rejects a startSeq equal to the event’s own seq, even when endSeq is fine', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', BASE_NEXT, 12, [12])], 'not-before');
  });

  it('rejects a range over an event appended earlier in the same batch at its own seq', async () => {
    const fixture = await open(BASE);
    // The user message lands at 13; the replace is 14 and names itself as the end.
    await expectRule(fixture, [drafts.user('u3'), moreDrafts.userReplace('s', 13, 14, [13])], 'not-before');
  });
});

describe('SPEC §3: startSeq must not stand after endSeq by surface position', () => {
  it('rejects a range whose start stands after its end', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 8, [8, 9, 10, 11, 12])], 'out-of-order');
  });

  it('rejects a numerically ascending range whose high-seq summary end stands before its start', async () => {
    const fixture = await open(COMPACTED);
    // 8 < 14, but the summary node 14 stands at position 1 and 8 at position 2.
    await expectRule(fixture, [moreDrafts.userReplace('s', 8, 14, [8, 14])], 'out-of-order');
  });

  it('accepts a range that starts at an early-standing high-seq summary and ends at a lower seq later', async () => {
    const fixture = await open(COMPACTED);
    await expectAccepted(fixture, [
      moreDrafts.compactionSummary('k2', [14, 8]), // 15
      moreDrafts.userReplace('Summary of the summary and u2.', 14, 8, [14, 8, 15]), // 16
    ]);
    expect(surfaceSeqs(fixture)).toEqual([1, 16, 9, 10, 11, 12]);
    expect(fixture.log.fold.node(16)?.sourceEventSeqs).toEqual([14, 8, 15]);
  });

  it('accepts a range from the high-seq summary to the tail', async () => {
    const fixture = await open(COMPACTED);
    await expectAccepted(fixture, [moreDrafts.userReplace('all', 14, 12, [14, 8, 9, 10, 11, 12])]);
    expect(surfaceSeqs(fixture)).toEqual([1, COMPACTED_NEXT]);
  });

  it('accepts a single-node range (startSeq equal to endSeq)', async () => {
    const fixture = await open(COMPACTED);
    await expectAccepted(fixture, [moreDrafts.userReplace('again', 14, 14, [14])]);
    expect(surfaceSeqs(fixture)).toEqual([1, COMPACTED_NEXT, 8, 9, 10, 11, 12]);
  });
});

describe('SPEC §3: sourceEventSeqs', () => {
  it('rejects an empty list', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 12, [])], 'sources-malformed');
  });

  it('rejects a missing list on a replace', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [userMessageWith(replaceOp(12, 12))], 'sources-malformed');
  });

  it('rejects a list that is not an array', async () => {
    const fixture = await open(BASE);
    const draft = { ...moreDrafts.userReplace('s', 12, 12, [12]), sourceEventSeqs: 12 as unknown as number[] };
    await expectRule(fixture, [draft], 'sources-malformed');
  });

  it('rejects a seq listed twice', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 12, [12, 12])], 'sources-malformed');
  });

  it.each([
    ['its own seq', BASE_NEXT],
    ['a later seq', BASE_NEXT + 5],
    ['a negative number', -1],
    ['a fraction', 7.5],
  ])('rejects a list holding %s', async (_, bad) => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 12, [12, bad])], 'sources-malformed');
  });

  it('rejects a list that misses shadowed nodes, naming them in missingSeqs', async () => {
    const fixture = await open(BASE);
    const error = await expectRule(fixture, [moreDrafts.userReplace('s', 8, 12, [8, 9, 12])], 'sources-missing');
    expect([...error.missingSeqs].sort((a, b) => a - b)).toEqual([10, 11]);
    expect(error.message).toMatch(/10/);
    expect(error.message).toMatch(/11/);
  });

  it('rejects listing a summary’s originals instead of the summary node it shadows (an exact list, not a range)', async () => {
    const fixture = await open(COMPACTED);
    const error = await expectRule(fixture, [moreDrafts.userReplace('s', 14, 8, [3, 4, 5, 6, 8])], 'sources-missing');
    expect([...error.missingSeqs]).toEqual([14]);
  });

  it('rejects listing a current surface event that the range does not shadow', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 12, 12, [12, 8])], 'sources-foreign');
  });

  it('rejects listing a surface event that an earlier replace already shadowed', async () => {
    const fixture = await open(COMPACTED);
    await expectRule(fixture, [moreDrafts.userReplace('s', 14, 14, [14, 3])], 'sources-foreign');
  });

  it('accepts extra log-only events that belong to the replacement: its compaction/start and metering event', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [
      moreDrafts.compactionStart('k1'), // 13
      moreDrafts.compactionSummary('k1', [8, 9, 10, 11, 12]), // 14
      moreDrafts.userReplace('s', 8, 12, [14, 12, 11, 10, 9, 8, 13]), // 15
    ]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 15]);
    expect(fixture.log.fold.node(15)?.sourceEventSeqs).toEqual([14, 12, 11, 10, 9, 8, 13]);
  });

  it('accepts a pruner-style list: the shadowed tool/result and its compaction/prune', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [moreDrafts.compactionPrune(5), moreDrafts.toolResultReplace('c1', 'pruned', 5, 5, [5, 13])]);
    expect(fixture.log.fold.node(14)?.sourceEventSeqs).toEqual([5, 13]);
  });

  it('rejects sourceEventSeqs on an appended event', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [{ ...drafts.user('u3'), sourceEventSeqs: [12] }], 'sources-malformed');
  });
});

describe('SPEC §3: tool calls and their results stay together', () => {
  it('rejects a range that takes a call but leaves its result (call side)', async () => {
    const fixture = await open(BASE);
    // 9 calls c2 and c3; the range takes the result of c2 (10) but not of c3 (11).
    await expectRule(fixture, [moreDrafts.userReplace('s', 8, 10, [8, 9, 10])], 'splits-tool-pair');
  });

  it('rejects a range over the calling assistant message alone', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 3, 4, [3, 4])], 'splits-tool-pair');
  });

  it('rejects a range that takes a result but leaves its call (result side)', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.userReplace('s', 11, 12, [11, 12])], 'splits-tool-pair');
  });

  it('rejects a non-tool/result replacement over a single result', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.assistantReplace('s', 5, 5, [5])], 'splits-tool-pair');
  });

  it('accepts ranges that keep every pair together', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [
      moreDrafts.userReplace('turn 1', 3, 6, [3, 4, 5, 6]),
      moreDrafts.userReplace('calls', 9, 11, [9, 10, 11]),
    ]);
    expect(surfaceSeqs(fixture)).toEqual([1, 13, 8, 14, 12]);
  });

  it('refuses a result whose call was shadowed, and a second result for a call', async () => {
    const fixture = await open(COMPACTED);
    await expectRule(fixture, [drafts.toolResult('c1', 'late')], 'tool-call-unknown');
    await expectRule(fixture, [drafts.toolResult('nobody', 'stray')], 'tool-call-unknown');
    await expectRule(fixture, [drafts.toolResult('c2', 'twice')], 'tool-call-duplicate');
  });
});

describe('SPEC §3: a tool/result replacement (the pruner)', () => {
  it('rejects one that covers more than one node', async () => {
    const fixture = await open(BASE);
    await expectRule(
      fixture,
      [moreDrafts.compactionPrune(10), moreDrafts.toolResultReplace('c2', 'pruned', 10, 11, [10, 11, 13])],
      'tool-result-replacement',
    );
  });

  it('rejects one over a node that is not a tool/result', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.toolResultReplace('c2', 'pruned', 12, 12, [12])], 'tool-result-replacement');
  });

  it('rejects one over the calling assistant message', async () => {
    const fixture = await open(BASE);
    await expectRule(fixture, [moreDrafts.toolResultReplace('c2', 'pruned', 9, 9, [9])], 'tool-result-replacement');
  });

  it('rejects one with a different callId', async () => {
    const fixture = await open(BASE);
    await expectRule(
      fixture,
      [moreDrafts.compactionPrune(10), moreDrafts.toolResultReplace('c3', 'pruned', 10, 10, [10, 13])],
      'tool-result-replacement',
    );
  });

  it('accepts exactly one tool/result with the same callId, and the call stays paired with the new node', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [moreDrafts.compactionPrune(10), moreDrafts.toolResultReplace('c2', 'pruned', 10, 10, [10, 13])]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 8, 9, 14, 11, 12]);
    // The pruned node now answers c2: a second result is refused, and ranges must keep 9 with 14.
    await expectRule(fixture, [drafts.toolResult('c2', 'again')], 'tool-call-duplicate');
    await expectRule(fixture, [moreDrafts.userReplace('s', 8, 9, [8, 9])], 'splits-tool-pair');
    await expectRule(fixture, [moreDrafts.userReplace('s', 14, 12, [14, 11, 12])], 'splits-tool-pair');
    // A pruned node can be pruned again, and summarised with its call.
    await expectAccepted(fixture, [moreDrafts.toolResultReplace('c2', 'pruned twice', 14, 14, [14])]);
    await expectAccepted(fixture, [moreDrafts.userReplace('s', 9, 11, [9, 15, 11])]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 8, 16, 12]);
  });
});

describe('SPEC §3: the system message at surface position 0', () => {
  it.each([
    ['a user/message over exactly it', moreDrafts.userReplace('s', 1, 1, [1])],
    ['an assistant/message over exactly it', moreDrafts.assistantReplace('s', 1, 1, [1])],
    ['a tool/result over exactly it', moreDrafts.toolResultReplace('c1', 's', 1, 1, [1])],
    ['a system/message over a wider range', moreDrafts.systemReplace('s', 1, 3, [1, 3])],
    ['a user/message over a wider range', moreDrafts.userReplace('s', 1, 6, [1, 3, 4, 5, 6])],
  ])('rejects %s', async (_, draft) => {
    const fixture = await open(BASE);
    await expectRule(fixture, [draft], 'system-head');
  });

  it('accepts a system/message over exactly that node, and again over the replacement', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [moreDrafts.systemReplace('New instructions.', 1, 1, [1])]);
    expect(surfaceSeqs(fixture)).toEqual([13, 3, 4, 5, 6, 8, 9, 10, 11, 12]);
    await expectRule(fixture, [moreDrafts.userReplace('s', 13, 3, [13, 3])], 'system-head');
    await expectAccepted(fixture, [moreDrafts.systemReplace('Newer instructions.', 13, 13, [13])]);
    expect(surfaceSeqs(fixture)[0]).toBe(14);
  });
});

describe('SPEC §2–§3: log-only types carry no surfaceOp', () => {
  it.each([
    ['turn/start with append', { ...drafts.turnStart(2), surfaceOp: 'append' } as EventDraft],
    ['turn/start with a replace', { ...drafts.turnStart(2), surfaceOp: replaceOp(12, 12), sourceEventSeqs: [12] } as EventDraft],
    ['model/request with sourceEventSeqs', { ...moreDrafts.modelRequest(2, 1, [1]), sourceEventSeqs: [12] } as EventDraft],
    [
      'a compaction type with a replace',
      { ...moreDrafts.compactionSummary('k', [12]), surfaceOp: replaceOp(12, 12), sourceEventSeqs: [12] },
    ],
    ['an ignorable unknown type with append', { ...moreDrafts.ignorableNote('n'), surfaceOp: 'append' } as EventDraft],
  ])('rejects %s', async (_, draft) => {
    const fixture = await open(BASE);
    await expectRule(fixture, [draft], 'not-surface-type');
  });
});

describe('SPEC §2: unknown event types', () => {
  it('refuses an unknown type, naming the type and the seq', async () => {
    const fixture = await open(BASE);
    const error = await rejection(fixture, [{ type: 'custom/thing', data: { x: 1 } }]);
    expect(error).toBeInstanceOf(UnknownEventTypeError);
    expect(error).toMatchObject({ code: 'UNKNOWN_EVENT_TYPE', type: 'custom/thing', seq: BASE_NEXT });
  });

  it('accepts an unknown type marked ignorable: true, without touching the surface', async () => {
    const fixture = await open(BASE);
    const before = surfaceOf(fixture.log.fold);
    const [event] = await expectAccepted(fixture, [moreDrafts.ignorableNote('hello')]);
    expect(event).toMatchObject({ type: 'custom/note', ignorable: true });
    expect(surfaceOf(fixture.log.fold)).toEqual(before);
  });

  it('rejects ignorable with any value but true', async () => {
    const fixture = await open(BASE);
    const error = await rejection(fixture, [{ type: 'custom/thing', data: {}, ignorable: false as unknown as true }]);
    expect(error).toBeInstanceOf(InvalidEventError);
  });

  it('refuses compaction types in a log whose reader has not registered them', async () => {
    const fixture = await open(BASE, { registry: false });
    const error = await rejection(fixture, [moreDrafts.compactionSummary('k', [12])]);
    expect(error).toMatchObject({ type: 'compaction/summary', seq: BASE_NEXT });
    expect(error).toBeInstanceOf(UnknownEventTypeError);
  });
});

describe('SPEC §2: seq 0 is session/start', () => {
  it.each([
    ['a user message', drafts.user('hi')],
    ['a turn/start', drafts.turnStart(1)],
    ['an ignorable unknown event', moreDrafts.ignorableNote('n')],
  ])('refuses %s at seq 0, leaving the fold empty', (_, draft) => {
    const fold = new SurfaceFold();
    expect(() => prepareAppend(fold, [draft], fixedNow)).toThrow(InvalidEventError);
    expect({ nextSeq: fold.nextSeq, lastHash: fold.lastHash, surface: fold.toArray() }).toEqual({
      nextSeq: 0,
      lastHash: '0'.repeat(64),
      surface: [],
    });
    // The fold is still usable from seq 0.
    expect(prepareAppend(fold, [drafts.start()], fixedNow).events[0]?.seq).toBe(0);
  });

  it('refuses a second session/start', async () => {
    const fixture = await open(BASE);
    const error = await rejection(fixture, [drafts.start()]);
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(error).toMatchObject({ field: 'type' });
  });
});

describe('SPEC §3: every rejection writes nothing, also in a batch', () => {
  it('writes none of a batch whose only bad event is the last', async () => {
    const fixture = await open(BASE);
    await expectRule(
      fixture,
      [
        drafts.turnStart(2), // 13
        drafts.user('u3'), // 14
        drafts.assistant('a5', ['c9']), // 15
        drafts.toolResult('c9', 'r9'), // 16
        moreDrafts.compactionSummary('k', [8, 9]), // 17
        moreDrafts.userReplace('s', 8, 9, [8, 9, 17]), // 18: splits 9 from 10 and 11
      ],
      'splits-tool-pair',
    );
    // Nothing of the batch stayed behind in the fold: the same valid prefix appends cleanly,
    // including the call id c9 it introduced.
    await expectAccepted(fixture, [drafts.turnStart(2), drafts.user('u3'), drafts.assistant('a5', ['c9']), drafts.toolResult('c9', 'r9')]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 8, 9, 10, 11, 12, 14, 15, 16]);
  });

  it('writes none of a batch that breaks a rule in its middle', async () => {
    const fixture = await open(COMPACTED);
    await expectRule(fixture, [drafts.user('u3'), moreDrafts.userReplace('s', 8, 14, [8, 14])], 'out-of-order');
    const error = await rejection(fixture, [drafts.user('u3'), moreDrafts.userReplace('s', 8, 14, [8, 14]), drafts.user('u4')]);
    expect(error).toMatchObject({ rule: 'out-of-order', seq: COMPACTED_NEXT + 1 });
  });

  it('lets a replace in a batch shadow events appended earlier in that batch', async () => {
    const fixture = await open(BASE);
    await expectAccepted(fixture, [
      drafts.user('u3'), // 13
      drafts.assistant('a5', ['c9']), // 14
      drafts.toolResult('c9', 'r9'), // 15
      moreDrafts.compactionSummary('k', [12, 13, 14, 15]), // 16
      moreDrafts.userReplace('s', 12, 15, [12, 13, 14, 15, 16]), // 17
    ]);
    expect(surfaceSeqs(fixture)).toEqual([1, 3, 4, 5, 6, 8, 9, 10, 11, 17]);
  });
});

// Two appends issued on one SessionLog before the first settles (a capability and the spine,
// or any caller that does not await). SessionLog.append prepares each batch on the shared fold
// before the store answers, so the second batch is sealed and validated on top of the first;
// when the store refuses the first, its rollback runs while the second is still applied.
describe('SessionLog: an append issued while an earlier one is in flight (SPEC §8, §13)', () => {
  async function racing(otherEvents: number) {
    const store = new MemoryLogStore();
    const log = await SessionLog.create(store, 'race', { now: fixedNow });
    await log.append([drafts.system(), drafts.user('u1')]);
    // Another writer lands events first, so this log's next append is refused by the store.
    const other = await SessionLog.open(store, 'race', { now: fixedNow });
    await other.append(Array.from({ length: otherEvents }, (_, index) => drafts.user(`other ${index}`)));
    const fixture: Fixture = { store, log };
    const foldBefore = { nextSeq: log.fold.nextSeq, lastHash: log.fold.lastHash, surface: surfaceOf(log.fold) };
    const first = log.append([drafts.user('a1'), drafts.user('a2')]);
    const second = log.append([drafts.user('b1')]);
    const outcomes = await Promise.allSettled([first, second]);
    return { fixture, foldBefore, outcomes };
  }

  it('leaves the fold as it was when the store refuses both batches', async () => {
    const { fixture, foldBefore, outcomes } = await racing(1);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const fold = fixture.log.fold;
    // Fails today: the first batch's rollback runs under the second batch, and the second's
    // rollback then sets nextSeq back to its own first seq (5) instead of 3.
    expect({ nextSeq: fold.nextSeq, lastHash: fold.lastHash, surface: surfaceOf(fold) }).toEqual(foldBefore);
  });

  it('never stores a batch that was sealed on top of a refused one', async () => {
    // The other writer lands exactly as many events as the first batch holds, so the second
    // batch's expected seq matches the store, and today it lands.
    const { fixture, outcomes } = await racing(2);
    const events = await storedEvents(fixture);
    let prevHash = '0'.repeat(64);
    const broken: number[] = [];
    for (const event of events) {
      const { hash, ...envelope } = event;
      if (computeEventHash(prevHash, envelope) !== hash) broken.push(event.seq);
      prevHash = hash;
    }
    // Fails today: b1 is stored at seq 5 with a hash chained on a2, which was never written.
    expect(broken).toEqual([]);
    expect(outcomes[1]?.status).toBe('rejected');
    expect(events.map((event) => event.data)).not.toContainEqual({ content: [{ type: 'text', text: 'b1' }] });
  });
});
