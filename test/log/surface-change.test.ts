// Format 2 records a model/request's surface as the change from the session's previous request
// (surface-change.ts). It must decode to exactly the list it encodes, cost bytes in proportion to
// what changed, and be held by the fold to the surface at its position like the plain list is.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { canonicalEventJson } from '../../src/log/event-json.js';
import { requestSurfacesOf } from '../../src/log/request-surface.js';
import { prepareAppend } from '../../src/log/seal.js';
import { applySurfaceChange, encodeRequestSurface, type SurfaceChange } from '../../src/log/surface-change.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { drafts, fixedNow } from '../support/events.js';
import { createTestRegistry, moreDrafts } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

/** A list and edits of it like a surface's between two calls: runs replaced by one new seq, seqs appended. */
const listAndEdit = fc
  .record({
    length: fc.integer({ min: 0, max: 60 }),
    replaces: fc.array(fc.record({ at: fc.nat(), count: fc.integer({ min: 1, max: 8 }) }), { maxLength: 4 }),
    appended: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ length, replaces, appended }) => {
    const previous = Array.from({ length }, (_, index) => index * 2 + 1);
    let next = [...previous];
    let fresh = 1000;
    for (const { at, count } of replaces) {
      if (next.length === 0) break;
      const start = at % next.length;
      next.splice(start, Math.min(count, next.length - start), fresh++);
    }
    next = [...next, ...Array.from({ length: appended }, () => fresh++)];
    return { previous, next };
  });

describe('encoding a surface as the change from the previous request', () => {
  it('decodes to exactly the list it encodes, for any list and any edits of it', () => {
    fc.assert(
      fc.property(listAndEdit, ({ previous, next }) => {
        const encoded = encodeRequestSurface({ seq: 7, seqs: previous }, next);
        const decoded =
          'surfaceSeqs' in encoded ? encoded.surfaceSeqs : applySurfaceChange({ seq: 7, seqs: previous }, encoded.surfaceChange, 9);
        expect(decoded).toEqual(next);
      }),
      { numRuns: 500 },
    );
  });

  it('also for lists that are not edits of each other (reordered, repeated seqs)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(20), { maxLength: 30 }), fc.array(fc.nat(20), { maxLength: 30 }), (previous, next) => {
        const encoded = encodeRequestSurface({ seq: 3, seqs: previous }, next);
        const decoded =
          'surfaceSeqs' in encoded ? encoded.surfaceSeqs : applySurfaceChange({ seq: 3, seqs: previous }, encoded.surfaceChange, 4);
        expect(decoded).toEqual(next);
      }),
    );
  });

  it('costs the same few bytes for a 10,000-node surface as for a 10-node one when two nodes were appended', () => {
    const sizes = [10, 10_000].map((length) => {
      const previous = Array.from({ length }, (_, index) => 100_000 + index);
      const encoded = encodeRequestSurface({ seq: 99_999, seqs: previous }, [...previous, 200_000, 200_001]);
      return { encoded, bytes: JSON.stringify(encoded).length };
    });
    expect(sizes[1]?.encoded).toEqual({ surfaceChange: { base: 99_999, length: 10_002, splices: [[10_000, 0, 200_000, 200_001]] } });
    expect(sizes[1]?.bytes).toBeLessThan(90);
    expect((sizes[1]?.bytes ?? 0) - (sizes[0]?.bytes ?? 0)).toBeLessThanOrEqual(6); // the extra digits of the numbers
  });

  it('writes one splice for a replaced run in the middle and one for the tail', () => {
    const previous = Array.from({ length: 30 }, (_, index) => index * 2 + 1);
    const next = [1, 3, 100, ...previous.slice(7), 101, 102];
    expect(encodeRequestSurface({ seq: 99, seqs: previous }, next)).toEqual({
      surfaceChange: {
        base: 99,
        length: 28,
        splices: [
          [2, 5, 100],
          [30, 0, 101, 102],
        ],
      },
    });
  });

  it('writes the plain list for a session’s first call, and where the change would be no shorter', () => {
    expect(encodeRequestSurface(undefined, [1, 3])).toEqual({ surfaceSeqs: [1, 3] });
    expect(encodeRequestSurface({ seq: 4, seqs: [1, 3] }, [1, 3, 5])).toEqual({ surfaceSeqs: [1, 3, 5] });
  });
});

/** A format-2 log with three calls; the third's change is built by `third` from the second's seq and list. */
function threeCalls(third?: (base: number, seqs: readonly number[]) => { base: number; length: number; splices: number[][] }): {
  fold: SurfaceFold;
  events: LogEvent[];
  error?: unknown;
} {
  const fold = new SurfaceFold({ registry: createTestRegistry() });
  const events: LogEvent[] = [];
  const append = (batch: EventDraft[]) => events.push(...prepareAppend(fold, batch, fixedNow).events);
  const request = (step: number) => {
    const seqs = fold.toArray().map((node) => node.seq);
    return moreDrafts.modelRequestOf(1, step, encodeRequestSurface(fold.lastRequestSurface, seqs));
  };
  // Forty nodes, so that a change of a few seqs is shorter than the list.
  append([
    drafts.startV2(),
    drafts.system(),
    drafts.turnStart(1),
    ...Array.from({ length: 39 }, (_, index) => drafts.user(`message ${index}`)),
  ]);
  append([request(1)]);
  append([drafts.assistant('reading', ['call-1']), drafts.toolResult('call-1', 'text')]);
  append([request(2)]);
  append([drafts.assistant('more', ['call-2']), drafts.toolResult('call-2', 'text')]);
  const last = fold.lastRequestSurface as { seq: number; seqs: readonly number[] };
  try {
    append([
      third === undefined ? request(3) : moreDrafts.modelRequestOf(1, 3, { surfaceChange: third(last.seq, last.seqs) as SurfaceChange }),
    ]);
  } catch (error) {
    return { fold, events, error };
  }
  return { fold, events };
}

