// The recorder's typed errors: a record that could not be written (reported, never thrown into
// the app's call), and a model given to the recorder that it cannot drive.

import { messageOf, ShadowlogError } from '../log/errors.js';

/** A step's record the store refused; the app's call went on. Reported through onRecordError. */
export class RecordFailedError extends ShadowlogError {
  readonly sessionId: string;
  constructor(sessionId: string, what: string, cause: unknown) {
    super(
      'AI_SDK_RECORD_FAILED',
      `session ${sessionId}: ${what} was not recorded${cause === undefined ? '' : ` (${messageOf(cause)})`}; the app's call went on, and the record is tried again before the next one`,
      cause === undefined ? undefined : { cause },
    );
    this.sessionId = sessionId;
  }
}

/** The recorder's stand-in for the app's model was asked to send: the AI SDK sends, never the recorder. */
export class RecorderSendsNothingError extends ShadowlogError {
  constructor(what: string) {
    super(
      'AI_SDK_NOT_A_SENDER',
      `the recorder's compaction asked its model description to ${what}; the AI SDK model sends every call. Give compaction a summarizer ('extractive' or an AI SDK model) instead of one that uses the session's model`,
    );
  }
}
