// Properties of the surface fold over random valid logs with nested replacements (SPEC §3):
// it agrees with a naive fold at every prefix, origins() inverts it, and a rolled-back batch
// leaves no trace.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEnvelope } from '../../src/log/envelope.js';
import { SurfaceOpError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { origins } from '../../src/log/origins.js';
import { prepareAppend } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import type { ReplaceOp } from '../../src/log/surface-op.js';
import { drafts, FIXED_TIME, fixedNow } from '../support/events.js';
import { createTestRegistry, moreDrafts, replaceOp } from '../support/log-drafts.js';
import { type NaiveNode, naiveSurface, SURFACE_TYPES } from '../support/naive-surface.js';
import { buildRandomLog } from '../support/random-log.js';

const RUNS = 200;
const seeds = fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 }));

function sealAll(list: readonly EventDraft[]): LogEvent[] {
  return [...prepareAppend(new SurfaceFold({ registry: createTestRegistry() }), list, fixedNow).events];
}

function viewOf(fold: SurfaceFold): NaiveNode[] {
  return fold.toArray().map((node) => ({ seq: node.seq, sourceEventSeqs: [...node.sourceEventSeqs] }));
}

/** Everything observable about a fold, over seqs 0..horizon-1. */
function stateOf(fold: SurfaceFold, horizon: number) {
  const seqs = Array.from({ length: horizon }, (_, seq) => seq);
  return {
    nextSeq: fold.nextSeq,
    lastHash: fold.lastHash,
    size: fold.size,
    nodes: fold
      .toArray()
      .map((node) => ({ seq: node.seq, type: node.type, sourceEventSeqs: [...node.sourceEventSeqs], hash: node.event.hash })),
    current: seqs.filter((seq) => fold.isCurrent(seq)),
    surfaceEvents: seqs.filter((seq) => fold.isSurfaceEvent(seq)),
    lookups: seqs.map((seq) => fold.node(seq)?.seq),
  };
}

/** toEqual, with a cheap string comparison first: these checks run hundreds of thousands of times. */
function expectSame(actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect(actual).toEqual(expected);
}

/**
 * What each of many possible next events would meet: small replaces over every window of the
 * surface, a prune of every tool/result, a result for every call id. Reveals hidden state (open
 * calls, which node answers a call) that stateOf cannot see. Each probe is undone at once.
 */
