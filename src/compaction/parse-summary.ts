// Reads a summary written in render-summary.ts's format back into sections: a model's answer,
// or the text of an earlier summary. Lenient about what a model varies (heading levels, a
// trailing colon, "*" bullets, a missing status) and never loses text: lines under a heading
// it does not know, or an answer with no known heading at all, are kept as unstructured text.

import {
  BLOCK_SEPARATOR,
  FIXED_MARK,
  NEXT_STEP_PREFIX,
  NOT_FIXED_MARK,
  SECTION_HEADINGS,
  type SectionName,
  WORK_PREFIX,
} from './render-summary.js';
import {
  emptySections,
  FILE_ACTIONS,
  type FileAction,
  type SummaryErrorLine,
  type SummaryFileLine,
  type SummaryRequestLine,
  type SummarySections,
} from './summary-sections.js';

export interface ParsedSummary {
  readonly sections: SummarySections;
  /** False when no known heading was found: the whole text is then one unstructured block. */
  readonly structured: boolean;
}

const HEADING = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/;
const BOLD_HEADING = /^\s{0,3}\*\*(.+?)\*\*:?\s*$/;
const ITEM = /^\s{0,3}[-*+]\s+(.*)$/;
const LABEL = /^\[extractive summary[^\]]*\]$/;
const STATUS = /^\[(done|open)\]\s*/i;
const FILE_ITEM = new RegExp(`^(${FILE_ACTIONS.join('|')})\\s*:\\s*(.*)$`, 'is');
const LIST_SPLIT = /\s*,\s+/;

