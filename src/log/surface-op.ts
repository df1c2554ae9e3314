// SurfaceOp (SPEC §3): how a surface event changes what the model is shown.

import { SurfaceOpError } from './errors.js';
import { isSessionSeq, type SessionSeq } from './seq.js';

export type ReplaceOp = { readonly op: 'replace'; readonly startSeq: SessionSeq; readonly endSeq: SessionSeq };
export type SurfaceOp = 'append' | ReplaceOp;

export function isReplaceOp(op: SurfaceOp | undefined): op is ReplaceOp {
  return typeof op === 'object' && op !== null;
}

const REPLACE_KEYS = ['endSeq', 'op', 'startSeq'];

/** Checks the exact shape of a SurfaceOp: 'append', or an object with exactly op, startSeq, endSeq. */
export function parseSurfaceOp(value: unknown, seq: number): SurfaceOp {
  if (value === 'append') return 'append';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SurfaceOpError(
      'malformed',
      seq,
      `surfaceOp must be 'append' or {op: 'replace', startSeq, endSeq}, found ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  const keys = Object.keys(value).sort();
  const extra = keys.filter((key) => !REPLACE_KEYS.includes(key));
  const missing = REPLACE_KEYS.filter((key) => !keys.includes(key));
  if (extra.length > 0 || missing.length > 0) {
    const parts = [];
    if (extra.length > 0) parts.push(`unexpected key(s) ${extra.join(', ')}`);
    if (missing.length > 0) parts.push(`missing key(s) ${missing.join(', ')}`);
    throw new SurfaceOpError(
      'malformed',
      seq,
      `a replace surfaceOp has exactly the keys op, startSeq, endSeq; found ${parts.join(' and ')}`,
    );
  }
  const record = value as Record<string, unknown>;
  if (record.op !== 'replace') {
    throw new SurfaceOpError('malformed', seq, `surfaceOp.op must be 'replace', found ${JSON.stringify(record.op)}`);
  }
  if (!isSessionSeq(record.startSeq) || !isSessionSeq(record.endSeq)) {
    throw new SurfaceOpError(
      'malformed',
      seq,
      `surfaceOp.startSeq and endSeq must be non-negative safe integers, found ${JSON.stringify(record.startSeq)} and ${JSON.stringify(record.endSeq)}`,
    );
  }
  return { op: 'replace', startSeq: record.startSeq, endSeq: record.endSeq };
}
