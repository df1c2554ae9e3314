// verify (SPEC §12): the hash chain, seq density, and every SurfaceOp rule, over a whole log.
// It reports problems instead of throwing, and names the first bad seq.

import { parseEnvelope } from './envelope.js';
import { messageOf, ShadowlogError } from './errors.js';
import type { LogEvent } from './event.js';
import { computeEventHash, GENESIS_HASH, type Hasher } from './hash.js';
import { sha256Hex } from './sha256.js';
import { SurfaceFold, type SurfaceFoldOptions } from './surface-fold.js';

export interface VerifyProblem {
  readonly seq: number;
  /** 'hash-mismatch', 'seq-gap', 'malformed-event', or the code of the rule the event broke. */
  readonly code: string;
  readonly message: string;
}

export interface VerifyReport {
  readonly ok: boolean;
  readonly firstBadSeq: number | null;
  readonly events: number;
  readonly problems: readonly VerifyProblem[];
  /**
   * Events that break a rule only new events are held to (EventTypeDefinition.validateNew: a
   * negative token count an earlier shadowlog wrote): the log is intact and reads, so they do
   * not fail it, but what they say is wrong.
   */
  readonly warnings: readonly VerifyProblem[];
}

export interface VerifyOptions extends SurfaceFoldOptions {
  /** Computes the SHA-256 of each event (default: the log's own sha256Hex; on Node, pass a node:crypto one). */
  readonly hasher?: Hasher;
  /** Shows the fold as the walk passes each of `seqs` (its nextSeq is then that seq): the checkpoints there are compared with it. */
  readonly foldAt?: { readonly seqs: ReadonlySet<number>; readonly visit: (fold: SurfaceFold) => void };
}

/** Checks a session's events: the hash chain, every event's shape and the surface rules; the report names the first bad seq. */
export async function verifyLog(
  pages: AsyncIterable<readonly unknown[]> | Iterable<readonly unknown[]>,
  options: VerifyOptions = {},
): Promise<VerifyReport> {
  const problems: VerifyProblem[] = [];
  const warnings: VerifyProblem[] = [];
  const { hasher = sha256Hex, foldAt, ...foldOptions } = options;
  const fold = new SurfaceFold(foldOptions);
  let foldUsable = true;
  let expectedSeq = 0;
  let prevHash = GENESIS_HASH;
  let count = 0;

  try {
    for await (const page of pages) {
      for (const raw of page) {
        count++;
        let event: LogEvent;
        try {
          event = parseEnvelope(raw);
        } catch (error) {
          problems.push({ seq: expectedSeq, code: 'malformed-event', message: messageOf(error) });
          foldUsable = false;
          expectedSeq++;
          continue;
        }
        if (event.seq !== expectedSeq) {
          problems.push({
            seq: Math.min(event.seq, expectedSeq),
            code: 'seq-gap',
            message:
              event.seq > expectedSeq
                ? `expected seq ${expectedSeq}, found ${event.seq}: ${event.seq - expectedSeq} event(s) missing`
                : `expected seq ${expectedSeq}, found ${event.seq} again or out of order`,
          });
          foldUsable = false;
        }
        const hash = computeEventHash(prevHash, event, hasher);
        if (hash !== event.hash) {
          problems.push({
            seq: event.seq,
            code: 'hash-mismatch',
            message: `stored hash ${event.hash.slice(0, 12)}… does not match the recomputed ${hash.slice(0, 12)}…: the event or the one before it was changed`,
          });
        }
        if (foldUsable) {
          try {
            fold.apply(event);
            if (foldAt?.seqs.has(fold.nextSeq) === true) foldAt.visit(fold);
            const broken = brokenNewRule(fold, event);
            if (broken !== undefined) warnings.push(broken);
          } catch (error) {
            problems.push({
              seq: event.seq,
              code: ShadowlogError.isInstance(error) ? error.code : 'invalid',
              message: `${messageOf(error)} (surface checks stop here)`,
            });
            foldUsable = false;
          }
        }
        prevHash = event.hash;
        expectedSeq = event.seq + 1;
      }
    }
  } catch (error) {
    // A store that cannot deliver an event (a row deleted behind its back, a body that is not
    // JSON) says which seq; that is a finding of verify, not a reason to give up without a report.
    const seq: unknown = ShadowlogError.isInstance(error) ? (error as unknown as { seq?: unknown }).seq : undefined;
    if (!ShadowlogError.isInstance(error) || typeof seq !== 'number') throw error;
    problems.push({ seq, code: error.code, message: `${error.message} (verify stops here)` });
  }
  if (foldUsable) {
    for (const meter of fold.unclaimedMeteringEvents()) {
      problems.push({
        seq: meter.seq,
        code: 'INVALID_SURFACE_OP',
        message: `event ${meter.seq}: ${meter.type} measures a replacement, but no replacement lists it in its sourceEventSeqs; it is written in one batch with the replacement it measures`,
      });
    }
  }
  const firstBadSeq = problems.reduce<number | null>(
    (least, problem) => (least === null || problem.seq < least ? problem.seq : least),
    null,
  );
  return { ok: problems.length === 0, firstBadSeq, events: count, problems, warnings };
}

/** The rule only new events are held to that a stored `event` breaks, if it breaks one. */
function brokenNewRule(fold: SurfaceFold, event: LogEvent): VerifyProblem | undefined {
  try {
    fold.registry.validateNewData(event.type, event.data, event.seq);
    return undefined;
  } catch (error) {
    if (!ShadowlogError.isInstance(error)) throw error;
    return {
      seq: event.seq,
      code: error.code,
      message: `${error.message} (shadowlog refuses to append such an event now; one written before, by an earlier version, still reads, but what it says is wrong)`,
    };
  }
}
