// The streaming SHA-256 of both implementations (the log's plain TypeScript one and the store
// layer's node:crypto one): any split of a text into updates, and a copy taken anywhere and
// carried on separately, give the digest of the whole.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Sha256 } from '../../src/log/hash.js';
import { sha256Hex, typescriptSha256 } from '../../src/log/sha256.js';
import { nodeSha256 } from '../../src/store/node-sha256.js';

const expected = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
// Whole code points only: an update never splits a surrogate pair (see Sha256State).
const codePoint = fc.oneof(
  fc.constantFrom('a', 'é', '€', '\n', '\u0000', '😀', '"'),
  fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
);
const pieces = fc.array(fc.string({ unit: codePoint, maxLength: 150 }), { maxLength: 12 });

describe.each([
  ['plain TypeScript', typescriptSha256],
  ['node:crypto', nodeSha256],
] as Array<[string, Sha256]>)('the streaming SHA-256 (%s)', (_name, sha256) => {
  it('gives the digest of the whole text, however it is split, and hex() leaves the state going', () => {
    fc.assert(
      fc.property(pieces, (parts) => {
        const state = sha256.begin();
        let sofar = '';
        for (const part of parts) {
          state.update(part);
          sofar += part;
          expect(state.hex()).toBe(expected(sofar));
        }
        expect(state.hex()).toBe(sha256.hex(sofar));
      }),
      { numRuns: 300 },
    );
  });

  it('copies a state that goes on apart from the original', () => {
    fc.assert(
      fc.property(pieces, pieces, pieces, (common, left, right) => {
        const state = sha256.begin();
        for (const part of common) state.update(part);
        const copy = state.copy();
        for (const part of left) state.update(part);
        for (const part of right) copy.update(part);
        expect(state.hex()).toBe(expected([...common, ...left].join('')));
        expect(copy.hex()).toBe(expected([...common, ...right].join('')));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes across block boundaries and long texts', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 100_000]) {
      const text = 'x'.repeat(length);
      const state = sha256.begin();
      for (let at = 0; at < length; at += 37) state.update(text.slice(at, at + 37));
      expect(state.hex()).toBe(expected(text));
      expect(sha256Hex(text)).toBe(expected(text));
    }
  });
});

describe('one hashing module', () => {
  it('is the only place in src/ that hashes with node:crypto', () => {
    const root = resolve(import.meta.dirname, '../../src');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const hashing = files.filter((file) =>
      /\bcreateHash\s*\(|\bcreateHmac\s*\(|\bsubtle\.digest\s*\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(hashing).toEqual([join('store', 'node-sha256.ts')]);
  });
});
