// A session named by a prefix (of its id, or of its source harness's id) that more than one
// session has: nothing is read or written until the name is made longer.

import { ShadowlogError } from '../log/errors.js';
import type { SessionOrigin } from '../log/session-origin.js';

export interface SessionCandidate extends SessionOrigin {
  readonly id: string;
}

export class AmbiguousSessionError extends ShadowlogError {
  readonly given: string;
  /** The first candidates, described; `more` says how many others match. */
  readonly candidates: readonly SessionCandidate[];
  readonly more: number;
  constructor(given: string, candidates: readonly SessionCandidate[], more: number) {
    const listed = candidates.map((candidate) => {
      const request = candidate.firstRequest === null ? '' : `, "${clip(candidate.firstRequest, 60)}"`;
      const sourceId = candidate.sourceId === null || candidate.id.includes(candidate.sourceId) ? '' : ` ${candidate.sourceId}`;
      return `${candidate.id} (${candidate.source}${sourceId}${request})`;
    });
    super(
      'AMBIGUOUS_SESSION',
      `expected one session for ${JSON.stringify(given)}, found ${candidates.length + more}: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}. Give more of the id (\`shadowlog sessions\` lists them)`,
    );
    this.given = given;
    this.candidates = candidates;
    this.more = more;
  }
}

function clip(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
}
