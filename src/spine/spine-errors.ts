// Errors of the agent loop and of replay.

import { constants } from 'node:buffer';
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

/**
 * A model's answer that a log rule refused as an assistant/message. It was recorded as it
 * arrived in a model/unrecorded-answer event, and the turn ended with `error`; `cause` is the
 * refusal.
 */
export class UnrecordedAnswerError extends ShadowlogError {
  readonly turn: number;
  readonly step: number;
  /** The seq of the model/unrecorded-answer event that holds the answer. */
  readonly seq: number;
  constructor(turn: number, step: number, seq: number, refusal: ShadowlogError) {
    super(
      'UNRECORDED_ANSWER',
      `turn ${turn} step ${step}: the model's answer could not be recorded as an assistant/message (${refusal.message}); it is kept as it arrived in event #${seq} (model/unrecorded-answer), and the turn ended; the session goes on with the next message`,
      { cause: refusal },
    );
    this.turn = turn;
    this.step = step;
    this.seq = seq;
  }
}

/** An event whose JSON would be longer than a JavaScript string can be (RangeError: Invalid string length). */
export class TooLargeToRecordError extends ShadowlogError {
  constructor(what: string, cause: unknown) {
    super(
      'TOO_LARGE_TO_RECORD',
      `${what} is too large to write as JSON: a JavaScript string holds at most ${constants.MAX_STRING_LENGTH.toLocaleString('en-US')} characters`,
      { cause },
    );
  }
}
