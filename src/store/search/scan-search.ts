// Search by reading every event: for a store without a search index of its own (one written by
// an earlier schema and opened read-only, or another implementation of LogStore). Sessions go
// in id order, events in seq order. searchStore picks the store's own search when it has one.

import type { LogEvent } from '../../log/event.js';
import type { LogStore } from '../log-store.js';
import { HitCollector, type TurnStep, turnStepOf } from './search-hits.js';
import { shadowedSeqsOf } from './search-place.js';
import { compileSearch, hasSearch, type SearchQuery, type SearchResult } from './search-query.js';
import { searchParts } from './search-text.js';

/** Searches `store`: with its own search when it has one, else by reading every event (scanSearch). */
export async function searchStore(store: LogStore, query: SearchQuery): Promise<SearchResult> {
  return hasSearch(store) ? store.search(query) : scanSearch(store, query);
}

/** Searches `store` by reading every event of every session (or of `query.sessionId`). */
export async function scanSearch(store: LogStore, query: SearchQuery): Promise<SearchResult> {
  const search = compileSearch(query);
  const collector = new HitCollector(search);
  const sessionIds = search.sessionId !== undefined ? [search.sessionId] : (await store.listSessions()).map((session) => session.id);
  for (const sessionId of sessionIds) {
    if (collector.done) break;
    const events: LogEvent[] = [];
    for await (const page of store.read(sessionId)) events.push(...page);
    // A replacement comes after what it shadows: the whole session is read before any hit is placed.
    const shadowedBy = new Map<number, number>();
    for (const event of events) for (const seq of shadowedSeqsOf(event)) if (!shadowedBy.has(seq)) shadowedBy.set(seq, event.seq);
    let turnStep: TurnStep | undefined;
    for (const event of events) {
      if (collector.done) break;
      turnStep = turnStepOf(event) ?? turnStep;
      for (const part of searchParts(event)) {
        collector.offer(
          { sessionId, seq: event.seq, type: event.type, kind: part.kind, text: part.text, shadowedBy: shadowedBy.get(event.seq) },
          turnStep,
        );
      }
    }
  }
  return collector.result('scan');
}
