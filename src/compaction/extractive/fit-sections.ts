// Fits sections to a token budget. The budget is a ceiling, not a target: lines are only ever
// dropped, never added. Lines newly extracted go first, least informative first (tool calls,
// then identifiers, mentioned files, older progress …); lines kept from an earlier summary go
// only when even that leaves the summary over the hard ceiling, and a note says how many went.

import { renderSections, type SectionName } from '../render-summary.js';
import { lineCount, type SummarySections } from '../summary-sections.js';
import { type CountTokens, trimToTokens, truncateGraphemes } from './unicode.js';

export interface FitOptions {
  /** What the summary aims at: newly extracted lines are dropped to fit it. */
  readonly budget: number;
  /** The hard limit (maxSummaryTokens): lines from an earlier summary are dropped only to fit it. */
  readonly ceiling: number;
  readonly countTokens: CountTokens;
  readonly label: string;
  /** True for a line kept from an earlier summary. */
  readonly isInner: (section: SectionName, key: string) => boolean;
}

/** A line, named by its section and its key (see keyOf). */
interface LineRef {
  readonly section: SectionName;
  readonly key: string;
}

/** Of the budget, what the latest request may take (the work goes on from it), the first, and all the others together. */
const LATEST_REQUEST_SHARE = 0.5;
const FIRST_REQUEST_SHARE = 0.1;
const OTHER_REQUESTS_SHARE = 0.25;
const SMALLEST_REQUEST_TOKENS = 8;
/** However much room the requests and an earlier summary's lines take, the other new lines get this share of the budget on top. */
const ROOM_BEYOND_KEPT = 0.5;

type ListSection = Exclude<SectionName, 'current'>;

function keysOf(sections: SummarySections, section: ListSection): string[] {
  switch (section) {
    case 'requests':
      return sections.requests.map((line) => line.text);
    case 'files':
      return sections.files.map((line) => line.path);
    case 'errors':
      return sections.errors.map((line) => line.error);
    default:
      return [...sections[section]];
  }
}

/** Of the errors, decisions and progress, the latest few are kept longest: a long range keeps a mix, not one section. */
const LATEST_KEPT = 3;

/** What goes first when lines must go: oldest first, or (for ranked lists) last first. */
function dropOrder(sections: SummarySections): LineRef[] {
  const refs = (section: ListSection, keys: readonly string[]) => keys.map((key) => ({ section, key }));
  const files = (action: string) =>
    sections.files
      .filter((file) => file.action === action)
      .map((file) => file.path)
      .reverse();
  const older = (section: 'errors' | 'decisions' | 'progress') => refs(section, keysOf(sections, section).slice(0, -LATEST_KEPT));
  const latest = (section: 'errors' | 'decisions' | 'progress') => refs(section, keysOf(sections, section).slice(-LATEST_KEPT));
  const fixed = new Set(sections.errors.filter((line) => line.fix !== null).map((line) => line.error));
  const latestErrors = latest('errors');
  const latestProgress = latest('progress');
  return [
    ...refs('toolCalls', keysOf(sections, 'toolCalls')),
    ...refs('identifiers', [...sections.identifiers].reverse()),
    ...refs('files', files('mentioned')),
    ...older('errors'),
    ...older('progress'),
    ...older('decisions'),
    ...refs('files', files('read')),
    ...refs('notes', keysOf(sections, 'notes')),
    ...refs('unstructured', keysOf(sections, 'unstructured').slice(0, -1)),
    ...refs('earlier', keysOf(sections, 'earlier')),
    ...latestErrors.filter((ref) => fixed.has(ref.key)),
    ...latest('decisions'),
    ...latestProgress.slice(0, -1),
    ...latestErrors.filter((ref) => !fixed.has(ref.key)),
    ...latestProgress.slice(-1),
    ...refs('unstructured', keysOf(sections, 'unstructured').slice(-1)),
    ...refs('files', [...files('modified'), ...files('created')]),
    { section: 'current', key: 'current' },
  ];
}

function without(sections: SummarySections, dropped: readonly LineRef[]): SummarySections {
  const gone = new Set(dropped.map((ref) => `${ref.section}\u0000${ref.key}`));
  const kept = (section: SectionName) => (key: string) => !gone.has(`${section}\u0000${key}`);
  return {
    ...sections,
    files: sections.files.filter((line) => kept('files')(line.path)),
    identifiers: sections.identifiers.filter(kept('identifiers')),
    decisions: sections.decisions.filter(kept('decisions')),
    errors: sections.errors.filter((line) => kept('errors')(line.error)),
    progress: sections.progress.filter(kept('progress')),
    toolCalls: sections.toolCalls.filter(kept('toolCalls')),
    current: gone.has('current\u0000current') ? null : sections.current,
    earlier: sections.earlier.filter(kept('earlier')),
    unstructured: sections.unstructured.filter(kept('unstructured')),
    notes: sections.notes.filter(kept('notes')),
  };
}

/** The fewest drops, from the front of `order`, that bring the rendered text within `limit`; undefined if none do. */
function fewestDrops(base: SummarySections, order: readonly LineRef[], limit: number, measure: (sections: SummarySections) => number) {
  if (measure(without(base, order)) > limit) return undefined;
  let low = 0;
  let high = order.length;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (measure(without(base, order.slice(0, middle))) <= limit) high = middle;
    else low = middle + 1;
  }
  return without(base, order.slice(0, low));
}

