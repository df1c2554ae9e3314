// Keys for PostgreSQL advisory locks. Advisory locks are per database, not per schema, so a key
// names its purpose, the schema and (for ownership) the session: two stores in different
// schemas of one database, or another application's locks, do not meet by design.

import { nodeSha256Hex } from '../node-sha256.js';

/**
 * The first 8 bytes of SHA-256 over the purpose, the schema and the session id (NUL-separated,
 * so no two different triples give the same input), as a signed 64-bit integer in decimal:
 * the one-argument bigint form of pg_advisory_lock. Computed here rather than with the
 * server's hashtext(), whose output PostgreSQL does not promise to keep across versions.
 * Two different sessions share a key with probability about 2^-64 per pair.
 */
export function advisoryLockKey(purpose: 'migrate' | 'owner', schema: string, sessionId = ''): string {
  const digest = Buffer.from(nodeSha256Hex(`shadowlog\0${purpose}\0${schema}\0${sessionId}`), 'hex');
  return digest.readBigInt64BE(0).toString();
}
