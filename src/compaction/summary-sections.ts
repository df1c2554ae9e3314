// A summary is data first: these sections are what `compaction/summary` stores, what the
// replacing message renders (render-summary.ts), what a later compaction merges into
// (merge-summaries.ts), and what a model's answer is parsed back into (parse-summary.ts).

import { arrayOf, type Checker, fail, isNonEmptyString, isPlainObject, isString, objectWith, oneOf } from '../log/shape.js';

export const SUMMARY_SECTIONS_FORMAT = 'summary-sections/1';

export const REQUEST_STATUSES = ['done', 'open'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** What was done to a file, weakest first: a stronger action supersedes a weaker one. */
export const FILE_ACTIONS = ['mentioned', 'read', 'modified', 'created'] as const;
export type FileAction = (typeof FILE_ACTIONS)[number];

export interface SummaryRequestLine {
  /** The user's words, verbatim (a long request keeps its head and tail, cut at a visible ' … '). */
  readonly text: string;
  readonly status: RequestStatus;
}

export interface SummaryFileLine {
  readonly path: string;
  readonly action: FileAction;
}

export interface SummaryErrorLine {
  /** What failed: the call and its error text, or the assistant's report of an error. */
  readonly error: string;
  /** How it was fixed; null while it is not. */
  readonly fix: string | null;
}

export interface SummaryCurrentWork {
  readonly work: string;
  readonly nextStep: string | null;
}

export interface SummarySections {
  readonly format: typeof SUMMARY_SECTIONS_FORMAT;
  /** The task and every user request, oldest first: the first one is the session's first. */
  readonly requests: readonly SummaryRequestLine[];
  readonly files: readonly SummaryFileLine[];
  readonly identifiers: readonly string[];
  /** Decisions with their reasons, as the conversation stated them. */
  readonly decisions: readonly string[];
  /** Only from tool results that failed, or error text the assistant reported. */
  readonly errors: readonly SummaryErrorLine[];
  /** The assistant's answers and findings, with their figures. */
  readonly progress: readonly string[];
  /** Calls whose effect the file list does not already say, with their whole arguments. */
  readonly toolCalls: readonly string[];
  readonly current: SummaryCurrentWork | null;
  /** Earlier summaries that have no sections (older versions, a model's free text), kept verbatim. */
  readonly earlier: readonly string[];
  /** A model's answer that did not parse into sections, kept whole rather than dropped. */
  readonly unstructured: readonly string[];
  /** What the summary could not show ("2 images omitted"). */
  readonly notes: readonly string[];
}

export function emptySections(): SummarySections {
  return {
    format: SUMMARY_SECTIONS_FORMAT,
    requests: [],
    files: [],
    identifiers: [],
    decisions: [],
    errors: [],
    progress: [],
    toolCalls: [],
    current: null,
    earlier: [],
    unstructured: [],
    notes: [],
  };
}

/** How many lines the sections hold (the current work counts as one). */
export function lineCount(sections: SummarySections): number {
  return (
    sections.requests.length +
    sections.files.length +
    sections.identifiers.length +
    sections.decisions.length +
    sections.errors.length +
    sections.progress.length +
    sections.toolCalls.length +
    (sections.current === null ? 0 : 1) +
    sections.earlier.length +
    sections.unstructured.length +
    sections.notes.length
  );
}

const strings = arrayOf(isString);
const stringOrNull: Checker = (value, field, seq) => {
  if (value !== null && typeof value !== 'string') fail(field, 'a string or null', value, seq);
};
const format: Checker = (value, field, seq) => {
  if (value !== SUMMARY_SECTIONS_FORMAT) fail(field, `'${SUMMARY_SECTIONS_FORMAT}'`, value, seq);
};
const current: Checker = (value, field, seq) => {
  if (value !== null) objectWith({ work: isString, nextStep: stringOrNull })(value, field, seq);
};

/** The runtime check of SummarySections, in the shape of the registry's other checkers. */
export const checkSummarySections: Checker = objectWith({
  format,
  requests: arrayOf(objectWith({ text: isString, status: oneOf(REQUEST_STATUSES) })),
  files: arrayOf(objectWith({ path: isNonEmptyString, action: oneOf(FILE_ACTIONS) })),
  identifiers: strings,
  decisions: strings,
  errors: arrayOf(objectWith({ error: isString, fix: stringOrNull })),
  progress: strings,
  toolCalls: strings,
  current,
  earlier: strings,
  unstructured: strings,
  notes: strings,
});

/** True when `value` is a valid SummarySections (for data read back from a log). */
export function isSummarySections(value: unknown): value is SummarySections {
  if (!isPlainObject(value)) return false;
  try {
    checkSummarySections(value, 'sections', undefined);
    return true;
  } catch {
    // The checker throws to say why; here only whether matters.
    return false;
  }
}
