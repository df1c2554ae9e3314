// What a served page's server holds of its one session, and the data it answers for: the calls'
// details by range (the latest known of each: a follow stream's checked view replaces the first
// document's unchecked one), the events by range (read from the store, as asked), and the record
// search (the store's own search, the `search` command's). Every range and text is checked
// before anything is read; a bad one is a ViewRequestError, answered 400 with its code.

import type { SessionMeterSettings } from '../compaction/session-call-meter.js';
import { ShadowlogError } from '../log/errors.js';
import type { LogStore } from '../store/log-store.js';
import { searchStore } from '../store/search/scan-search.js';
import { MAX_SEARCH_LIMIT, SearchQueryError } from '../store/search/search-query.js';
import { MAX_RANGE } from './client/page-blocks.js';
import { pageEvent } from './view-content.js';
import type { CallView } from './view-data.js';

/** A request for the page's data that cannot be answered as asked: a bad range, a bad search text. */
export class ViewRequestError extends ShadowlogError {
  readonly parameter: string;
  constructor(code: 'INVALID_RANGE' | 'INVALID_SEARCH' | 'INVALID_REQUEST', parameter: string, message: string) {
    super(code, message);
    this.parameter = parameter;
  }
}

const WHOLE_NUMBER = /^(0|[1-9]\d{0,14})$/;

/** The parameters of a request, each named at most once and none unknown. */
export function requestParameters(url: URL, allowed: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name))
      throw new ViewRequestError(
        'INVALID_REQUEST',
        name,
        `unknown parameter ${JSON.stringify(name)}; ${url.pathname} takes ${allowed.join(', ')}`,
      );
    if (found.has(name)) throw new ViewRequestError('INVALID_REQUEST', name, `parameter ${name} given twice`);
    found.set(name, value);
  }
  return found;
}

/** A range [from, to) within [0, size), at most MAX_RANGE long. */
export function rangeOf(parameters: Map<string, string>, size: number, what: string): { from: number; to: number } {
  const read = (name: string) => {
    const value = parameters.get(name);
    if (value === undefined || !WHOLE_NUMBER.test(value)) {
      throw new ViewRequestError(
        'INVALID_RANGE',
        name,
        `${name} must be a whole number (0, 1, 2, …), found ${JSON.stringify(value ?? null)}`,
      );
    }
    return Number(value);
  };
  const from = read('from');
  const to = read('to');
  if (from >= to || to > size || to - from > MAX_RANGE) {
    throw new ViewRequestError(
      'INVALID_RANGE',
      'to',
      `the range ${from}…${to} is not within the session's ${size} ${what}: from < to ≤ ${size}, at most ${MAX_RANGE} at a time`,
    );
  }
  return { from, to };
}

export class ServedSession {
  private calls: CallView[] = [];
  private readonly indexBySeq = new Map<number, number>();
  /** Calls a follow stream has checked: a later first document (unchecked) does not replace them. */
  private readonly checked = new Set<number>();
  eventCount = 0;
  meterSettings: SessionMeterSettings | undefined;

  constructor(
    private readonly store: LogStore,
    readonly sessionId: string,
  ) {}

  /** A first document was built: its calls, where no follow stream has told more. */
  built(calls: readonly CallView[], eventCount: number, meterSettings: SessionMeterSettings): void {
    for (const call of calls) if (!this.checked.has(call.seq)) this.put(call);
    this.eventCount = Math.max(this.eventCount, eventCount);
    this.meterSettings = meterSettings;
  }

  /** A follow stream's calls, checked. */
  checkedCalls(calls: readonly CallView[], eventCount: number): void {
    for (const call of calls) {
      this.checked.add(call.seq);
      this.put(call);
    }
    this.eventCount = Math.max(this.eventCount, eventCount);
  }

  private put(call: CallView): void {
    const index = this.indexBySeq.get(call.seq);
    if (index !== undefined) {
      this.calls[index] = call;
      return;
    }
    this.indexBySeq.set(call.seq, this.calls.length);
    this.calls.push(call);
  }

  callRange(parameters: Map<string, string>): CallView[] {
    const { from, to } = rangeOf(parameters, this.calls.length, 'model calls');
    return this.calls.slice(from, to);
  }

  async eventRange(parameters: Map<string, string>): Promise<unknown[]> {
    const { from, to } = rangeOf(parameters, this.eventCount, 'events');
    const events: unknown[] = [];
    for await (const page of this.store.read(this.sessionId, { fromSeq: from, toSeq: to }))
      for (const event of page) events.push(pageEvent(event));
    return events;
  }

  /** The seqs up to `to` (inclusive) whose text `search` finds `text` in, by the store's own search. */
  async search(parameters: Map<string, string>): Promise<{ seqs: number[]; truncated: boolean }> {
    const text = parameters.get('text') ?? '';
    const to = parameters.get('to');
    if (to === undefined || !WHOLE_NUMBER.test(to))
      throw new ViewRequestError('INVALID_RANGE', 'to', `to must be a seq (0, 1, 2, …), found ${JSON.stringify(to ?? null)}`);
    if (text.length > 1_000)
      throw new ViewRequestError('INVALID_SEARCH', 'text', `the text to find is ${text.length} characters long; at most 1,000`);
    try {
      const result = await searchStore(this.store, { text, sessionId: this.sessionId, limit: MAX_SEARCH_LIMIT });
      const last = Number(to);
      const seqs = [...new Set(result.hits.map((hit) => hit.seq))].filter((seq) => seq <= last).sort((a, b) => a - b);
      return { seqs, truncated: result.truncated };
    } catch (error) {
      if (error instanceof SearchQueryError) throw new ViewRequestError('INVALID_SEARCH', 'text', error.message);
      throw error;
    }
  }
}
