// Canonical JSON, SHA-256 and the hash chain (SPEC §2), checked against node:crypto and
// against canonical JSON written out by hand: another implementation that reads only the
// SPEC must compute the same hashes.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import { InvalidEventError } from '../../src/log/errors.js';
import type { EventDraft, LogEvent } from '../../src/log/event.js';
import { computeEventHash, envelopeJson, GENESIS_HASH } from '../../src/log/hash.js';
import { prepareAppend } from '../../src/log/seal.js';
import { sha256Hex, sha256HexBytes } from '../../src/log/sha256.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { FIXED_TIME, fixedNow } from '../support/events.js';
import { createTestRegistry, replaceOp } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

function nodeSha256(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Canonical JSON as the SPEC words it, written independently of src/: sorted keys, no whitespace. */
function referenceCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceCanonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${referenceCanonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function seal(list: readonly EventDraft[]): LogEvent[] {
  return [...prepareAppend(new SurfaceFold({ registry: createTestRegistry() }), list, fixedNow).events];
}

function withoutHash(event: LogEvent): Omit<LogEvent, 'hash'> {
  const { hash: _hash, ...rest } = event;
  return rest;
}

/** [1, <hole>, 3], built without a sparse literal. */
function arrayWithHole(): number[] {
  const array = new Array<number>(3);
  array[0] = 1;
  array[2] = 3;
  return array;
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('canonical JSON (SPEC §2)', () => {
  it('sorts object keys at every depth, inside arrays too', () => {
    const value = { b: 1, a: { d: [{ f: 1, e: { h: 2, g: 3 } }], c: true }, _: [3, 1, 2] };
    expect(canonicalJson(value)).toBe('{"_":[3,1,2],"a":{"c":true,"d":[{"e":{"g":3,"h":2},"f":1}]},"b":1}');
  });

  it('writes no whitespace outside strings', () => {
    const value = JSON.parse('{ "a" : [ 1 , 2 ] ,\n "b" : { "c" : "x y\\tz" } }') as unknown;
    expect(canonicalJson(value)).toBe('{"a":[1,2],"b":{"c":"x y\\tz"}}');
  });

  it('leaves out absent optional fields and keeps explicit nulls', () => {
    expect(canonicalJson({ a: undefined, b: 1, c: { d: undefined } })).toBe('{"b":1,"c":{}}');
    expect(canonicalJson({ a: null, b: [null] })).toBe('{"a":null,"b":[null]}');
  });

  it('writes strings and numbers exactly as JSON.stringify does', () => {
    const value = {
      s: 'quote " backslash \\ newline \n tab \t nul \u0000 é 🌍 你好 lone \ud800 end',
      n: [0, -0, 1.5, -2e-7, 1e21, 2 ** 53],
    };
    expect(canonicalJson(value)).toBe(`{"n":${JSON.stringify(value.n)},"s":${JSON.stringify(value.s)}}`);
  });

  it('orders keys by UTF-16 code units, integer-like keys as strings too', () => {
    // JSON.stringify alone would put the integer-like keys first, in numeric order.
    expect(canonicalJson({ b: 1, 10: 2, 2: 3, B: 4 })).toBe('{"10":2,"2":3,"B":4,"b":1}');
    // An astral key (surrogates D83D…) sorts before U+FFFF: code units, not code points.
    expect(canonicalJson({ '\uffff': 1, '😀': 2 })).toBe('{"😀":2,"\uffff":1}');
  });

  it('refuses data nested deeper than it can write with a typed error, not a RangeError (SPEC §13)', () => {
    // JSON.parse reads this (a tool call's arguments, an imported line); canonicalJson recurses
    // once per level and, today, overflows the stack at a few thousand levels.
    const deep = JSON.parse(`{"arguments":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as unknown;
    expect(() => canonicalJson(deep)).toThrow(InvalidEventError);
  });

  it('accepts objects without a prototype', () => {
    const value = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: 2 });
    expect(canonicalJson(value)).toBe('{"a":2,"b":1}');
  });

  it.each([
    ['NaN', { a: Number.NaN }],
    ['Infinity', { a: [Number.POSITIVE_INFINITY] }],
    ['-Infinity', { a: { b: Number.NEGATIVE_INFINITY } }],
    ['undefined in an array', { a: [1, undefined, 3] }],
    ['a hole in an array', { a: arrayWithHole() }],
    ['a Date', { a: new Date(0) }],
    ['a Map', { a: new Map([['k', 1]]) }],
    ['a Set', { a: new Set([1]) }],
    ['a class instance', { a: new Point(1, 2) }],
    ['a typed array', { a: new Uint8Array([1]) }],
    ['a boxed string', { a: Object('x') as unknown }],
    ['a bigint', { a: 1n }],
    ['a function', { a: () => 1 }],
    ['a symbol', { a: Symbol('s') }],
    ['undefined at the top', undefined],
  ])('refuses %s with InvalidEventError', (_, value) => {
    expect(() => canonicalJson(value)).toThrow(InvalidEventError);
    try {
      canonicalJson(value);
    } catch (error) {
      expect((error as InvalidEventError).code).toBe('INVALID_EVENT');
    }
  });

  it('refuses an event whose data JSON cannot carry, writing nothing to the fold', () => {
    const fold = new SurfaceFold();
    prepareAppend(fold, [{ type: 'session/start', data: { formatVersion: 1, harnessVersion: 'test' } }], fixedNow);
    const draft: EventDraft = {
      type: 'user/message',
      data: { content: [{ type: 'text', text: 'x' }], score: Number.NaN },
      surfaceOp: 'append',
    };
    expect(() => prepareAppend(fold, [draft], fixedNow)).toThrow(InvalidEventError);
    expect(fold.nextSeq).toBe(1);
    expect(fold.size).toBe(0);
  });

  it('agrees with an independent sorted-key writer on random JSON values, and is idempotent', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const written = canonicalJson(value);
        expect(written).toBe(referenceCanonical(value));
        expect(canonicalJson(JSON.parse(written))).toBe(written);
      }),
      { numRuns: 500 },
    );
  });
});

describe('sha256Hex', () => {
  it('matches the FIPS 180-4 vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
  const cjk = fc.integer({ min: 0x4e00, max: 0x9fff }).map((code) => String.fromCodePoint(code));
  const emoji = fc.integer({ min: 0x1f300, max: 0x1faff }).map((code) => String.fromCodePoint(code));
  const mixed = fc.oneof(fc.string({ unit: 'binary', maxLength: 1 }), loneSurrogate, cjk, emoji, fc.constantFrom('a', 'é', '€', '\n'));

  it.each([
    ['binary code points', fc.string({ unit: 'binary', maxLength: 200 })],
    ['graphemes (emoji, combining marks)', fc.string({ unit: 'grapheme', maxLength: 120 })],
    ['CJK', fc.string({ unit: cjk, maxLength: 120 })],
    ['a mix with lone surrogates', fc.string({ unit: mixed, maxLength: 150 })],
  ])('equals node:crypto on random strings: %s', (_, strings) => {
    fc.assert(
      fc.property(strings, (value) => {
        expect(sha256Hex(value)).toBe(nodeSha256(value));
      }),
      { numRuns: 300 },
    );
  });

  it('equals node:crypto at every length from 0 to 130 bytes (around the 55/56/64/119/120/128 boundaries)', () => {
    for (let length = 0; length <= 130; length++) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 31 + length) & 0xff);
      expect(sha256HexBytes(bytes), `bytes of length ${length}`).toBe(nodeSha256(bytes));
      const ascii = 'x'.repeat(length);
      expect(sha256Hex(ascii), `ascii of length ${length}`).toBe(nodeSha256(ascii));
    }
  });

  it('equals node:crypto on random bytes of up to 130 and up to 1,000 bytes', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 130 }), fc.uint8Array({ minLength: 120, maxLength: 1000 })), (bytes) => {
        expect(sha256HexBytes(bytes)).toBe(nodeSha256(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('equals node:crypto when a multi-byte character straddles a block boundary', () => {
    for (let prefix = 50; prefix <= 70; prefix++) {
      for (const character of ['é', '€', '😀', '\ud800']) {
        const value = `${'a'.repeat(prefix)}${character}${'b'.repeat(prefix % 7)}`;
        expect(sha256Hex(value), `${prefix} + ${JSON.stringify(character)}`).toBe(nodeSha256(value));
      }
    }
  });
});

describe('the hash chain (SPEC §2)', () => {
  // Drafts with keys out of order, non-ASCII text, escapes, an absent optional field
  // (usage: undefined), an ignorable unknown type, and a replace with unsorted sources.
  const handDrafts: EventDraft[] = [
    { type: 'session/start', data: { harnessVersion: 'test', formatVersion: 1 } },
    { type: 'user/message', surfaceOp: 'append', data: { content: [{ text: 'héllo 🌍 — 你好', type: 'text' }] } },
    {
      type: 'assistant/message',
      surfaceOp: 'append',
      data: {
        usage: undefined,
        model: 'scripted',
        toolCalls: [{ name: 'read_file', callId: 'c1', arguments: { path: 'a.ts', options: { limit: 10, encoding: 'utf8' } } }],
        content: [{ type: 'text', text: 'Line "one"\nline two' }],
      },
    },
    { type: 'tool/result', surfaceOp: 'append', data: { content: [], callId: 'c1' } },
    { type: 'custom/note', ignorable: true, data: { z: 1, a: [{ b: 2, a: null }] } },
    {
      type: 'user/message',
      sourceEventSeqs: [3, 2, 1, 4],
      surfaceOp: replaceOp(1, 3),
      data: { content: [{ type: 'text', text: 'Earlier context was compacted.' }] },
    },
  ];
  // The canonical JSON of each envelope without its hash, written out by hand from the SPEC.
  const handCanonical = [
    '{"data":{"formatVersion":1,"harnessVersion":"test"},"seq":0,"time":"2026-01-01T00:00:00.000Z","type":"session/start"}',
    '{"data":{"content":[{"text":"héllo 🌍 — 你好","type":"text"}]},"seq":1,"surfaceOp":"append","time":"2026-01-01T00:00:00.000Z","type":"user/message"}',
    String.raw`{"data":{"content":[{"text":"Line \"one\"\nline two","type":"text"}],"model":"scripted","toolCalls":[{"arguments":{"options":{"encoding":"utf8","limit":10},"path":"a.ts"},"callId":"c1","name":"read_file"}]},"seq":2,"surfaceOp":"append","time":"2026-01-01T00:00:00.000Z","type":"assistant/message"}`,
    '{"data":{"callId":"c1","content":[]},"seq":3,"surfaceOp":"append","time":"2026-01-01T00:00:00.000Z","type":"tool/result"}',
    '{"data":{"a":[{"a":null,"b":2}],"z":1},"ignorable":true,"seq":4,"time":"2026-01-01T00:00:00.000Z","type":"custom/note"}',
    '{"data":{"content":[{"text":"Earlier context was compacted.","type":"text"}]},"seq":5,"sourceEventSeqs":[3,2,1,4],"surfaceOp":{"endSeq":3,"op":"replace","startSeq":1},"time":"2026-01-01T00:00:00.000Z","type":"user/message"}',
  ];

  it('computes the hash the SPEC text describes, for a hand-written chain', () => {
    const events = seal(handDrafts);
    expect(events.every((event) => event.time === FIXED_TIME)).toBe(true);
    let prevHash = '0'.repeat(64);
    expect(GENESIS_HASH).toBe(prevHash);
    events.forEach((event, index) => {
      const canonical = handCanonical[index] as string;
      // sha256 over the UTF-8 bytes of prevHash + canonical JSON, with node:crypto.
      const expected = createHash('sha256')
        .update(Buffer.from(prevHash + canonical, 'utf8'))
        .digest('hex');
      expect(envelopeJson(withoutHash(event)), `canonical JSON of event ${index}`).toBe(canonical);
      expect(computeEventHash(prevHash, withoutHash(event)), `hash of event ${index}`).toBe(expected);
      expect(event.hash).toBe(expected);
      prevHash = expected;
    });
    // Pinned, so that a change to the format cannot go unnoticed.
    expect(events[0]?.hash).toBe('41a5991cd7f8751d5b1f4b7a4cb2062dd462c1bad87e93630c05454f11ad884b');
    expect(events[5]?.hash).toBe('c5e3886aa329048ce0d5369132121f91d108491ecd93488cec91e793a7f3d15e');
  });

  it('hashes every envelope field of random logs: sha256(prevHash + canonical(envelope without hash))', () => {
    fc.assert(
      fc.property(fc.noShrink(fc.integer({ min: 0, max: 2 ** 31 - 1 })), (seed) => {
        const events = seal(buildRandomLog(seed).drafts);
        let prevHash = '0'.repeat(64);
        for (const event of events) {
          expect(event.hash).toBe(nodeSha256(Buffer.from(prevHash + referenceCanonical(withoutHash(event)), 'utf8')));
          prevHash = event.hash;
        }
      }),
      { numRuns: 50 },
    );
  });

  it('changes when any part of the envelope or the previous hash changes', () => {
    const events = seal(handDrafts);
    const replace = withoutHash(events[5] as LogEvent);
    const prevHash = (events[4] as LogEvent).hash;
    const original = computeEventHash(prevHash, replace);
    const variants: Array<Omit<LogEvent, 'hash'>> = [
      { ...replace, time: '2026-01-01T00:00:00.001Z' },
      { ...replace, data: { content: [{ type: 'text', text: 'Earlier context was compacted!' }] } },
      { ...replace, sourceEventSeqs: [1, 2, 3, 4] as LogEvent['sourceEventSeqs'] & object },
      { ...replace, surfaceOp: replaceOp(2, 3) },
      { ...replace, ignorable: true },
      { ...replace, type: 'system/message' },
    ];
    for (const variant of variants) expect(computeEventHash(prevHash, variant)).not.toBe(original);
    expect(computeEventHash('f'.repeat(64), replace)).not.toBe(original);
  });

  it('stores a canonical copy: the hash does not depend on draft key order, and later changes to the draft reach nothing', () => {
    const data = { content: [{ type: 'text', text: 'hi' }] };
    const draft: EventDraft = { type: 'user/message', data, surfaceOp: 'append' };
    const [, a] = seal([handDrafts[0] as EventDraft, draft]);
    const [, b] = seal([
      handDrafts[0] as EventDraft,
      { surfaceOp: 'append', data: { content: [{ text: 'hi', type: 'text' }] }, type: 'user/message' },
    ]);
    expect(a?.hash).toBe(b?.hash);
    (data.content[0] as { text: string }).text = 'changed';
    expect(a?.data).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const [start] = seal([handDrafts[0] as EventDraft]);
    expect(a?.hash).toBe(computeEventHash((start as LogEvent).hash, withoutHash(a as LogEvent)));
  });
});
