// What the proxy could not read in a request: a body it cannot read at all (it is forwarded and
// recorded as unparsed), or parts of one it reads (kept in the stored body, listed in the log).

import { ShadowlogError } from '../log/errors.js';

/** A request body that is not a request of its API (not JSON, no messages): forwarded as is and recorded as unparsed. */
export class UnreadableRequestError extends ShadowlogError {
  constructor(reason: string) {
    super('PROXY_UNREADABLE_REQUEST', `the proxy cannot read the request: ${reason}; it is forwarded unchanged and recorded as unparsed`);
  }
}

/** Collects notes on parts left out, in the form the importers' mappers report them. */
export class RequestNotes {
  readonly list: string[] = [];

  add(note: string): void {
    this.list.push(note);
  }

  /** A sink for a mapper, prefixing its notes with where in the body they are. */
  at(where: string): { note(line: number, reason: string): void } {
    return { note: (_line, reason) => this.list.push(`${where}: ${reason}`) };
  }
}
