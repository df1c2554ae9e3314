// The memory store's search: no index, a scan of its events in the order they were appended
// (the order the SQL stores' indexes keep), with what shadows each event noted at append time.

import type { LogEvent } from '../../log/event.js';
import { HitCollector, type TurnStep, turnStepOf } from '../search/search-hits.js';
import { shadowedSeqsOf } from '../search/search-place.js';
import { compileSearch, type SearchQuery, type SearchResult } from '../search/search-query.js';
import { searchParts } from '../search/search-text.js';

export class MemorySearch {
  /** Every appended event's session and seq, in append order. */
  private readonly order: { readonly sessionId: string; readonly seq: number }[] = [];
  /** Per session: seq → the seq of the replacement that shadows it. */
  private readonly shadowed = new Map<string, Map<number, number>>();

  /** Notes appended events; call once they are stored. */
  add(sessionId: string, events: readonly LogEvent[]): void {
    for (const event of events) {
      this.order.push({ sessionId, seq: event.seq });
      const seqs = shadowedSeqsOf(event);
      if (seqs.length === 0) continue;
      const map = this.shadowed.get(sessionId) ?? new Map<number, number>();
      for (const seq of seqs) if (!map.has(seq)) map.set(seq, event.seq);
      this.shadowed.set(sessionId, map);
    }
  }

  search(query: SearchQuery, sessions: ReadonlyMap<string, readonly LogEvent[]>): SearchResult {
    const search = compileSearch(query);
    const collector = new HitCollector(search);
    for (const { sessionId, seq } of this.order) {
      if (collector.done) break;
      if (search.sessionId !== undefined && sessionId !== search.sessionId) continue;
      const log = sessions.get(sessionId) ?? [];
      const event = log[seq] as LogEvent;
      const shadowedBy = this.shadowed.get(sessionId)?.get(seq);
      for (const part of searchParts(event)) {
        const hit = collector.offer({ sessionId, seq, type: event.type, kind: part.kind, text: part.text, shadowedBy });
        if (hit !== undefined) collector.placeInTurn(hit, turnStepBefore(log, seq));
      }
    }
    return collector.result('scan');
  }
}

/** The turn and step of the event at `seq`: those of the last turn/start or model/request at or before it. */
export function turnStepBefore(log: readonly LogEvent[], seq: number): TurnStep {
  for (let at = seq; at >= 0; at--) {
    const found = turnStepOf(log[at] as LogEvent);
    if (found !== undefined) return found;
  }
  return {};
}
