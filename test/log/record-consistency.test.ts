// What the record says must be what happened (issue 9, item 13): an event time on a real
// calendar date, a format version this reader knows, a model/request naming the surface it was
// rendered from, and a metering event (compaction's summary or prune) naming exactly what its
// replacement shadows. Each is refused by the fold (so by appends, import and copy) and found by
// verify, with a typed error naming the seq.

import { describe, expect, it } from 'vitest';
import { createCliRegistry } from '../../src/cli/registry.js';
import { parseEnvelope } from '../../src/log/envelope.js';
import { FormatVersionError, InvalidEventError, SurfaceOpError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { EventTypeRegistry } from '../../src/log/event-types.js';
import { GENESIS_HASH } from '../../src/log/hash.js';
import { isIsoUtc } from '../../src/log/iso-time.js';
import { prepareAppend, sealDraft } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { drafts, fixedNow, sampleDrafts } from '../support/events.js';
import { moreDrafts } from '../support/log-drafts.js';

/** compaction/summary and compaction/prune as metering types, the way compaction registers them. */
function meteringRegistry(): EventTypeRegistry {
  return new EventTypeRegistry(
    ['compaction/summary', 'compaction/prune'].map((type) => ({ type, shadowedSeqs: (data) => data.shadowedSeqs as number[] })),
  );
}

/** Seals drafts without the fold's rules (to build a log that breaks them), chained correctly. */
function sealUnchecked(list: readonly EventDraft[]): LogEvent[] {
  let prevHash = GENESIS_HASH;
  return list.map((draft, seq) => {
    const event = sealDraft(draft, seq as SessionSeq, prevHash, fixedNow);
    prevHash = event.hash;
    return event;
  });
}

function refusal(fold: SurfaceFold, list: readonly EventDraft[]): unknown {
  try {
    prepareAppend(fold, list, fixedNow);
  } catch (error) {
    return error;
  }
  return undefined;
}

// sampleDrafts: 0 start, 1 system, 2 turn/start, 3 user, 4 assistant(call-1), 5 tool/result, 6 assistant.
const SAMPLE = sampleDrafts();

describe('event times on the calendar', () => {
  it.each([
    ['30 February', '2026-02-30T00:00:00.000Z', /February 2026 has 28 days/],
    ['31 April', '2026-04-31T12:00:00Z', /April 2026 has 30 days/],
    ['29 February of a common year', '2025-02-29T00:00:00.000Z', /February 2025 has 28 days/],
    ['29 February 1900 (divisible by 100, not 400)', '1900-02-29T00:00:00.000Z', /February 1900 has 28 days/],
    ['month 13', '2026-13-01T00:00:00.000Z', /no month 13/],
    ['month 0', '2026-00-10T00:00:00.000Z', /no month 0/],
    ['day 0', '2026-01-00T00:00:00.000Z', /January 2026 has 31 days/],
    ['hour 24', '2026-01-01T24:00:00.000Z', /not a time of day/],
    ['minute 60', '2026-01-01T10:60:00.000Z', /not a time of day/],
  ])('refuses %s, on append and when read', (_, time, reason) => {
    expect(isIsoUtc(time)).toBe(false);
    const appended = refusal(new SurfaceFold(), [{ ...drafts.start(), time }]);
    expect(appended).toBeInstanceOf(InvalidEventError);
    expect((appended as Error).message).toMatch(reason);
    const [event] = sealUnchecked([drafts.start()]);
    expect(() => parseEnvelope({ ...event, time })).toThrow(reason);
  });

  it.each([
    ['29 February of a leap year', '2024-02-29T23:59:59.999Z'],
    ['29 February 2000 (divisible by 400)', '2000-02-29T00:00:00Z'],
    ['31 December', '2026-12-31T23:59:59Z'],
    ['nanosecond digits', '2026-01-31T12:00:00.123456789Z'],
  ])('accepts %s', (_, time) => {
    expect(isIsoUtc(time)).toBe(true);
    expect(refusal(new SurfaceFold(), [{ ...drafts.start(), time }])).toBeUndefined();
  });
});

describe('the format version of session/start', () => {
  it('refuses a version newer than this reader, saying to upgrade', () => {
    const error = refusal(new SurfaceFold(), [{ type: 'session/start', data: { formatVersion: 99, harnessVersion: 'future' } }]);
    expect(error).toBeInstanceOf(FormatVersionError);
    expect(error).toMatchObject({ code: 'FORMAT_TOO_NEW', found: 99, supported: 2, seq: 0 });
    expect((error as Error).message).toMatch(/upgrade shadowlog/);
  });

  it('is found by verify on a stored log', async () => {
    const events = sealUnchecked([{ type: 'session/start', data: { formatVersion: 3, harnessVersion: 'future' } }, ...SAMPLE.slice(1)]);
    const report = await verifyLog([events]);
    expect(report.problems[0]).toMatchObject({ seq: 0, code: 'FORMAT_TOO_NEW' });
  });
});

describe('sourceEventSeqs that are not seqs', () => {
  it('says a fraction is not a seq, instead of asking for a smaller one', () => {
    const fold = new SurfaceFold();
    prepareAppend(fold, SAMPLE, fixedNow);
    const error = refusal(fold, [drafts.summary('s', 6, 6, [6, 1.5])]);
    expect(error).toMatchObject({ rule: 'sources-malformed' });
    expect((error as Error).message).toMatch(/must hold seqs \(whole numbers from 0\), found 1\.5/);
    expect((error as Error).message).not.toMatch(/smaller than/);
    const later = refusal(fold, [drafts.summary('s', 6, 6, [6, 40])]);
    expect((later as Error).message).toMatch(/seqs of earlier events, smaller than the replace's own seq 7; found 40/);
  });
});

describe('a model/request names the surface it was rendered from', () => {
  it('accepts the surface at its position and refuses any other list', () => {
    const fold = new SurfaceFold();
    prepareAppend(fold, SAMPLE, fixedNow);
    const surface = [1, 3, 4, 5, 6];
    for (const wrong of [[1, 3, 4, 5], [1, 3, 4, 5, 6, 7], [1, 4, 3, 5, 6], []]) {
      const error = refusal(fold, [moreDrafts.modelRequest(1, 1, wrong)]);
      expect(error, JSON.stringify(wrong)).toBeInstanceOf(InvalidEventError);
      expect(error).toMatchObject({ field: 'data.surfaceSeqs', seq: 7 });
    }
    expect(refusal(fold, [moreDrafts.modelRequest(1, 1, surface)])).toBeUndefined();
  });

  it('is found by verify, at the seq of the request', async () => {
    const events = sealUnchecked([...SAMPLE, moreDrafts.modelRequest(1, 2, [1, 3, 4])]);
    const report = await verifyLog([events]);
    expect(report).toMatchObject({ ok: false, firstBadSeq: 7 });
    expect(report.problems[0]?.message).toMatch(/data\.surfaceSeqs must be the seqs of the surface at its position/);
  });
});

describe('a metering event names exactly what its replacement shadows', () => {
  const folded = () => {
    const fold = new SurfaceFold({ registry: meteringRegistry() });
    prepareAppend(fold, SAMPLE, fixedNow);
    return fold;
  };

  it('accepts a summary whose list is the replaced range, in one batch or two', () => {
    const fold = folded();
    expect(refusal(fold, [moreDrafts.compactionSummary('k1', [3, 4, 5]), drafts.summary('s', 3, 5, [3, 4, 5, 7])])).toBeUndefined();
    expect(refusal(fold, [moreDrafts.compactionSummary('k2', [8, 6])])).toBeUndefined();
    expect(refusal(fold, [drafts.summary('s', 8, 6, [8, 6, 9])])).toBeUndefined();
    expect(fold.unclaimedMeteringEvents()).toEqual([]);
  });

  it.each([
    ['a seq that does not exist', [3, 4, 5, 40], /40 is not an earlier event/],
    ['a seq that is not on the surface', [2], /2 is not on the current surface/],
    ['seqs that do not stand together', [3, 5], /names 3 and then 5, which do not stand next to each other/],
    ['seqs out of surface order', [4, 3], /names 4 and then 3/],
    ['no seq', [], /names no shadowed nodes/],
  ])('refuses a summary naming %s, at its own seq', (_, shadowedSeqs, message) => {
    const error = refusal(folded(), [moreDrafts.compactionSummary('k', shadowedSeqs)]);
    expect(error).toBeInstanceOf(SurfaceOpError);
    expect(error).toMatchObject({ rule: 'sources-metering', seq: 7 });
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a replacement that shadows other nodes than its summary names', () => {
    const error = refusal(folded(), [moreDrafts.compactionSummary('k', [3, 4, 5]), drafts.summary('s', 3, 6, [3, 4, 5, 6, 7])]);
    expect(error).toMatchObject({ rule: 'sources-metering', seq: 8 });
    expect((error as Error).message).toMatch(
      /shadows \[3, 4, 5, 6\], but its metering event compaction\/summary 7 says it shadows \[3, 4, 5\]/,
    );
  });

  it('refuses a metering event claimed by a second replacement', () => {
    const fold = folded();
    prepareAppend(fold, [moreDrafts.compactionPrune(5), moreDrafts.toolResultReplace('call-1', 'pruned', 5, 5, [5, 7])], fixedNow);
    const error = refusal(fold, [moreDrafts.toolResultReplace('call-1', 'again', 8, 8, [8, 7])]);
    expect(error).toMatchObject({ rule: 'sources-metering', seq: 9 });
    expect((error as Error).message).toMatch(/already measures the replacement at seq 8/);
  });

  it('verify reports a summary no replacement claims, and a summary whose list was changed', async () => {
    const registry = meteringRegistry();
    const dangling = sealUnchecked([...SAMPLE, moreDrafts.compactionSummary('k', [3, 4])]);
    expect((await verifyLog([dangling], { registry })).problems).toEqual([
      expect.objectContaining({ seq: 7, code: 'INVALID_SURFACE_OP', message: expect.stringMatching(/no replacement lists it/) }),
    ]);
    const lying = sealUnchecked([...SAMPLE, moreDrafts.compactionSummary('k', [3, 4, 99]), drafts.summary('s', 3, 4, [3, 4, 7])]);
    const report = await verifyLog([lying], { registry });
    expect(report).toMatchObject({ ok: false, firstBadSeq: 7 });
    expect(report.problems[0]?.message).toMatch(/99 is not an earlier event/);
  });

  it('compaction registers summary and prune as metering types for the command line', () => {
    const fold = new SurfaceFold({ registry: createCliRegistry() });
    prepareAppend(fold, SAMPLE, fixedNow);
    const summary: EventDraft = {
      type: 'compaction/summary',
      data: { compactionId: 'k', shadowedSeqs: [3, 4, 5, 6], shadowedTokenCount: 9, provider: 'p', model: 'm' },
      ignorable: true,
    };
    const prune: EventDraft = {
      type: 'compaction/prune',
      data: { shadowedSeqs: [2], shadowedTokenCount: 9, charsBefore: 9, charsAfter: 1 },
      ignorable: true,
    };
    expect(refusal(fold, [summary, drafts.summary('s', 3, 5, [3, 4, 5, 7])])).toMatchObject({ rule: 'sources-metering' });
    expect(refusal(fold, [prune])).toMatchObject({ rule: 'sources-metering' });
  });
});
