// A reader that goes away (`shadowlog show … | head -1`) closes standard output under the
// command. That is not a failure of the command: it ends quietly, with status 0, instead of
// dying on an unhandled EPIPE with a stack trace.

import type { Writable } from 'node:stream';

const CLOSED_CODES = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** Thrown by the command context's print once the reader has gone, to end the command early. */
export class OutputClosed extends Error {
  constructor() {
    super('standard output was closed by its reader');
    this.name = 'OutputClosed';
  }
}

export interface OutputWatch {
  /** True once a write failed because the reader closed the stream. */
  readonly closed: boolean;
  /** True when `error` comes from writing to the closed stream (or is OutputClosed). */
  isClosedError(error: unknown): boolean;
  /** Throws any other error the stream had. */
  dispose(): void;
}

/** Watches `output` for its reader closing it; other stream errors are kept and rethrown on dispose. */
export function watchOutput(output: Writable): OutputWatch {
  let closed = false;
  let other: unknown;
  const onError = (error: NodeJS.ErrnoException) => {
    if (CLOSED_CODES.has(error.code ?? '')) closed = true;
    else other ??= error;
  };
  output.on('error', onError);
  return {
    get closed() {
      return closed;
    },
    isClosedError: (error) =>
      error instanceof OutputClosed ||
      ((closed || output.destroyed) && CLOSED_CODES.has(String((error as NodeJS.ErrnoException | undefined)?.code))),
    // The listener stays: writes already queued fail after the command has returned, and an
    // unheard 'error' event would end the process with a stack trace.
    dispose: () => {
      if (other !== undefined) throw other;
    },
  };
}
