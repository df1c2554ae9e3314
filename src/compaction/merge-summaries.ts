// Merging an earlier summary with what newer messages say (a nested compaction). Every line of
// the earlier summary is kept unless a newer one supersedes it: a request now answered is done,
// a file now modified says so, an error now fixed gets its fix, and the current work is the
// newer one. The first request stays first. Nothing is re-extracted from the earlier text.

import { oneLine } from './render-summary.js';
import {
  FILE_ACTIONS,
  type SummaryErrorLine,
  type SummaryFileLine,
  type SummaryRequestLine,
  type SummarySections,
} from './summary-sections.js';

/** What the newer messages show about the earlier summary's open lines. */
export interface NewerEvidence {
  /** The assistant answered before any new request: the earlier open request is done. */
  readonly answersOpenRequest: boolean;
  /** Fixes reported with no failure of their own in the newer messages: they fix an earlier error. */
  readonly fixes: readonly string[];
}

export const NO_EVIDENCE: NewerEvidence = { answersOpenRequest: false, fixes: [] };

function unionBy<T>(first: readonly T[], second: readonly T[], key: (item: T) => string, pick: (kept: T, newer: T) => T): T[] {
  const merged = new Map<string, T>();
  for (const item of first) if (!merged.has(key(item))) merged.set(key(item), item);
  for (const item of second) {
    const kept = merged.get(key(item));
    merged.set(key(item), kept === undefined ? item : pick(kept, item));
  }
  return [...merged.values()];
}

const sameText = (text: string): string => oneLine(text).toLowerCase();
const keepFirst = <T>(kept: T): T => kept;
const strings = (first: readonly string[], second: readonly string[]): string[] => unionBy(first, second, sameText, keepFirst);

function mergeRequests(inner: readonly SummaryRequestLine[], newer: readonly SummaryRequestLine[], evidence: NewerEvidence) {
  const lastOpen = inner.findLastIndex((request) => request.status === 'open');
  const answered = inner.map((request, index) =>
    // Only the latest open request can be the one the newer messages go on answering.
    index === lastOpen && evidence.answersOpenRequest && index === inner.length - 1 ? { ...request, status: 'done' as const } : request,
  );
  // Every request is a line of its own, even one said again ("yes", "go on"): they are not merged.
  return [...answered, ...newer];
}

/** The stronger action wins; but a file that was read or modified already existed, so writing it modifies it. */
export function strongerFile(kept: SummaryFileLine, newer: SummaryFileLine): SummaryFileLine {
  const action = newer.action === 'created' && (kept.action === 'read' || kept.action === 'modified') ? 'modified' : newer.action;
  return FILE_ACTIONS.indexOf(action) > FILE_ACTIONS.indexOf(kept.action) ? { ...kept, action } : kept;
}

function mergeErrors(inner: readonly SummaryErrorLine[], newer: readonly SummaryErrorLine[], evidence: NewerEvidence) {
  const fixes = [...evidence.fixes];
  // The newest open error is the likeliest one a later fix is about.
  const fixed = [...inner]
    .reverse()
    .map((line) => (line.fix === null && fixes.length > 0 ? { ...line, fix: fixes.shift() ?? null } : line))
    .reverse();
  return unionBy(
    fixed,
    newer,
    (line) => sameText(line.error),
    (kept, later) => (kept.fix === null ? { ...kept, fix: later.fix } : kept),
  );
}

/** `inner` updated by `newer`, the sections of the messages that came after it. */
export function mergeSummaries(inner: SummarySections, newer: SummarySections, evidence: NewerEvidence = NO_EVIDENCE): SummarySections {
  const requests = mergeRequests(inner.requests, newer.requests, evidence);
  const allDone = requests.every((request) => request.status === 'done');
  return {
    format: inner.format,
    requests,
    files: unionBy(inner.files, newer.files, (file) => file.path, strongerFile),
    identifiers: unionBy(inner.identifiers, newer.identifiers, (name) => name.replace(/\(.*\)$/, ''), keepFirst),
    decisions: strings(inner.decisions, newer.decisions),
    errors: mergeErrors(inner.errors, newer.errors, evidence),
    progress: strings(inner.progress, newer.progress),
    toolCalls: strings(inner.toolCalls, newer.toolCalls),
    // The newer current work replaces the earlier one; with every request done there is none.
    current: newer.current ?? (allDone ? null : inner.current),
    earlier: strings(inner.earlier, newer.earlier),
    unstructured: strings(inner.unstructured, newer.unstructured),
    notes: strings(inner.notes, newer.notes),
  };
}