function probe(fold: SurfaceFold, horizon: number): string[] {
  const before = stateOf(fold, horizon);
  const nodes = fold.toArray();
  const seq = fold.nextSeq as SessionSeq;
  const content = [{ type: 'text', text: 'probe' }];
  const candidates: Array<Omit<LogEvent, 'seq' | 'time' | 'hash'>> = [];
  nodes.forEach((start, index) => {
    for (const end of nodes.slice(index, index + 4)) {
      const sources = nodes.slice(index, nodes.indexOf(end) + 1).map((node) => node.seq);
      candidates.push({
        type: 'user/message',
        data: { content },
        surfaceOp: replaceOp(start.seq, end.seq) as ReplaceOp,
        sourceEventSeqs: sources,
      });
    }
    if (start.type === 'tool/result') {
      const callId = (start.event.data as { callId: string }).callId;
      const surfaceOp = replaceOp(start.seq, start.seq) as ReplaceOp;
      candidates.push({ type: 'tool/result', data: { callId, content }, surfaceOp, sourceEventSeqs: [start.seq] });
    }
    if (start.type === 'assistant/message') {
      for (const call of (start.event.data as { toolCalls: Array<{ callId: string }> }).toolCalls) {
        candidates.push({ type: 'tool/result', data: { callId: call.callId, content }, surfaceOp: 'append' });
      }
    }
  });
  // Most probes are refused; stack traces would cost more than the probes themselves.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let outcomes: string[];
  try {
    outcomes = candidates.map((candidate) => {
      try {
        fold.apply({ ...candidate, seq, time: FIXED_TIME, hash: 'f'.repeat(64) })();
        return 'accepted';
      } catch (error) {
        return error instanceof SurfaceOpError ? error.rule : String(error);
      }
    });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  expectSame(stateOf(fold, horizon), before);
  return outcomes;
}

describe('random logs', () => {
  it('exercise what the properties are about', () => {
    const totals = { events: 0, summaries: 0, nestedSummaries: 0, prunes: 0, systemReplacements: 0, toolCalls: 0 };
    for (let seed = 0; seed < RUNS; seed++) {
      const log = buildRandomLog(seed);
      totals.events += log.drafts.length;
      for (const key of ['summaries', 'nestedSummaries', 'prunes', 'systemReplacements', 'toolCalls'] as const)
        totals[key] += log.stats[key];
    }
    expect(totals.summaries).toBeGreaterThan(RUNS);
    expect(totals.nestedSummaries).toBeGreaterThan(RUNS / 2);
    expect(totals.prunes).toBeGreaterThan(RUNS / 2);
    expect(totals.systemReplacements).toBeGreaterThan(10);
    expect(totals.toolCalls).toBeGreaterThan(RUNS);
  });

  it('are the same for the same seed', () => {
    expect(sealAll(buildRandomLog(42).drafts)).toEqual(sealAll(buildRandomLog(42).drafts));
  });
});

describe('SurfaceFold properties (SPEC §3)', () => {
  it('(1) at every prefix, the incremental fold of events read back from JSON equals a naive fold from scratch', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const events = sealAll(buildRandomLog(seed).drafts);
        const fold = new SurfaceFold({ registry: createTestRegistry() });
        for (let index = 0; index < events.length; index++) {
          fold.apply(parseEnvelope(JSON.parse(JSON.stringify(events[index]))));
          const expected = naiveSurface(events.slice(0, index + 1));
          expectSame(viewOf(fold), expected);
          expect(fold.size).toBe(expected.length);
          expect(fold.nextSeq).toBe(index + 1);
          expect(fold.lastHash).toBe(events[index]?.hash);
        }
        // Membership agrees with the naive surface for every seq of the log.
        const current = new Set(naiveSurface(events).map((node) => node.seq));
        for (let seq = 0; seq < events.length + 2; seq++) {
          expect(fold.isCurrent(seq)).toBe(current.has(seq));
          expect(fold.isSurfaceEvent(seq)).toBe(SURFACE_TYPES.has(events[seq]?.type ?? ''));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(1b) a long log, past the growth of the fold’s per-event bits, folds like the naive fold and rolls back across the growth', () => {
    const all = buildRandomLog(7, { targetEvents: 9000 }).drafts;
    const events = sealAll(all);
    const fold = new SurfaceFold({ registry: createTestRegistry() });
    for (const event of events) fold.apply(event);
    expectSame(viewOf(fold), naiveSurface(events));
    for (let seq = 0; seq < events.length + 2; seq++) expect(fold.isSurfaceEvent(seq)).toBe(SURFACE_TYPES.has(events[seq]?.type ?? ''));
    // Roll back a batch that crosses seq 8,192 (the first growth of a 1,024-byte bit array).
    const horizon = events.length + 2;
    const fromScratch = new SurfaceFold({ registry: createTestRegistry() });
    prepareAppend(fromScratch, all.slice(0, 8180), fixedNow);
    const before = stateOf(fromScratch, horizon);
    prepareAppend(fromScratch, all.slice(8180, 8220), fixedNow).rollback();
    expectSame(stateOf(fromScratch, horizon), before);
  });

  it('(2) expanding every surface node through origins() yields the append-origin surface events in seq order', async () => {
    await fc.assert(
      fc.asyncProperty(seeds, async (seed) => {
        const events = sealAll(buildRandomLog(seed).drafts);
        const readEvent = (seq: SessionSeq) => events[seq] as LogEvent;
        const fold = new SurfaceFold({ registry: createTestRegistry() });
        const appended: number[] = [];
        for (const event of events) {
          fold.apply(event);
          if (SURFACE_TYPES.has(event.type) && event.surfaceOp === 'append') appended.push(event.seq);
          const expanded: number[] = [];
          for (const node of fold.nodes()) {
            const found = await origins(node.seq, readEvent);
            if (node.sourceEventSeqs.length === 0) expect(found).toEqual([node.seq]);
            expanded.push(...found);
          }
          expectSame(expanded, appended);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('(3) a batch applied and rolled back leaves the fold exactly as it was, hidden tool-call state included', () => {
    fc.assert(
      fc.property(seeds, fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 30 }), (seed, sizes) => {
        const all = buildRandomLog(seed).drafts;
        const sealed = sealAll(all);
        const horizon = all.length + 10;
        const fold = new SurfaceFold({ registry: createTestRegistry() });
        let offset = 0;
        for (let round = 0; offset < all.length; round++) {
          const batch = all.slice(offset, offset + (sizes[round % sizes.length] as number));
          const before = stateOf(fold, horizon);
          const trial = prepareAppend(fold, batch, fixedNow);
          expect(fold.nextSeq).toBe(before.nextSeq + batch.length);
          trial.rollback();
          expectSame(stateOf(fold, horizon), before);
          // A different continuation (log-only events at the same seqs) must find the fold as
          // one that never saw the batch finds it, down to what each possible next event meets.
          // (Seq 0 can only be session/start, so the first batch has no detour; a batch of
          // log-only events has no surface state to leave behind.)
          if (offset > 0 && batch.some((draft) => SURFACE_TYPES.has(draft.type))) {
            const detour = batch.map((_, index) => moreDrafts.ignorableNote(`detour ${index}`));
            const detoured = prepareAppend(fold, detour, fixedNow);
            const reference = new SurfaceFold({ registry: createTestRegistry() });
            for (const event of [...sealed.slice(0, offset), ...detoured.events]) reference.apply(event);
            expectSame(stateOf(fold, horizon), stateOf(reference, horizon));
            expectSame(probe(fold, horizon), probe(reference, horizon));
            detoured.rollback();
            expectSame(stateOf(fold, horizon), before);
          }
          // Applying the batch again gives the same events.
          expectSame(prepareAppend(fold, batch, fixedNow).events, trial.events);
          offset += batch.length;
        }
        const reference = new SurfaceFold({ registry: createTestRegistry() });
        prepareAppend(reference, all, fixedNow);
        expectSame(stateOf(fold, horizon), stateOf(reference, horizon));
      }),
      { numRuns: RUNS },
    );
  });

  it('(3b) a batch refused on its last event leaves the fold exactly as it was', () => {
    const badDrafts: EventDraft[] = [
      drafts.toolResult('no-such-call', 'stray'),
      moreDrafts.userReplace('s', 0, 0, [0]),
      { type: 'custom/unknown', data: {} },
      drafts.start(),
      { ...drafts.user('x'), sourceEventSeqs: [0] },
    ];
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 10 }), fc.constantFrom(...badDrafts), fc.nat(), (seed, size, bad, cut) => {
        const all = buildRandomLog(seed).drafts;
        const horizon = all.length + size + 2;
        const at = 1 + (cut % all.length);
        const fold = new SurfaceFold({ registry: createTestRegistry() });
        prepareAppend(fold, all.slice(0, at), fixedNow);
        const before = stateOf(fold, horizon);
        expect(() => prepareAppend(fold, [...all.slice(at, at + size), bad], fixedNow)).toThrow();
        expectSame(stateOf(fold, horizon), before);
        prepareAppend(fold, all.slice(at), fixedNow);
      }),
      { numRuns: RUNS },
    );
  });
});