function trimRequests(sections: SummarySections, budget: number, options: FitOptions): SummarySections {
  const last = sections.requests.length - 1;
  const others = Math.max(1, sections.requests.length - 2);
  const requests = sections.requests.map((request, index) => {
    if (options.isInner('requests', request.text)) return request;
    const share = index === last ? LATEST_REQUEST_SHARE : index === 0 ? FIRST_REQUEST_SHARE : OTHER_REQUESTS_SHARE / others;
    const allowance = Math.max(SMALLEST_REQUEST_TOKENS, Math.floor(budget * share));
    const keep = index === last ? 'head-and-tail' : 'head';
    const text = trimToTokens(request.text, allowance, options.countTokens, keep) ?? truncateGraphemes(request.text, 8);
    return { ...request, text };
  });
  return { ...sections, requests };
}

/** `sections` within the budget (or, keeping an earlier summary's lines, the ceiling); undefined when even the requests do not fit. */
export function fitSections(sections: SummarySections, options: FitOptions): SummarySections | undefined {
  const measure = (candidate: SummarySections) => options.countTokens(renderSections(candidate, options.label));
  if (measure(sections) <= options.budget) return sections;
  const trimmed = trimRequests(sections, options.budget, options);
  const order = dropOrder(trimmed);
  const isNew = (ref: LineRef) => ref.section === 'current' || !options.isInner(ref.section, ref.key);
  const newer = order.filter(isNew);
  const allNewDropped = without(trimmed, newer);
  const kept = measure(allNewDropped);
  // What must stay (every request, an earlier summary's lines) may fill the budget: the other lines still get room beyond it.
  const budget = Math.min(options.ceiling, Math.max(options.budget, kept + Math.floor(options.budget * ROOM_BEYOND_KEPT)));
  const withinBudget = fewestDrops(trimmed, newer, budget, measure);
  if (withinBudget !== undefined) return withinBudget;
  const inner = order.filter((ref) => !isNew(ref));
  const withinCeiling = fewestDrops(allNewDropped, inner, options.ceiling, (candidate) => measure(withNote(candidate, allNewDropped)));
  if (withinCeiling !== undefined) return withNote(withinCeiling, allNewDropped);
  // Even the requests alone are too long: cut them all shorter, none vanishing on the way.
  const bare = without(allNewDropped, inner);
  for (let allowance = options.ceiling; allowance >= 1; allowance = Math.floor(allowance / 2)) {
    const cut = cutRequests(bare, allowance, options.countTokens);
    if (cut.requests.length === bare.requests.length && measure(cut) <= options.ceiling) return cut;
  }
  // A long session's requests outgrow any ceiling: the first (the task) and the newest that fit.
  const fromBothEnds = firstAndNewestRequests(bare, allNewDropped, options.ceiling, measure, options.countTokens);
  if (fromBothEnds !== undefined) return fromBothEnds;
  // At the last, the latest request alone, as short as it must be.
  const latest = { ...bare, requests: bare.requests.slice(-1) };
  for (let allowance = options.ceiling; allowance >= 1; allowance = Math.floor(allowance / 2)) {
    const cut = cutRequests(latest, allowance, options.countTokens);
    if (cut.requests.length > 0 && measure(cut) <= options.ceiling) return cut;
  }
  return undefined;
}

/**
 * The first request and as many of the newest as fit within `ceiling`, each at its shortest,
 * with a note of how many lines went; undefined when not even the first and the latest fit.
 */
function firstAndNewestRequests(
  bare: SummarySections,
  original: SummarySections,
  ceiling: number,
  measure: (sections: SummarySections) => number,
  countTokens: CountTokens,
): SummarySections | undefined {
  const shortest = bare.requests.map((request, index) => {
    const keep = index === bare.requests.length - 1 ? 'head-and-tail' : 'head';
    const text =
      trimToTokens(request.text, SMALLEST_REQUEST_TOKENS, countTokens, keep) ?? truncateGraphemes(request.text, SMALLEST_REQUEST_TOKENS);
    return { ...request, text };
  });
  const keeping = (newest: number): SummarySections =>
    withNote({ ...bare, requests: [...shortest.slice(0, 1), ...shortest.slice(shortest.length - newest)] }, original);
  if (shortest.length < 3 || measure(keeping(1)) > ceiling) return undefined;
  // Bisection: keeping the latest fits; keeping every request did not (the loop above tried).
  let low = 1;
  let high = shortest.length - 2;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (measure(keeping(middle)) <= ceiling) low = middle;
    else high = middle - 1;
  }
  return keeping(low);
}

function cutRequests(sections: SummarySections, allowance: number, countTokens: CountTokens): SummarySections {
  const requests = sections.requests.flatMap((request, index) => {
    const keep = index === sections.requests.length - 1 ? 'head-and-tail' : 'head';
    const text = trimToTokens(request.text, allowance, countTokens, keep);
    return text === undefined ? [] : [{ ...request, text }];
  });
  return { ...sections, requests };
}

function withNote(fitted: SummarySections, original: SummarySections): SummarySections {
  const dropped = lineCount(original) - lineCount(fitted);
  if (dropped <= 0) return fitted;
  return {
    ...fitted,
    notes: [...fitted.notes, `${dropped} line${dropped === 1 ? '' : 's'} of earlier summaries dropped to fit maxSummaryTokens`],
  };
}
