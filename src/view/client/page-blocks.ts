// How the audit page's data is cut in pages, shared by the server that cuts it and the page that
// reads it (a page module that imports nothing, so Node code reads it too): events and calls in
// blocks of a fixed size, each a JSON array (deflated and base64-encoded inside a written file,
// fetched by range from a served page's server), and each call of the first document as one
// compact row: the figures the timeline, the header and the chart need, and nothing else.

/** Events per block of content (and of search text). */
export const EVENT_BLOCK = 500;
/** Calls per block of details; the first call of a block records its surface as a plain list. */
export const CALL_BLOCK = 500;
/** The most events or calls a served page's server answers for in one request. */
export const MAX_RANGE = 2_000;

/** The id of the element of a written page that holds block `index` of `kind`. */
export function blockElementId(kind: 'events' | 'search' | 'calls', index: number): string {
  return `shadowlog-${kind}-${index}`;
}

export const CHECK_STATUSES = ['verified', 'off-surface', 'reconstructed', 'pending', 'failed'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/** What flags a call row's flags bits hold. */
export const CALL_FLAGS = {
  offSurface: 1,
  error: 2,
  answered: 4,
  unrecordedAnswer: 8,
  /** The estimate is the calibrated meter's (else the one the request recorded). */
  metered: 16,
  anchored: 32,
  contextOverflow: 64,
} as const;

/**
 * A call as the first document gives it: `[seq, turn, step, provider, model, status, flags,
 * input, output, cacheRead, cacheWrite, estimate, window, errorCode]`, a figure null where the
 * call has none.
 */
export type CallRow = readonly [
  number,
  number,
  number,
  string,
  string,
  number,
  number,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  string | null,
];

/** A call's figures as the timeline, the header and the chart read them. */
export interface CallSummary {
  readonly seq: number;
  readonly turn: number;
  readonly step: number;
  readonly provider: string;
  readonly model: string;
  readonly status: CheckStatus;
  readonly offSurface: boolean;
  readonly answered: boolean;
  readonly unrecordedAnswer: boolean;
  readonly metered: boolean;
  readonly anchored: boolean;
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
  readonly cacheReadTokens: number | null;
  readonly cacheWriteTokens: number | null;
  /** The meter's estimate when `metered`, else the estimate the request recorded. */
  readonly estimate: number | null;
  readonly contextWindow: number | null;
  /** The code of the model/error the call ended in. */
  readonly errorCode: string | null;
}

export function encodeCallRow(call: CallSummary): CallRow {
  const flags =
    (call.offSurface ? CALL_FLAGS.offSurface : 0) |
    (call.errorCode !== null ? CALL_FLAGS.error : 0) |
    (call.answered ? CALL_FLAGS.answered : 0) |
    (call.unrecordedAnswer ? CALL_FLAGS.unrecordedAnswer : 0) |
    (call.metered ? CALL_FLAGS.metered : 0) |
    (call.anchored ? CALL_FLAGS.anchored : 0);
  return [
    call.seq,
    call.turn,
    call.step,
    call.provider,
    call.model,
    CHECK_STATUSES.indexOf(call.status),
    flags,
    call.inputTokens,
    call.outputTokens,
    call.cacheReadTokens,
    call.cacheWriteTokens,
    call.estimate,
    call.contextWindow,
    call.errorCode,
  ];
}

export function decodeCallRow(row: CallRow): CallSummary {
  const [seq, turn, step, provider, model, status, flags, input, output, cacheRead, cacheWrite, estimate, window, errorCode] = row;
  return {
    seq,
    turn,
    step,
    provider,
    model,
    status: CHECK_STATUSES[status] ?? 'failed',
    offSurface: (flags & CALL_FLAGS.offSurface) !== 0,
    answered: (flags & CALL_FLAGS.answered) !== 0,
    unrecordedAnswer: (flags & CALL_FLAGS.unrecordedAnswer) !== 0,
    metered: (flags & CALL_FLAGS.metered) !== 0,
    anchored: (flags & CALL_FLAGS.anchored) !== 0,
    inputTokens: input,
    outputTokens: output,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    estimate,
    contextWindow: window,
    errorCode,
  };
}
