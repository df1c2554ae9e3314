// Sealing writes each event's canonical JSON once and assembles the hashed envelope and the
// stored body from it (src/log/event-json.ts). These properties hold it to the slow, obvious
// definitions: the text hashed is prevHash + canonicalJson(envelope without hash), and the body
// is canonicalJson(event), for random drafts, random logs and re-read events.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, MAX_JSON_DEPTH } from '../../src/log/canonical-json.js';
import { InvalidEventError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { canonicalEventJson, forgetCanonicalBody, rehashEvent } from '../../src/log/event-json.js';
import { computeEventHash, envelopeJson, GENESIS_HASH, type Hasher } from '../../src/log/hash.js';
import { prepareAppend, sealDraft } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { fixedNow } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

function withoutHash(event: LogEvent): Omit<LogEvent, 'hash'> {
  const { hash: _hash, ...rest } = event;
  return rest;
}

/** A hasher that keeps every text it was given. */
function recordingHasher(): { hasher: Hasher; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    hasher: (text) => {
      texts.push(text);
      return sha256Hex(text);
    },
  };
}

/** Keys that sort in surprising places, or that JavaScript treats specially. */
const awkwardKey = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('__proto__', 'constructor', '10', '2', '', 'hash', 'seq', 'data', '😀', '\uffff', '\ud800'),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.string({ unit: fc.oneof(fc.constantFrom('\ud800', '\udfff', '"', '\\', '\n', '\u2028', 'é'), fc.string({ maxLength: 1 })) }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  // JSON.parse makes "__proto__" an own property, as a parsed tool argument would have it.
  object: fc.dictionary(awkwardKey, tie('value'), { maxKeys: 5 }).map((entries) => JSON.parse(JSON.stringify(entries)) as object),
}));

const hexHash = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });

const draft: fc.Arbitrary<EventDraft> = fc
  .record(
    {
      type: fc.constantFrom('user/message', 'tool/result', 'custom/note', 'compaction/summary', 'x/y'),
      data: jsonValue.object,
      surfaceOp: fc.oneof(
        fc.constant('append'),
        fc.record({ op: fc.constant('replace'), startSeq: fc.nat(), endSeq: fc.nat() }),
        jsonValue.value,
      ),
      sourceEventSeqs: fc.array(fc.nat(), { maxLength: 6 }),
      ignorable: fc.constant(true as const),
      time: fc.constantFrom('2026-01-01T00:00:00.000Z', '2026-12-31T23:59:59.123456789Z'),
    },
    { requiredKeys: ['type', 'data'] },
  )
  .map((value) => value as EventDraft);

describe('the canonical JSON of a sealed event, written once', () => {
  it('hashes prevHash + canonicalJson(envelope) and remembers canonicalJson(event), for random drafts', () => {
    fc.assert(
      fc.property(draft, fc.nat({ max: 2 ** 31 }), hexHash, (value, seq, prevHash) => {
        const { hasher, texts } = recordingHasher();
        const event = sealDraft(value, seq as SessionSeq, prevHash, fixedNow, hasher);
        expect(texts).toEqual([prevHash + canonicalJson(withoutHash(event))]);
        expect(texts[0]).toBe(prevHash + envelopeJson(withoutHash(event)));
        expect(event.hash).toBe(computeEventHash(prevHash, withoutHash(event)));
        expect(canonicalEventJson(event)).toBe(canonicalJson(event));
        // Once the store has it, the body is let go of, and written again when asked for.
        forgetCanonicalBody(event);
        forgetCanonicalBody(event);
        expect(canonicalEventJson(event)).toBe(canonicalJson(event));
        expect(Object.keys(event)).toEqual(Object.keys(structuredClone(event)));
      }),
      { numRuns: 1000 },
    );
  });

  it('hashes and remembers the same for every event of random logs', () => {
    fc.assert(
      fc.property(fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 })), (seed) => {
        const { hasher, texts } = recordingHasher();
        const fold = new SurfaceFold({ registry: createTestRegistry() });
        const events = prepareAppend(fold, buildRandomLog(seed).drafts, fixedNow, hasher).events;
        let prevHash = GENESIS_HASH;
        events.forEach((event, index) => {
          expect(texts[index]).toBe(prevHash + canonicalJson(withoutHash(event)));
          expect(canonicalEventJson(event)).toBe(canonicalJson(event));
          prevHash = event.hash;
        });
      }),
      { numRuns: 50 },
    );
  });

  it('rehashes an event read back, however it was written, and remembers its canonical body when the hash matches', () => {
    fc.assert(
      fc.property(draft, fc.boolean(), (value, pretty) => {
        const sealed = sealDraft(value, 7 as SessionSeq, GENESIS_HASH, fixedNow);
        // Written back in another key order and with whitespace: the body must still come out canonical.
        const text = pretty ? JSON.stringify(Object.fromEntries(Object.entries(sealed).reverse()), null, 2) : canonicalJson(sealed);
        const read = JSON.parse(text) as LogEvent;
        expect(rehashEvent(GENESIS_HASH, read, sha256Hex)).toBe(sealed.hash);
        expect(canonicalEventJson(read)).toBe(canonicalJson(sealed));
        const tampered = JSON.parse(text) as LogEvent;
        expect(rehashEvent('f'.repeat(64), tampered, sha256Hex)).not.toBe(sealed.hash);
      }),
      { numRuns: 300 },
    );
  });

  it('serializes a changed copy of a sealed event afresh: the remembered body does not travel with spreads or clones', () => {
    const sealed = sealDraft({ type: 'custom/note', data: { a: 1 } }, 0 as SessionSeq, GENESIS_HASH, fixedNow);
    const changed = { ...sealed, data: { a: 2 } };
    expect(canonicalEventJson(changed)).toBe(canonicalJson(changed));
    expect(canonicalEventJson(structuredClone(sealed))).toBe(canonicalJson(sealed));
    // Nothing extra shows in the event's keys or its plain JSON.
    expect(Object.keys(sealed)).toEqual(['seq', 'type', 'time', 'data', 'hash']);
    expect(JSON.parse(JSON.stringify(sealed))).toEqual(sealed);
  });

  it('refuses data nested too deep to sit inside the envelope, exactly as serializing the whole envelope would', () => {
    /** An object nested `levels` deep: {"a":{"a":…{}}}. */
    const nested = (levels: number): object => {
      let value: object = {};
      for (let level = 1; level < levels; level++) value = { a: value };
      return value;
    };
    // `data` sits at depth 1 of the envelope, so it may hold MAX_JSON_DEPTH - 1 levels.
    const fits = nested(MAX_JSON_DEPTH - 1);
    const tooDeep = nested(MAX_JSON_DEPTH);
    expect(() => canonicalJson(tooDeep)).not.toThrow();
    expect(() => canonicalJson({ data: tooDeep })).toThrow(InvalidEventError);
    expect(() => sealDraft({ type: 'custom/note', data: tooDeep }, 0 as SessionSeq, GENESIS_HASH, fixedNow)).toThrow(InvalidEventError);
    const event = sealDraft({ type: 'custom/note', data: fits }, 0 as SessionSeq, GENESIS_HASH, fixedNow);
    expect(canonicalEventJson(event)).toBe(canonicalJson(event));
    expect(() =>
      sealDraft({ type: 'custom/note', data: {}, surfaceOp: tooDeep as never }, 0 as SessionSeq, GENESIS_HASH, fixedNow),
    ).toThrow(InvalidEventError);
  });
});
