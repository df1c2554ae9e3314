// The typed errors of `tune`: input it cannot replay, and a grid or option it cannot read.

import { ShadowlogError } from '../log/errors.js';

/** A session that cannot be replayed as given (a call whose window nobody states). */
export class TuneInputError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, message: string) {
    super('TUNE_INPUT', `session ${sessionId}: ${message}`);
    this.sessionId = sessionId;
  }
}

/** A grid, strategy, baseline or price table that cannot be read; nothing is replayed. */
export class TuneConfigError extends ShadowlogError {
  readonly key: string;
  constructor(key: string, message: string) {
    super('INVALID_CONFIG', message);
    this.key = key;
  }
}

/** An evidence table the selection rule cannot decide on (misaligned, or no policy feasible everywhere). */
export class EvidenceRuleError extends ShadowlogError {
  readonly problem: 'misaligned' | 'no-feasible-policy' | 'invalid-figure';
  constructor(problem: 'misaligned' | 'no-feasible-policy' | 'invalid-figure', message: string) {
    super('EVIDENCE_RULE', message);
    this.problem = problem;
  }
}
