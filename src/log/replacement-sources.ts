// The sourceEventSeqs of a replace (SPEC §3): what it must list, and what else it may list (the
// replacement's own metering events, which must describe it).

import { SurfaceOpError } from './errors.js';
import type { LogEvent } from './event.js';
import type { MeteringEvent, MeteringLedger } from './metering-ledger.js';
import { isSessionSeq, type SessionSeq } from './seq.js';

/**
 * sourceEventSeqs: non-empty, unique, earlier, every shadowed node, and otherwise only log-only
 * events; returns them with the metering events among them, which must describe this replace.
 */
export function checkSources(
  event: LogEvent,
  shadowed: readonly { readonly seq: SessionSeq }[],
  ledger: MeteringLedger,
  isSurfaceEvent: (seq: number) => boolean,
): { sources: readonly SessionSeq[]; meters: MeteringEvent[] } {
  const seq = event.seq;
  const sources = event.sourceEventSeqs;
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new SurfaceOpError('sources-malformed', seq, 'a replace must list the events it shadows in a non-empty sourceEventSeqs array');
  }
  const listed = new Set<SessionSeq>();
  for (const source of sources as readonly unknown[]) {
    if (!isSessionSeq(source)) {
      throw new SurfaceOpError(
        'sources-malformed',
        seq,
        `sourceEventSeqs must hold seqs (whole numbers from 0), found ${JSON.stringify(source) ?? String(source)}`,
      );
    }
    if (source >= seq) {
      throw new SurfaceOpError(
        'sources-malformed',
        seq,
        `sourceEventSeqs must hold seqs of earlier events, smaller than the replace's own seq ${seq}; found ${source}`,
      );
    }
    if (listed.has(source)) throw new SurfaceOpError('sources-malformed', seq, `sourceEventSeqs lists seq ${source} twice`);
    listed.add(source);
  }
  const missing = shadowed.filter((node) => !listed.has(node.seq)).map((node) => node.seq);
  if (missing.length > 0) {
    throw new SurfaceOpError(
      'sources-missing',
      seq,
      `sourceEventSeqs must list every shadowed surface node; missing ${missing.join(', ')}`,
      missing,
    );
  }
  const meters: MeteringEvent[] = [];
  if (listed.size > shadowed.length) {
    // Extra sources are the replacement's own log-only events (its metering event), so they
    // were written after everything it shadows.
    const inRange = new Set(shadowed.map((node) => node.seq));
    const lastShadowed = Math.max(...inRange);
    for (const source of listed) {
      if (inRange.has(source)) continue;
      const meter = ledger.get(source);
      if (meter !== undefined) {
        ledger.checkClaim(
          meter,
          seq,
          shadowed.map((node) => node.seq),
        );
        meters.push(meter);
        continue;
      }
      if (isSurfaceEvent(source)) {
        throw new SurfaceOpError(
          'sources-foreign',
          seq,
          `sourceEventSeqs lists seq ${source}, a surface event this replace does not shadow; besides the shadowed nodes it may list only log-only events of the replacement`,
        );
      }
      if (source < lastShadowed) {
        throw new SurfaceOpError(
          'sources-foreign',
          seq,
          `sourceEventSeqs lists log-only event ${source}, which is older than the shadowed node ${lastShadowed}; besides the shadowed nodes it may list only the replacement's own log-only events, written after what it shadows`,
        );
      }
    }
  }
  return { sources: sources as readonly SessionSeq[], meters };
}