describe('the fold holds a surfaceChange to the surface at its position', () => {
  it('accepts the change the spine writes, and decodes it to the surface', () => {
    const { events, error } = threeCalls();
    expect(error).toBeUndefined();
    const requests = events.filter((event) => event.type === 'model/request');
    expect(requests[0]?.data).toHaveProperty('surfaceSeqs');
    const [first, second, third] = requests.map((request) => request.seq);
    expect(requests[1]?.data).toMatchObject({ surfaceChange: { base: first, length: 42, splices: [[40, 0, 43, 44]] } });
    expect(requests[2]?.data).toMatchObject({ surfaceChange: { base: second, length: 44, splices: [[42, 0, 46, 47]] } });
    const surface = [1, ...Array.from({ length: 39 }, (_, index) => 3 + index), 43, 44, 46, 47];
    expect(requestSurfacesOf(events).get(third as number)).toEqual(surface);
  });

  it('refuses a base that is not the previous model/request', () => {
    const { error } = threeCalls((base, seqs) => ({ base: base - 3, length: seqs.length + 2, splices: [[seqs.length, 0, 10, 11]] }));
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(error).toMatchObject({ field: 'data.surfaceChange.base' });
    expect((error as Error).message).toMatch(/the previous one is #\d+/);
  });

  it('refuses a splice outside the base list, and a length that is not the decoded one', () => {
    const outside = threeCalls((base, seqs) => ({ base, length: seqs.length + 2, splices: [[seqs.length + 1, 0, 10, 11]] }));
    expect(outside.error).toMatchObject({ field: 'data.surfaceChange.splices[0]' });
    const length = threeCalls((base, seqs) => ({ base, length: seqs.length + 3, splices: [[seqs.length, 0, 10, 11]] }));
    expect(length.error).toMatchObject({ field: 'data.surfaceChange.length' });
  });

  it('refuses a change that decodes to another surface, naming the first difference', () => {
    const { error } = threeCalls((base, seqs) => ({ base, length: seqs.length + 1, splices: [[seqs.length, 0, 46]] }));
    expect(error).toMatchObject({ field: 'data.surfaceChange' });
    expect((error as Error).message).toMatch(/differs first at position 43: recorded nothing, the surface has #47/);
  });

  it('refuses surfaceChange in a format-1 session, where a version-1 reader could not read it', () => {
    const fold = new SurfaceFold();
    prepareAppend(fold, [drafts.start(), drafts.system(), moreDrafts.modelRequest(1, 1, [1])], fixedNow);
    expect(() =>
      prepareAppend(
        fold,
        [
          drafts.user('hi'),
          moreDrafts.modelRequestOf(1, 2, { surfaceChange: { base: 2, length: 2, splices: [[1, 0, 3]] } as unknown as SurfaceChange }),
        ],
        fixedNow,
      ),
    ).toThrow(/data\.surfaceSeqs must be present/);
  });

  it('is checked by verify: a tampered change is reported at its seq', async () => {
    const { events } = threeCalls();
    const last = events.at(-1) as LogEvent;
    const tampered = { ...last, data: { ...last.data, surfaceChange: { base: 9, length: 8, splices: [[6, 0, 11, 10]] } } };
    const report = await verifyLog([[...events.slice(0, -1), tampered]]);
    expect(report.problems.map((problem) => [problem.seq, problem.code])).toEqual([
      [last.seq, 'hash-mismatch'],
      [last.seq, 'INVALID_EVENT'],
    ]);
  });

  it('folds random format-2 logs with nested compactions, each call decoding to the surface where it stands', () => {
    let changes = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const log = buildRandomLog(seed, { formatVersion: 2, targetEvents: 160 });
      const events = [...prepareAppend(new SurfaceFold({ registry: createTestRegistry() }), log.drafts, fixedNow).events];
      const surfaces = requestSurfacesOf(events);
      const fold = new SurfaceFold({ registry: createTestRegistry() });
      for (const event of events) {
        if (event.type === 'model/request') {
          expect(surfaces.get(event.seq)).toEqual(fold.toArray().map((node) => node.seq));
          if ('surfaceChange' in event.data) changes++;
        }
        fold.apply(event);
      }
      // The change is never the longer of the two encodings.
      for (const event of events.filter((item) => item.type === 'model/request')) {
        const plain = { ...event.data, surfaceSeqs: surfaces.get(event.seq), surfaceChange: undefined };
        expect(canonicalEventJson(event).length).toBeLessThanOrEqual(
          canonicalEventJson({ ...event, data: JSON.parse(JSON.stringify(plain)) }).length,
        );
      }
    }
    expect(changes).toBeGreaterThan(100);
  });
});
