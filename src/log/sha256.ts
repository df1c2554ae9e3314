// SHA-256 (FIPS 180-4) in plain TypeScript, so that the log can hash without Node or an
// async WebCrypto call; streaming, with a copy of its state. Tested against node:crypto on
// random inputs.

import type { Sha256, Sha256State } from './hash.js';

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const encoder = new TextEncoder();
const words = new Uint32Array(64);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return sha256HexBytes(encoder.encode(text));
}

export function sha256HexBytes(message: Uint8Array): string {
  const state = new TypeScriptSha256State();
  state.updateBytes(message);
  return state.hex();
}

/**
 * SHA-256 in plain TypeScript, as a Sha256: the log's own, for a program without Node. On Node,
 * shadowlog hashes with node:crypto (store/node-sha256.ts); both give the same digests.
 */
export const typescriptSha256: Sha256 = {
  hex: sha256Hex,
  begin: () => new TypeScriptSha256State(),
};

class TypeScriptSha256State implements Sha256State {
  private readonly h = Int32Array.from(INITIAL);
  /** Bytes not yet compressed: fewer than 64. */
  private readonly pending = new Uint8Array(64);
  private pendingLength = 0;
  private total = 0;

  update(text: string): this {
    return this.updateBytes(encoder.encode(text));
  }

  updateBytes(bytes: Uint8Array): this {
    let offset = 0;
    this.total += bytes.length;
    if (this.pendingLength > 0) {
      const taken = Math.min(64 - this.pendingLength, bytes.length);
      this.pending.set(bytes.subarray(0, taken), this.pendingLength);
      this.pendingLength += taken;
      offset = taken;
      if (this.pendingLength < 64) return this;
      compress(this.h, new DataView(this.pending.buffer), 0);
      this.pendingLength = 0;
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (; offset + 64 <= bytes.length; offset += 64) compress(this.h, view, offset);
    this.pending.set(bytes.subarray(offset), 0);
    this.pendingLength = bytes.length - offset;
    return this;
  }

  copy(): TypeScriptSha256State {
    const copy = new TypeScriptSha256State();
    copy.h.set(this.h);
    copy.pending.set(this.pending);
    copy.pendingLength = this.pendingLength;
    copy.total = this.total;
    return copy;
  }

  hex(): string {
    // The padding is compressed into a copy: this state can go on being updated.
    const h = Int32Array.from(this.h);
    const tailLength = this.pendingLength + 9 <= 64 ? 64 : 128;
    const tail = new Uint8Array(tailLength);
    tail.set(this.pending.subarray(0, this.pendingLength));
    tail[this.pendingLength] = 0x80;
    const view = new DataView(tail.buffer);
    // Messages here are far below 2^53 bits; the high word carries what exceeds 2^32.
    const bitLength = this.total * 8;
    view.setUint32(tailLength - 8, Math.floor(bitLength / 0x100000000));
    view.setUint32(tailLength - 4, bitLength >>> 0);
    for (let offset = 0; offset < tailLength; offset += 64) compress(h, view, offset);
    let out = '';
    for (const word of h) {
      out += `${HEX[(word >>> 24) & 0xff]}${HEX[(word >>> 16) & 0xff]}${HEX[(word >>> 8) & 0xff]}${HEX[word & 0xff]}`;
    }
    return out;
  }
}

/** One 64-byte block of `view` at `offset` into the state `state`. */
function compress(state: Int32Array, view: DataView, offset: number): void {
  const w = words;
  for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15] as number;
    const b = w[i - 2] as number;
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + (K[i] as number) + (w[i] as number)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = ((state[0] as number) + a) | 0;
  state[1] = ((state[1] as number) + b) | 0;
  state[2] = ((state[2] as number) + c) | 0;
  state[3] = ((state[3] as number) + d) | 0;
  state[4] = ((state[4] as number) + e) | 0;
  state[5] = ((state[5] as number) + f) | 0;
  state[6] = ((state[6] as number) + g) | 0;
  state[7] = ((state[7] as number) + h) | 0;
}
