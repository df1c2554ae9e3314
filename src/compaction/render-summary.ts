// Renders summary sections as the text the model is shown. The format is markdown with fixed
// headings, in this order, each present only when it has lines:
//
//   ## Requests            - [done] "the user's words"   (oldest first; [open] = not answered yet)
//   ## Files               - created: a.ts, b.ts   - modified: …   - read: …   - mentioned: …
//   ## Identifiers         - parseCsv(), MAX_ROWS
//   ## Decisions           - one decision with its reason
//   ## Errors and fixes    - what failed → fixed: how   |   - what failed → not fixed
//   ## Progress            - an answer or finding, with its figures
//   ## Tool calls          - search_files({"text":"endField()"}) → ok
//   ## Current work        - working on: …   - next step: …
//   ## Earlier summary     > an earlier summary without sections, verbatim ("---" between two)
//   ## Unstructured summary  > a model's answer that did not parse
//   ## Notes               - 2 images omitted
//
// Every value stays on its line: continuation lines of a request are indented, so no text can
// start a heading. The same format is what the model summarizer is asked to write, and what
// parse-summary.ts reads back.

import { FILE_ACTIONS, type FileAction, type SummarySections } from './summary-sections.js';

export const SECTION_HEADINGS = {
  requests: 'Requests',
  files: 'Files',
  identifiers: 'Identifiers',
  decisions: 'Decisions',
  errors: 'Errors and fixes',
  progress: 'Progress',
  toolCalls: 'Tool calls',
  current: 'Current work',
  earlier: 'Earlier summary',
  unstructured: 'Unstructured summary',
  notes: 'Notes',
} as const;
export type SectionName = keyof typeof SECTION_HEADINGS;

export const FIXED_MARK = ' → fixed: ';
export const NOT_FIXED_MARK = ' → not fixed';
export const WORK_PREFIX = 'working on: ';
export const NEXT_STEP_PREFIX = 'next step: ';
export const BLOCK_SEPARATOR = '---';
/** Shown first in the file list: what changed matters more than what was looked at. */
const FILE_ORDER: readonly FileAction[] = [...FILE_ACTIONS].reverse();
const LIST_SEPARATOR = ', ';
const WRAPPER_TAG = /<\s*(\/?)\s*compacted-summary\s*>/gi;

/** One line: runs of whitespace (line breaks included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function indented(text: string): string {
  return text
    .trim()
    .replace(/\n\s*\n+/g, '\n')
    .replace(/\n[ \t]*/g, '\n  ');
}

function quoted(text: string): string[] {
  return text
    .trim()
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line.trimEnd()}`));
}

function blocks(texts: readonly string[]): string[] {
  return texts.flatMap((text, index) => (index === 0 ? quoted(text) : [BLOCK_SEPARATOR, ...quoted(text)]));
}

function sectionLines(sections: SummarySections, name: SectionName): string[] {
  switch (name) {
    case 'requests':
      return sections.requests.map((request) => `- [${request.status}] "${indented(request.text)}"`);
    case 'files':
      return FILE_ORDER.flatMap((action) => {
        const paths = sections.files.filter((file) => file.action === action).map((file) => file.path);
        return paths.length === 0 ? [] : [`- ${action}: ${paths.join(LIST_SEPARATOR)}`];
      });
    case 'identifiers':
      return sections.identifiers.length === 0 ? [] : [`- ${sections.identifiers.join(LIST_SEPARATOR)}`];
    case 'decisions':
      return sections.decisions.map((line) => `- ${oneLine(line)}`);
    case 'errors':
      return sections.errors.map(
        ({ error, fix }) => `- ${oneLine(error)}${fix === null ? NOT_FIXED_MARK : `${FIXED_MARK}${oneLine(fix)}`}`,
      );
    case 'progress':
      return sections.progress.map((line) => `- ${oneLine(line)}`);
    case 'toolCalls':
      return sections.toolCalls.map((line) => `- ${oneLine(line)}`);
    case 'current': {
      const current = sections.current;
      if (current === null) return [];
      const next = current.nextStep === null ? [] : [`- ${NEXT_STEP_PREFIX}${oneLine(current.nextStep)}`];
      return [`- ${WORK_PREFIX}${oneLine(current.work)}`, ...next];
    }
    case 'earlier':
      return blocks(sections.earlier);
    case 'unstructured':
      return blocks(sections.unstructured);
    case 'notes':
      return sections.notes.map((line) => `- ${oneLine(line)}`);
  }
}

/** The sections as markdown under their fixed headings, after an optional first line (a label). */
export function renderSections(sections: SummarySections, label?: string): string {
  const lines: string[] = label === undefined ? [] : [label];
  for (const name of Object.keys(SECTION_HEADINGS) as SectionName[]) {
    const body = sectionLines(sections, name);
    if (body.length > 0) lines.push(`## ${SECTION_HEADINGS[name]}`, ...body);
  }
  return lines.join('\n');
}

/**
 * Text that cannot open or close the summary's wrapper: a literal `<compacted-summary>` or
 * `</compacted-summary>` from the originals is shown as `[compacted-summary]` or `[/compacted-summary]`.
 */
export function neutralizeWrapper(text: string): string {
  return text.replace(WRAPPER_TAG, (_, slash: string) => `[${slash}compacted-summary]`);
}

/** The replacing user message (SPEC §7 step 6): a past-tense preamble and one wrapper. */
export function replacementText(summaryText: string, shadowedCount: number): string {
  const what = `${shadowedCount} earlier message${shadowedCount === 1 ? ' was' : 's were'}`;
  return `Earlier context was compacted: ${what} replaced by this summary.\n<compacted-summary>\n${neutralizeWrapper(summaryText)}\n</compacted-summary>`;
}

/** The summary inside a replacing message's wrapper (the whole text when it has none). */
export function summaryInside(text: string): string {
  const start = text.indexOf('<compacted-summary>');
  const end = text.lastIndexOf('</compacted-summary>');
  if (start < 0 || end < start) return text.trim();
  return text.slice(start + '<compacted-summary>'.length, end).trim();
}
