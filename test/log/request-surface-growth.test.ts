// The fold proves a model/request that records only what was appended since the previous one
// without walking the surface, and grows the previous list in place (request-surface.ts). What
// it accepts and refuses must be what the walk would, and an atomic batch refused after such a
// request must leave the lists as they were.

import { describe, expect, it } from 'vitest';
import { InvalidEventError } from '../../src/log/errors.js';
import type { EventDraft } from '../../src/log/event.js';
import { prepareAppend } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { encodeRequestSurface, type SurfaceChange } from '../../src/log/surface-change.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { drafts, fixedNow } from '../support/events.js';
import { createTestRegistry, moreDrafts } from '../support/log-drafts.js';

function session(): { fold: SurfaceFold; request: (step: number) => EventDraft } {
  const fold = new SurfaceFold({ registry: createTestRegistry() });
  const request = (step: number) =>
    moreDrafts.modelRequestOf(
      1,
      step,
      encodeRequestSurface(
        fold.lastRequestSurface,
        fold.toArray().map((node) => node.seq),
      ),
    );
  prepareAppend(
    fold,
    [drafts.startV2(), drafts.system(), drafts.turnStart(1), ...Array.from({ length: 30 }, (_, i) => drafts.user(`m${i}`))],
    fixedNow,
  );
  prepareAppend(fold, [request(1)], fixedNow);
  return { fold, request };
}

const seqsOf = (fold: SurfaceFold): SessionSeq[] => fold.toArray().map((node) => node.seq);

describe('a request that records only what was appended', () => {
  it('is accepted call after call, each list the surface where it stands', () => {
    const { fold, request } = session();
    for (let step = 2; step <= 6; step++) {
      prepareAppend(fold, [drafts.user(`more ${step}`), drafts.user(`and ${step}`)], fixedNow);
      prepareAppend(fold, [request(step)], fixedNow);
      expect(fold.lastRequestSurface?.seqs).toEqual(seqsOf(fold));
    }
  });

  it('is refused when it appends a seq that is not the one appended, as the walk refuses it', () => {
    const { fold } = session();
    prepareAppend(fold, [drafts.user('one'), drafts.user('two')], fixedNow);
    const latest = fold.lastRequestSurface as { seq: SessionSeq; seqs: readonly number[] };
    const [one, two] = seqsOf(fold).slice(-2) as unknown as [SessionSeq, SessionSeq];
    const wrong: SurfaceChange = { base: latest.seq, length: latest.seqs.length + 2, splices: [[latest.seqs.length, 0, two, one]] };
    expect(() => prepareAppend(fold, [moreDrafts.modelRequestOf(1, 2, { surfaceChange: wrong })], fixedNow)).toThrow(InvalidEventError);
    const short: SurfaceChange = { base: latest.seq, length: latest.seqs.length + 1, splices: [[latest.seqs.length, 0, one]] };
    expect(() => prepareAppend(fold, [moreDrafts.modelRequestOf(1, 2, { surfaceChange: short })], fixedNow)).toThrow(InvalidEventError);
  });

  it('after a replacement, is checked against the surface again', () => {
    const { fold, request } = session();
    const nodes = seqsOf(fold);
    const [start, end] = [nodes[5] as number, nodes[9] as number];
    prepareAppend(fold, [drafts.summary('five, in short', start, end, nodes.slice(5, 10))], fixedNow);
    const latest = fold.lastRequestSurface as { seq: SessionSeq; seqs: readonly number[] };
    // A change that ignores the replacement and claims an append only.
    const appendOnly: SurfaceChange = {
      base: latest.seq,
      length: latest.seqs.length + 1,
      splices: [[latest.seqs.length, 0, (fold.nextSeq - 1) as SessionSeq]],
    };
    expect(() => prepareAppend(fold, [moreDrafts.modelRequestOf(1, 2, { surfaceChange: appendOnly })], fixedNow)).toThrow(
      InvalidEventError,
    );
    prepareAppend(fold, [request(2)], fixedNow);
    expect(fold.lastRequestSurface?.seqs).toEqual(seqsOf(fold));
  });

  it('leaves the lists as they were when its batch is rolled back', () => {
    const { fold, request } = session();
    prepareAppend(fold, [drafts.user('kept')], fixedNow);
    // The second request's list is the fold's own; the third's grows it in place.
    prepareAppend(fold, [request(2)], fixedNow);
    const before = [...(fold.lastRequestSurface?.seqs ?? [])];
    prepareAppend(fold, [drafts.user('grown')], fixedNow);
    const prepared = prepareAppend(fold, [request(3), drafts.user('x')], fixedNow);
    expect(fold.lastRequestSurface?.seqs).toEqual(seqsOf(fold).slice(0, -1));
    prepared.rollback();
    expect(fold.lastRequestSurface?.seqs).toEqual(before);
    prepareAppend(fold, [request(3)], fixedNow);
    expect(fold.lastRequestSurface?.seqs).toEqual(seqsOf(fold));
  });
});
