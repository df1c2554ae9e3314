// A search of a store (`shadowlog search`): what is asked, what each hit says, and the checks and
// matching that every store shares. Stores find candidates their own way (an index, a scan); the
// match that decides a hit, and its snippet, are made here.

import { ShadowlogError } from '../../log/errors.js';
import { assertSessionId } from '../../log/session-id.js';
import type { LogStore } from '../log-store.js';
import { normalizeSearchText, plainTextMatcher } from './search-match.js';
import type { SearchPlace } from './search-place.js';
import { SEARCH_KINDS, type SearchKind } from './search-text.js';

export interface SearchQuery {
  /** The text to find: a case-insensitive substring, or with `regex` a JavaScript regular expression (case-sensitive, `u` flag). */
  readonly text: string;
  readonly regex?: boolean;
  /** Only these kinds of text (default: all). */
  readonly kinds?: readonly SearchKind[];
  /** Only this session (a full id). */
  readonly sessionId?: string;
  /** At most this many hits (default 50, at most 10,000). */
  readonly limit?: number;
}

export interface SearchHit {
  readonly sessionId: string;
  readonly seq: number;
  /** The event's type, e.g. `tool/result`. */
  readonly type: string;
  /** Which part of the event matched. */
  readonly kind: SearchKind;
  /** The turn and step (model call) the event belongs to, when the session records them before it. */
  readonly turn?: number;
  readonly step?: number;
  readonly place: SearchPlace;
  /** For a shadowed hit: the seq of the replacement (summary or pruned result) that shadows it. */
  readonly shadowedBy?: number;
  /** The text around the match, on one line (control characters are spaces), `…` where it was cut. */
  readonly snippet: string;
  /** Where the match is in `snippet` (UTF-16 offsets). */
  readonly matchStart: number;
  readonly matchLength: number;
}

export interface SearchResult {
  /** In the order the store received the events (append order); a scan of a store without an index goes by session id, then seq. */
  readonly hits: SearchHit[];
  /** True when more hits than `limit` exist. */
  readonly truncated: boolean;
  /** `index`: candidates came from the store's search index; `scan`: every event's text was read (a regex, text under 3 characters, or a store without an index). */
  readonly method: 'index' | 'scan';
  /** How many candidate texts were checked. */
  readonly examined: number;
}

/** A store that searches its events itself (every store of this package does; see scanSearch for others). */
export interface SearchableStore {
  search(query: SearchQuery): Promise<SearchResult>;
}

export function hasSearch(store: LogStore): store is LogStore & SearchableStore {
  return typeof (store as Partial<SearchableStore>).search === 'function';
}

/** A search that cannot run as asked: an empty text, a regular expression that does not compile, an unknown kind, a bad limit. */
export class SearchQueryError extends ShadowlogError {
  readonly field: string;
  constructor(field: string, expected: string, found: string) {
    super('INVALID_SEARCH_QUERY', `search ${field}: expected ${expected}, found ${found}`);
    this.field = field;
  }
}

export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 10_000;
/** The shortest text an index can look up (trigrams); shorter texts are searched by a scan. */
export const MIN_INDEXED_CHARS = 3;
const SNIPPET_SIDE_CHARS = 60;

/** A checked query, with the matcher that decides a hit. */
export interface CompiledSearch {
  readonly text: string;
  readonly regex: boolean;
  readonly kinds: readonly SearchKind[] | undefined;
  readonly sessionId: string | undefined;
  readonly limit: number;
  /** The plain text as search reads it (normalized), when an index can look it up; else undefined and the store scans. */
  readonly indexedText: string | undefined;
  /** Where `text` matches in a part's text, or undefined. */
  match(text: string): { start: number; length: number } | undefined;
}

/** Checks `query` (SearchQueryError for anything that cannot run; InvalidSessionIdError for a bad session id). */
export function compileSearch(query: SearchQuery): CompiledSearch {
  const { text, regex = false, kinds, sessionId, limit = DEFAULT_SEARCH_LIMIT } = query;
  if (typeof text !== 'string' || text.length === 0) throw new SearchQueryError('text', 'a non-empty text', JSON.stringify(text));
  if (typeof regex !== 'boolean') throw new SearchQueryError('regex', 'true or false', String(regex));
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new SearchQueryError('limit', `a whole number from 1 to ${MAX_SEARCH_LIMIT}`, String(limit));
  }
  if (kinds !== undefined) {
    const unknown = kinds.filter((kind) => !(SEARCH_KINDS as readonly string[]).includes(kind));
    if (unknown.length > 0 || kinds.length === 0) {
      throw new SearchQueryError('type', `one or more of ${SEARCH_KINDS.join(', ')}`, unknown.length > 0 ? unknown.join(', ') : 'none');
    }
  }
  if (sessionId !== undefined) assertSessionId(sessionId);
  const common = { text, regex, kinds: kinds === undefined ? undefined : [...new Set(kinds)], sessionId, limit };
  if (regex) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(text, 'u');
    } catch (error) {
      throw new SearchQueryError(
        'regex',
        'a JavaScript regular expression (u flag)',
        `${JSON.stringify(text)}: ${(error as Error).message}; escape special characters with \\, or search without --regex`,
      );
    }
    return {
      ...common,
      indexedText: undefined,
      match: (candidate) => {
        const found = pattern.exec(candidate);
        return found === null ? undefined : { start: found.index, length: found[0].length };
      },
    };
  }
  const normalized = normalizeSearchText(text);
  if (normalized.trim() === '') throw new SearchQueryError('text', 'some text besides spaces and control characters', JSON.stringify(text));
  return {
    ...common,
    indexedText: [...normalized].length >= MIN_INDEXED_CHARS ? normalized : undefined,
    match: plainTextMatcher(text),
  };
}

/** The snippet of `text` around a match: up to 60 characters each side, spaces collapsed, `…` where cut. */
export function snippetAround(text: string, start: number, length: number): { snippet: string; matchStart: number; matchLength: number } {
  let from = Math.max(0, start - SNIPPET_SIDE_CHARS);
  let to = Math.min(text.length, start + length + SNIPPET_SIDE_CHARS);
  // Never half a surrogate pair.
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--;
  if (to < text.length && isLowSurrogate(text.charCodeAt(to))) to++;
  const before = `${from > 0 ? '…' : ''}${collapse(text.slice(from, start)).trimStart()}`;
  const matched = collapse(text.slice(start, start + length));
  const after = `${collapse(text.slice(start + length, to)).trimEnd()}${to < text.length ? '…' : ''}`;
  return { snippet: `${before}${matched}${after}`, matchStart: before.length, matchLength: matched.length };
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
