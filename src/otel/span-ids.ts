// Trace and span ids derived from what the log holds, so that exporting a session twice gives the
// same ids (a backend keeps one copy) and a later export adds only what is new: a trace per
// session lifecycle (named by the seq of the event that began it), a span per event that began
// the operation.

import { nodeSha256Hex } from '../store/node-sha256.js';

function hexDigest(parts: readonly (string | number)[], length: number): string {
  // Each part followed by a NUL, hashed by the library's one hashing module.
  const hex = nodeSha256Hex(parts.map((part) => `${String(part)}\u0000`).join('')).slice(0, length);
  // An all-zero id is invalid in OTLP; a digest that begins with that many zeros is not met in practice, but is never sent.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace of the session lifecycle that began at `lifecycleSeq` (session/start, a session/end-seed, a session/fork). */
export function traceIdOf(sessionId: string, lifecycleSeq: number): string {
  return hexDigest(['shadowlog-trace', sessionId, lifecycleSeq], 32);
}

/** A span's id: its kind, the seq of the event that began it, and, for a tool call, its call id. */
export function spanIdOf(sessionId: string, kind: string, seq: number, callId?: string): string {
  return hexDigest(callId === undefined ? ['shadowlog-span', sessionId, kind, seq] : ['shadowlog-span', sessionId, kind, seq, callId], 16);
}
