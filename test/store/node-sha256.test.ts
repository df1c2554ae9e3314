// The node:crypto hasher the store layer passes to the log must give the log's own digests:
// a session sealed by one and verified by the other must agree, byte for byte.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/log/canonical-json.js';
import type { LogEvent } from '../../src/log/event.js';
import { GENESIS_HASH } from '../../src/log/hash.js';
import { prepareAppend, sealDraft } from '../../src/log/seal.js';
import type { SessionSeq } from '../../src/log/seq.js';
import { sha256Hex } from '../../src/log/sha256.js';
import { SurfaceFold } from '../../src/log/surface-fold.js';
import { verifyLog } from '../../src/log/verify.js';
import { nodeSha256Hex } from '../../src/store/node-sha256.js';
import { fixedNow } from '../support/events.js';
import { createTestRegistry } from '../support/log-drafts.js';
import { buildRandomLog } from '../support/random-log.js';

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const astral = fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 1 }), loneSurrogate, astral, fc.constantFrom('a', 'é', '€', '\n', '\u0000'));

describe('nodeSha256Hex', () => {
  it('equals the log’s sha256Hex on random strings, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit, maxLength: 200 }), fc.string({ unit: 'binary', minLength: 50, maxLength: 3000 })), (text) => {
        expect(nodeSha256Hex(text)).toBe(sha256Hex(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('encodes a lone surrogate as U+FFFD, as TextEncoder does; the log never hashes one, because canonical JSON escapes it', () => {
    for (const lone of ['\ud800', '\udbff', '\udc00', '\udfff', 'a\ud83d', '\ude00b', '\ude00\ud83d']) {
      const replaced = lone.replace(/[\ud800-\udfff]/g, '\ufffd');
      expect(Buffer.from(lone, 'utf8')).toEqual(Buffer.from(new TextEncoder().encode(lone)));
      expect(Buffer.from(lone, 'utf8')).toEqual(Buffer.from(replaced, 'utf8'));
      expect(nodeSha256Hex(lone)).toBe(sha256Hex(replaced));
      expect(sha256Hex(lone)).toBe(sha256Hex(replaced));
    }
    // A well-formed pair is one code point, not two replacements.
    expect(nodeSha256Hex('\ud83d\ude00')).toBe(sha256Hex('😀'));
    // JSON.stringify writes a lone surrogate as an escape, so data that differs only there hashes differently.
    expect(canonicalJson({ text: '\ud800' })).toBe('{"text":"\\ud800"}');
    const seal = (text: string) =>
      sealDraft({ type: 'custom/note', data: { text } }, 0 as SessionSeq, GENESIS_HASH, fixedNow, nodeSha256Hex);
    expect(seal('\ud800').hash).not.toBe(seal('\ufffd').hash);
  });

  it('seals random logs to the same hashes as the log’s own hasher, and each verifies the other’s chain', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const { drafts } = buildRandomLog(seed);
      const byNode = prepareAppend(new SurfaceFold({ registry: createTestRegistry() }), drafts, fixedNow, nodeSha256Hex).events;
      const byLog = prepareAppend(new SurfaceFold({ registry: createTestRegistry() }), drafts, fixedNow).events;
      expect(byNode.map((event: LogEvent) => event.hash)).toEqual(byLog.map((event: LogEvent) => event.hash));
      const registry = createTestRegistry();
      expect((await verifyLog([byNode], { registry })).ok).toBe(true);
      expect((await verifyLog([byLog], { registry, hasher: nodeSha256Hex })).ok).toBe(true);
    }
  });
});
