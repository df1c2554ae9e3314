// Errors of the agent loop and of replay.

import { ShadowlogError } from '../log/errors.js';

export type ReplayProblem = 'no-such-call' | 'surface-differs' | 'digest-differs' | 'renderer-unknown' | 'model-unknown';

/** A model call that cannot be rebuilt, or whose rebuilt request differs from what was recorded. */
export class ReplayError extends ShadowlogError {
  readonly problem: ReplayProblem;
  constructor(problem: ReplayProblem, message: string) {
    super(problem === 'no-such-call' ? 'NO_SUCH_CALL' : 'REPLAY_MISMATCH', message);
    this.problem = problem;
  }
}

/** A turn started while another is running on the same session. */
export class TurnInProgressError extends ShadowlogError {
  constructor(sessionId: string) {
    super('TURN_IN_PROGRESS', `session ${sessionId} is already running a turn; wait for it to end before sending another message`);
  }
}