/** Which section a heading names, by its first word(s); undefined for one this format does not have. */
function sectionOf(heading: string): SectionName | undefined {
  const text = heading
    .replace(/[:*_`]/g, '')
    .trim()
    .toLowerCase();
  for (const [name, title] of Object.entries(SECTION_HEADINGS) as [SectionName, string][]) if (text === title.toLowerCase()) return name;
  const keywords: [RegExp, SectionName][] = [
    [/^(task|request|user request)/, 'requests'],
    [/^(files?|artifacts?)\b/, 'files'],
    [/^identifiers?\b/, 'identifiers'],
    [/^decisions?\b/, 'decisions'],
    [/^errors?\b/, 'errors'],
    [/^progress\b/, 'progress'],
    [/^tool/, 'toolCalls'],
    [/^(current|next)/, 'current'],
    [/^earlier/, 'earlier'],
    [/^unstructured/, 'unstructured'],
    [/^notes?\b/, 'notes'],
  ];
  return keywords.find(([pattern]) => pattern.test(text))?.[1];
}

interface Block {
  readonly heading: string | undefined;
  readonly section: SectionName | undefined;
  readonly lines: string[];
}

function splitBlocks(text: string): Block[] {
  const blocks: Block[] = [{ heading: undefined, section: undefined, lines: [] }];
  for (const line of text.split(/\r?\n/)) {
    const heading = HEADING.exec(line)?.[1] ?? BOLD_HEADING.exec(line)?.[1];
    if (heading !== undefined) blocks.push({ heading, section: sectionOf(heading), lines: [] });
    else (blocks[blocks.length - 1] as Block).lines.push(line);
  }
  return blocks;
}

/** Bullet items; an indented line continues the item before it, an unbulleted one is an item of its own. */
function itemsOf(lines: readonly string[]): string[] {
  const items: string[][] = [];
  for (const line of lines) {
    const item = ITEM.exec(line);
    const last = items[items.length - 1];
    if (item !== null) items.push([item[1] ?? '']);
    else if (line.trim() === '') continue;
    else if (last !== undefined && /^\s/.test(line)) last.push(line.trim());
    else items.push([line.trim()]);
  }
  return items.map((item) => item.join('\n').trim()).filter((item) => item !== '');
}

/** Quoted blocks ("> " lines), separated by "---"; unquoted lines are taken as they are. */
function quotedBlocks(lines: readonly string[]): string[] {
  const found: string[][] = [[]];
  for (const line of lines) {
    if (line.trim() === BLOCK_SEPARATOR) found.push([]);
    else (found[found.length - 1] as string[]).push(line.replace(/^\s*> ?/, ''));
  }
  return found.map((block) => block.join('\n').trim()).filter((block) => block !== '');
}

function unquote(text: string): string {
  const trimmed = text.trim();
  const pairs: [string, string][] = [
    ['"', '"'],
    ['“', '”'],
  ];
  for (const [open, close] of pairs)
    if (trimmed.length >= 2 && trimmed.startsWith(open) && trimmed.endsWith(close)) return trimmed.slice(open.length, -close.length);
  return trimmed;
}

function requestOf(item: string): SummaryRequestLine {
  const status = STATUS.exec(item);
  // A request whose status the answer does not give is not claimed done.
  return { status: status?.[1]?.toLowerCase() === 'done' ? 'done' : 'open', text: unquote(item.slice(status?.[0].length ?? 0)) };
}

function filesOf(item: string): SummaryFileLine[] {
  const match = FILE_ITEM.exec(item);
  const action = (match?.[1]?.toLowerCase() ?? 'mentioned') as FileAction;
  const paths = (match?.[2] ?? item).split(LIST_SPLIT).map((path) => path.replace(/^`|`$/g, '').trim());
  return paths.filter((path) => path !== '').map((path) => ({ path, action }));
}

function errorOf(item: string): SummaryErrorLine {
  const text = item.replace(/ ?-> ?fixed: /, FIXED_MARK).replace(/ ?-> ?not fixed\s*$/, NOT_FIXED_MARK);
  const fixed = text.indexOf(FIXED_MARK);
  if (fixed >= 0) return { error: text.slice(0, fixed).trim(), fix: text.slice(fixed + FIXED_MARK.length).trim() };
  return { error: text.replace(/ → not fixed\s*$/, '').trim(), fix: null };
}

function currentOf(items: readonly string[]): SummarySections['current'] {
  let work: string | undefined;
  let nextStep: string | null = null;
  for (const item of items) {
    if (item.toLowerCase().startsWith(NEXT_STEP_PREFIX)) nextStep = item.slice(NEXT_STEP_PREFIX.length).trim();
    else if (item.toLowerCase().startsWith(WORK_PREFIX)) work = item.slice(WORK_PREFIX.length).trim();
    else work = work === undefined ? item : `${work} ${item}`;
  }
  if (work === undefined && nextStep === null) return null;
  return { work: work ?? '', nextStep };
}

/** The sections of `text`, as far as it follows the format; what does not is kept unstructured. */
export function parseSummaryText(text: string): ParsedSummary {
  const blocks = splitBlocks(text);
  if (!blocks.some((block) => block.section !== undefined)) {
    const whole = text.trim();
    return { sections: { ...emptySections(), unstructured: whole === '' ? [] : [whole] }, structured: false };
  }
  const sections = {
    ...emptySections(),
    requests: [] as SummaryRequestLine[],
    files: [] as SummaryFileLine[],
    identifiers: [] as string[],
    decisions: [] as string[],
    errors: [] as SummaryErrorLine[],
    progress: [] as string[],
    toolCalls: [] as string[],
    earlier: [] as string[],
    unstructured: [] as string[],
    notes: [] as string[],
  };
  for (const block of blocks) {
    const items = itemsOf(block.lines);
    switch (block.section) {
      case 'requests':
        sections.requests.push(...items.map(requestOf));
        break;
      case 'files':
        sections.files.push(...items.flatMap(filesOf));
        break;
      case 'identifiers':
        sections.identifiers.push(...items.flatMap((item) => item.split(LIST_SPLIT)).filter((name) => name !== ''));
        break;
      case 'decisions':
      case 'progress':
      case 'toolCalls':
      case 'notes':
        sections[block.section].push(...items);
        break;
      case 'errors':
        sections.errors.push(...items.map(errorOf));
        break;
      case 'current':
        sections.current = currentOf(items) ?? sections.current;
        break;
      case 'earlier':
      case 'unstructured':
        sections[block.section].push(...quotedBlocks(block.lines));
        break;
      case undefined: {
        // Text outside the format (a preface, an unknown heading) is kept, never dropped.
        const kept = block.lines
          .filter((line) => !LABEL.test(line.trim()))
          .join('\n')
          .trim();
        const shown = block.heading === undefined ? kept : `${block.heading}\n${kept}`.trim();
        if (shown !== '') sections.unstructured.push(shown);
      }
    }
  }
  return { sections, structured: true };
}
