// Fills the budget and writes the summary: items are taken by priority while they fit, then
// shown section by section in their original order, under short labels.

import { EXTRACTIVE_LABEL } from './sentences.js';
import type { CountTokens } from './unicode.js';

export type SectionId = 'task' | 'files' | 'tools' | 'errors' | 'decisions' | 'todos' | 'other';
export type EntityList = 'files' | 'identifiers';

export interface SummaryItem {
  readonly section: SectionId;
  /** Reading order within the range; items are shown in it. */
  readonly order: number;
  readonly priority: number;
  /** A whole line; or, for an entity list, one entry of it. */
  readonly text: string;
  readonly list: EntityList | undefined;
  /** Taken from the messages' text (counted as a kept sentence), not built from tool calls or entities. */
  readonly isSentence: boolean;
}

const SECTION_TITLES: Readonly<Record<SectionId, string>> = {
  task: 'Task and latest request:',
  files: 'Files and identifiers:',
  tools: 'Tool calls:',
  errors: 'Errors and fixes:',
  decisions: 'Decisions:',
  todos: 'Open to-dos:',
  other: 'Other key sentences:',
};
const SECTION_ORDER: readonly SectionId[] = ['task', 'files', 'tools', 'errors', 'decisions', 'todos', 'other'];
const LIST_ORDER: readonly EntityList[] = ['files', 'identifiers'];
const LIST_SEPARATOR = ', ';
/** Each refill attempt measures the whole text; a few are enough to use what shrinking freed. */
const REFILL_ATTEMPTS = 24;

function byOrder(first: SummaryItem, second: SummaryItem): number {
  return first.order - second.order;
}

/** Highest priority first; ties go to the earlier item, so the choice is deterministic. */
function byPriority(first: SummaryItem, second: SummaryItem): number {
  return second.priority - first.priority || first.order - second.order;
}

/** The label, the notes, then each section that has items. */
export function renderSummary(notes: readonly string[], items: readonly SummaryItem[]): string {
  const lines = [EXTRACTIVE_LABEL, ...notes];
  for (const section of SECTION_ORDER) {
    const inSection = items.filter((item) => item.section === section).sort(byOrder);
    if (inSection.length === 0) continue;
    lines.push(SECTION_TITLES[section]);
    for (const list of LIST_ORDER) {
      const entries = inSection.filter((item) => item.list === list).map((item) => item.text);
      if (entries.length > 0) lines.push(`- ${list}: ${entries.join(LIST_SEPARATOR)}`);
    }
    for (const item of inSection) if (item.list === undefined) lines.push(item.text);
  }
  return lines.join('\n');
}

/** What adding an item costs: its line (or list entry), plus a title or list prefix the first time. */
class CostBook {
  private readonly openSections = new Set<SectionId>();
  private readonly openLists = new Set<EntityList>();
  constructor(private readonly countTokens: CountTokens) {}

  costOf(item: SummaryItem): number {
    let cost = this.countTokens(item.list === undefined ? `${item.text}\n` : `${item.text}${LIST_SEPARATOR}`);
    if (!this.openSections.has(item.section)) cost += this.countTokens(`${SECTION_TITLES[item.section]}\n`);
    if (item.list !== undefined && !this.openLists.has(item.list)) cost += this.countTokens(`- ${item.list}: \n`);
    return cost;
  }

  open(item: SummaryItem): void {
    this.openSections.add(item.section);
    if (item.list !== undefined) this.openLists.add(item.list);
  }
}

/**
 * The items to show: greedily by priority while their estimated costs fit. A tokenizer need
 * not be additive, so the whole text is then measured: the least important items are dropped
 * until it fits, and the room that frees (or that rounding left) is refilled, measured whole.
 */
export function selectItems(
  notes: readonly string[],
  items: readonly SummaryItem[],
  budget: number,
  countTokens: CountTokens,
): SummaryItem[] {
  const book = new CostBook(countTokens);
  let used = countTokens(renderSummary(notes, []));
  const accepted: SummaryItem[] = [];
  for (const item of [...items].sort(byPriority)) {
    const cost = book.costOf(item);
    if (used + cost > budget) continue;
    used += cost;
    accepted.push(item);
    book.open(item);
  }
  const kept = shrinkToBudget(notes, accepted, budget, countTokens);
  const keptSet = new Set(kept);
  const rest = [...items].sort(byPriority).filter((item) => !keptSet.has(item));
  return refill(notes, kept, rest, budget, countTokens);
}

function refill(
  notes: readonly string[],
  kept: SummaryItem[],
  rest: readonly SummaryItem[],
  budget: number,
  countTokens: CountTokens,
): SummaryItem[] {
  let current = kept;
  let used = countTokens(renderSummary(notes, current));
  let attempts = 0;
  for (const item of rest) {
    if (attempts === REFILL_ATTEMPTS || used >= budget) break;
    if (countTokens(item.text) > budget - used) continue;
    attempts += 1;
    const attempt = [...current, item];
    const tokens = countTokens(renderSummary(notes, attempt));
    if (tokens <= budget) {
      current = attempt;
      used = tokens;
    }
  }
  return current;
}

function shrinkToBudget(notes: readonly string[], accepted: SummaryItem[], budget: number, countTokens: CountTokens): SummaryItem[] {
  let kept = accepted;
  for (;;) {
    const overshoot = countTokens(renderSummary(notes, kept)) - budget;
    if (overshoot <= 0 || kept.length === 0) return kept;
    // Drop from the least important end until the dropped lines cover the overshoot.
    let dropped = 0;
    let count = kept.length;
    while (count > 0 && dropped < overshoot) {
      count -= 1;
      dropped += countTokens(`${(kept[count] as SummaryItem).text}\n`);
    }
    kept = kept.slice(0, count);
  }
}
