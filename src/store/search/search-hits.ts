// Turning candidates into hits, the same way in every store: the match decides, the snippet is
// cut around it, and the hits are counted up to the limit (one past it tells that more exist).

import type { LogEvent } from '../../log/event.js';
import { dataOf } from '../../log/event-data.js';
import { placeOf } from './search-place.js';
import type { CompiledSearch, SearchHit, SearchResult } from './search-query.js';
import { snippetAround } from './search-query.js';
import type { SearchKind } from './search-text.js';

/** A part of an event a store found, to be checked against the query. */
export interface SearchCandidate {
  readonly sessionId: string;
  readonly seq: number;
  readonly type: string;
  readonly kind: SearchKind;
  readonly text: string;
  readonly shadowedBy?: number | undefined;
}

export interface TurnStep {
  readonly turn?: number;
  readonly step?: number;
}

/** The turn (and step) an event opens: a turn/start its turn, a model/request its turn and step; undefined for others. */
export function turnStepOf(event: LogEvent): TurnStep | undefined {
  try {
    if (event.type === 'turn/start') return { turn: dataOf(event, 'turn/start').turn };
    if (event.type === 'model/request') {
      const data = dataOf(event, 'model/request');
      return { turn: data.turn, step: data.step };
    }
  } catch {
    // A marker of the wrong shape tells no turn.
  }
  return undefined;
}

/** Collects the hits of one search. */
export class HitCollector {
  readonly hits: SearchHit[] = [];
  examined = 0;
  private more = false;

  constructor(private readonly search: CompiledSearch) {}

  /** Whether the search can stop: the limit is reached and one more hit was seen. */
  get done(): boolean {
    return this.more;
  }

  /** Checks a candidate; returns the hit it made, if any. */
  offer(candidate: SearchCandidate, turnStep?: TurnStep): SearchHit | undefined {
    if (this.more) return undefined;
    if (this.search.kinds !== undefined && !this.search.kinds.includes(candidate.kind)) return undefined;
    this.examined++;
    const found = this.search.match(candidate.text);
    if (found === undefined) return undefined;
    if (this.hits.length === this.search.limit) {
      this.more = true;
      return undefined;
    }
    const { snippet, matchStart, matchLength } = snippetAround(candidate.text, found.start, found.length);
    const hit: SearchHit = {
      sessionId: candidate.sessionId,
      seq: candidate.seq,
      type: candidate.type,
      kind: candidate.kind,
      ...(turnStep?.turn === undefined ? {} : { turn: turnStep.turn }),
      ...(turnStep?.step === undefined ? {} : { step: turnStep.step }),
      place: placeOf(candidate.type, candidate.shadowedBy),
      ...(candidate.shadowedBy === undefined ? {} : { shadowedBy: candidate.shadowedBy }),
      snippet,
      matchStart,
      matchLength,
    };
    this.hits.push(hit);
    return hit;
  }

  /** Adds the turn and step to the hit offer() just made (stores that look them up only for hits). */
  placeInTurn(hit: SearchHit, turnStep: TurnStep): void {
    const index = this.hits.lastIndexOf(hit);
    if (index >= 0) this.hits[index] = { ...hit, ...turnStep };
  }

  result(method: SearchResult['method']): SearchResult {
    return { hits: this.hits, truncated: this.more, method, examined: this.examined };
  }
}
