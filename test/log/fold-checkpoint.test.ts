// Fold checkpoints in the log layer: a fold restored from the encoded state of a random log's
// fold at a random seq is the fold of the whole walk — at that seq, and after each later event,
// by its encoded state and by what every probe event meets there.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FoldStateError, SurfaceOpError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import type { EventTypeRegistry } from '../../src/log/event-types.js';
import { decodeFoldState, encodeFoldCheckpoint, readCheckpointHeader } from '../../src/log/fold-checkpoint.js';
import { prepareAppend } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import type { ReplaceOp } from '../../src/log/surface-op.js';
import { FIXED_TIME, fixedNow } from '../support/events.js';
import { createTestRegistry, meteringRegistry, replaceOp } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

const RUNS = 150;
const seeds = fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 }));

function sealAll(list: readonly EventDraft[], registry: () => EventTypeRegistry): LogEvent[] {
  return [...prepareAppend(new SurfaceFold({ registry: registry() }), list, fixedNow).events];
}

function restoreAt(fold: SurfaceFold, events: readonly LogEvent[], registry: EventTypeRegistry): SurfaceFold {
  const payload = encodeFoldCheckpoint('s', fold.snapshot());
  const { header, body } = readCheckpointHeader(payload);
  // Through JSON, as a store gives events back.
  const copy = (seq: number) => JSON.parse(JSON.stringify(events[seq])) as LogEvent;
  return SurfaceFold.restore(decodeFoldState(header, body), copy, { registry });
}

/** What a few next events would meet on this fold (each undone at once): replaces over windows, prunes, results, a call. */
function probe(fold: SurfaceFold): string[] {
  const nodes = fold.toArray();
  const seq = fold.nextSeq as SessionSeq;
  const content = [{ type: 'text', text: 'probe' }];
  const candidates: Array<Omit<LogEvent, 'seq' | 'time' | 'hash'>> = [];
  nodes.forEach((start, index) => {
    for (const end of nodes.slice(index, index + 3)) {
      const sources: number[] = nodes.slice(index, nodes.indexOf(end) + 1).map((node) => node.seq);
      candidates.push({
        type: 'user/message',
        data: { content },
        surfaceOp: replaceOp(start.seq, end.seq) as ReplaceOp,
        sourceEventSeqs: sources as SessionSeq[],
      });
      // Listing an older log-only or surface event too: the surface bits and the metering ledger decide.
      for (const extra of [start.seq - 1, start.seq - 2, seq - 1]) {
        if (extra >= 0 && !sources.includes(extra)) {
          const surfaceOp = replaceOp(start.seq, end.seq) as ReplaceOp;
          candidates.push({ type: 'user/message', data: { content }, surfaceOp, sourceEventSeqs: [...sources, extra] as SessionSeq[] });
        }
      }
    }
    if (start.type === 'tool/result') {
      const callId = (start.event.data as { callId: string }).callId;
      candidates.push({
        type: 'tool/result',
        data: { callId, content },
        surfaceOp: replaceOp(start.seq, start.seq) as ReplaceOp,
        sourceEventSeqs: [start.seq],
      });
    }
    if (start.type === 'assistant/message') {
      for (const call of (start.event.data as { toolCalls: Array<{ callId: string }> }).toolCalls) {
        candidates.push({ type: 'tool/result', data: { callId: call.callId, content }, surfaceOp: 'append' });
      }
    }
  });
  candidates.push({
    type: 'assistant/message',
    data: { content, toolCalls: [{ callId: 'c1', name: 't', arguments: {} }], model: 'm' },
    surfaceOp: 'append',
  });
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return candidates.map((candidate) => {
      try {
        fold.apply({ ...candidate, seq, time: FIXED_TIME, hash: 'f'.repeat(64) })();
        return 'accepted';
      } catch (error) {
        return error instanceof SurfaceOpError ? `${error.rule}: ${error.message}` : String(error);
      }
    });
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function stateOf(fold: SurfaceFold) {
  return {
    encoded: encodeFoldCheckpoint('s', fold.snapshot()),
    nodes: fold.toArray().map((node) => [node.seq, node.type, node.sourceEventSeqs, node.event.hash]),
    pending: fold.pendingToolCalls(),
    unclaimed: fold.unclaimedMeteringEvents(),
    request: fold.lastRequestSurface,
    lastHash: fold.lastHash,
    firstHash: fold.firstHash,
    formatVersion: fold.formatVersion,
  };
}

describe.each([
  ['compaction types', createTestRegistry],
  ['metering compaction types', meteringRegistry],
])('a fold restored from a checkpoint (%s)', (_name, registry) => {
  it('equals the fold of the whole walk at its seq and after every later event', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 2 }), fc.double({ min: 0, max: 1, noNaN: true }), (seed, formatVersion, at) => {
        const events = sealAll(buildRandomLog(seed, { formatVersion: formatVersion as 1 | 2 }).drafts, registry);
        const cut = 1 + Math.floor(at * (events.length - 1));
        const walk = new SurfaceFold({ registry: registry() });
        for (const event of events.slice(0, cut)) walk.apply(event);
        const restored = restoreAt(walk, events, registry());
        expect(stateOf(restored)).toEqual(stateOf(walk));
        expect(probe(restored)).toEqual(probe(walk));
        for (const event of events.slice(cut)) {
          walk.apply(event);
          restored.apply(event);
          expect(stateOf(restored)).toEqual(stateOf(walk));
        }
        expect(probe(restored)).toEqual(probe(walk));
      }),
      { numRuns: RUNS },
    );
  });
});

describe('a checkpoint payload', () => {
  const events = sealAll(buildRandomLog(11, { targetEvents: 60 }).drafts, meteringRegistry);
  const fold = new SurfaceFold({ registry: meteringRegistry() });
  for (const event of events) fold.apply(event);
  const payload = encodeFoldCheckpoint('s', fold.snapshot());

  it('that does not hold together is a FoldStateError', () => {
    const decode = (text: string) => {
      const { header, body } = readCheckpointHeader(text);
      return SurfaceFold.restore(decodeFoldState(header, body), (seq) => events[seq] as LogEvent);
    };
    expect(() => decode('{"checkpoint":1')).toThrow(FoldStateError);
    expect(() => decode(payload.replace('"nodes":[', '"nodes":[99999,'))).toThrow(FoldStateError);
    const body = JSON.parse(payload) as { nodes: number[]; surfaceBits: string };
    const logOnly = events.find((event) => event.type === 'model/request' || event.type === 'turn/start') as LogEvent;
    expect(() => decode(JSON.stringify({ ...body, nodes: [...body.nodes, logOnly.seq] }))).toThrow(FoldStateError);
    expect(() => decode(JSON.stringify({ ...body, nodes: [body.nodes[0], ...body.nodes] }))).toThrow(FoldStateError);
    expect(() => decode(JSON.stringify({ ...body, surfaceBits: body.surfaceBits.slice(2) }))).toThrow(FoldStateError);
  });
});
